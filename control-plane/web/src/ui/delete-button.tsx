// "Delete" behind a confirmation dialog that names what goes.
import { ConfirmedButton } from './confirmed-button';

interface DeleteButtonProps {
  /** What is deleted, as a person reads it: `heartbeat "nightly backup"`. */
  what: string;
  onDelete(): Promise<unknown>;
  label?: string;
  disabled?: boolean;
}

export function DeleteButton({ what, onDelete, label = 'Delete', disabled }: DeleteButtonProps) {
  return <ConfirmedButton label={label} ariaLabel={`${label} ${what}`} title={`${label} ${what}?`} message="This cannot be undone." disabled={disabled} onConfirm={onDelete} />;
}
