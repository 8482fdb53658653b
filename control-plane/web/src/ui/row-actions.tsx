// The buttons of a list row: the row's own actions, then Edit and Delete. Their accessible
// names say which row they act on ("Edit nightly backup", "Delete heartbeat "nightly backup"").
import type { ReactNode } from 'react';
import { DeleteButton } from './delete-button';

interface EditDeleteActionsProps {
  /** The row's name, as the Edit button names it: `Edit ${name}`. */
  name: string;
  /** What Delete removes, as a person reads it: `heartbeat "nightly backup"`. */
  what: string;
  onEdit(): void;
  onDelete(): Promise<unknown>;
  /** Buttons before Edit, e.g. "Send test" or "Check now". */
  children?: ReactNode;
}

export function EditDeleteActions({ name, what, onEdit, onDelete, children }: EditDeleteActionsProps) {
  return (
    <div className="row-actions">
      {children}
      <button type="button" onClick={onEdit} aria-label={`Edit ${name}`}>
        Edit
      </button>
      <DeleteButton what={what} onDelete={onDelete} />
    </div>
  );
}
