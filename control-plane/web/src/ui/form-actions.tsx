// The foot of every form in a dialog or page: Cancel beside the submit button.
export function FormActions({ onCancel, busy, submitLabel }: { onCancel(): void; busy: boolean; submitLabel: string }) {
  return (
    <div className="actions">
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="primary" disabled={busy}>
        {submitLabel}
      </button>
    </div>
  );
}
