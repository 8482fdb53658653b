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
  /** The Edit button's text and accessible name, when editing is something narrower ("Change value"). */
  editLabel?: string;
  editName?: string;
  onDelete(): Promise<unknown>;
  /** Buttons before Edit, e.g. "Send test" or "Check now". */
  children?: ReactNode;
}

export function EditDeleteActions({ name, what, onEdit, editLabel = 'Edit', editName = `Edit ${name}`, onDelete, children }: EditDeleteActionsProps) {
  return (
    <div className="row-actions">
      {children}
      <button type="button" onClick={onEdit} aria-label={editName}>
        {editLabel}
      </button>
      <DeleteButton what={what} onDelete={onDelete} />
    </div>
  );
}
