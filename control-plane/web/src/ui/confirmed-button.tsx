// A button whose action is confirmed first in a dialog, with the action's own words on both.
import { useState } from 'react';
import { ConfirmDialog } from './dialog';

interface ConfirmedButtonProps {
  label: string;
  /** The dialog's question; the label with a question mark by default. */
  title?: string;
  message: string;
  /** When the label alone does not say what it acts on (a "Delete" in a row). */
  ariaLabel?: string;
  disabled?: boolean;
  onConfirm(): Promise<unknown>;
}

export function ConfirmedButton({ label, title = `${label}?`, message, ariaLabel, disabled, onConfirm }: ConfirmedButtonProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <>
      <button type="button" className="danger" disabled={disabled} onClick={() => setOpen(true)} aria-label={ariaLabel}>
        {label}
      </button>
      <ConfirmDialog
        title={title}
        message={message}
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
            await onConfirm();
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
