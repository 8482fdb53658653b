// "Delete" behind a confirmation dialog that names what goes.
import { useState } from 'react';
import { ConfirmDialog } from './dialog';

interface DeleteButtonProps {
  /** What is deleted, as a person reads it: `heartbeat "nightly backup"`. */
  what: string;
  onDelete(): Promise<unknown>;
  label?: string;
  disabled?: boolean;
}

export function DeleteButton({ what, onDelete, label = 'Delete', disabled }: DeleteButtonProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <>
      <button type="button" className="danger" disabled={disabled} onClick={() => setOpen(true)} aria-label={`${label} ${what}`}>
        {label}
      </button>
      <ConfirmDialog
        title={`${label} ${what}?`}
        message={`This cannot be undone.`}
        confirmLabel={label}
        open={open}
        busy={busy}
        error={error}
        onClose={() => {
          setOpen(false);
          setError(undefined);
        }}
        onConfirm={async () => {
          setBusy(true);
          try {
            await onDelete();
            setOpen(false);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          } finally {
            setBusy(false);
          }
        }}
      />
    </>
  );
}
