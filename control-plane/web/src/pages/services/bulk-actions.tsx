// The overview's bulk actions on the selected services (POST /services/bulk): delete asks for
// confirmation, tags and locations are typed into a dialog, and what was done is then said
// per outcome, with the reason for each service skipped.
import { useState, type FormEvent } from 'react';
import type { BulkAction, BulkOutcome } from '../../../../../shared/src/bulk-actions.js';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { FormActions } from '../../ui/form-actions';
import { useBulkServices } from './service-api';
import { list } from './text-values';
import type { BulkAnswer } from './types';

const OUTCOME_TEXT: Record<BulkOutcome, string> = {
  paused: 'paused',
  resumed: 'resumed',
  updated: 'updated',
  deleted: 'deleted',
  queued: 'checks queued',
  unchanged: 'unchanged',
  skipped: 'skipped',
  not_found: 'not found',
};

const ACTION_TEXT: Record<BulkAction, string> = {
  pause: 'Pause',
  resume: 'Resume',
  check: 'Check now',
  add_tags: 'Add tags',
  remove_tags: 'Remove tags',
  set_locations: 'Set locations',
  delete: 'Delete',
};

type TypedAction = 'add_tags' | 'remove_tags' | 'set_locations';
const TYPED: Record<TypedAction, { field: 'tags' | 'locations'; label: string }> = {
  add_tags: { field: 'tags', label: 'Tags' },
  remove_tags: { field: 'tags', label: 'Tags' },
  set_locations: { field: 'locations', label: 'Locations' },
};

const plural = (n: number) => `${n} service${n === 1 ? '' : 's'}`;

interface BulkActionsProps {
  /** The selected services shown now. */
  ids: string[];
  nameOf(id: string): string | undefined;
  clear(): void;
}

export function BulkActions({ ids, nameOf, clear }: BulkActionsProps) {
  const bulk = useBulkServices();
  const [asking, setAsking] = useState<TypedAction | 'delete' | null>(null);
  const [answer, setAnswer] = useState<BulkAnswer>();
  const [error, setError] = useState<string>();

  const run = async (action: BulkAction, extra: { tags?: string[]; locations?: string[] } = {}) => {
    setError(undefined);
    try {
      setAnswer(await bulk.mutateAsync({ ids, action, ...extra }));
      setAsking(null);
      if (action === 'delete') clear();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const button = (action: BulkAction, ask?: TypedAction | 'delete') => (
    <button type="button" className={action === 'delete' ? 'danger' : undefined} disabled={bulk.isPending} onClick={() => (ask ? (setError(undefined), setAsking(ask)) : void run(action))}>
      {ACTION_TEXT[action]}
      {ask && '…'}
    </button>
  );

  return (
    <>
      {ids.length > 0 && (
        <div className="bulk-bar" role="toolbar" aria-label="Bulk actions">
          <span className="bulk-count">{plural(ids.length)} selected</span>
          {button('pause')}
          {button('resume')}
          {button('check')}
          {button('add_tags', 'add_tags')}
          {button('remove_tags', 'remove_tags')}
          {button('set_locations', 'set_locations')}
          {button('delete', 'delete')}
          <button type="button" onClick={clear}>
            Clear selection
          </button>
        </div>
      )}
      {error && !asking && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {answer && <BulkResult answer={answer} nameOf={nameOf} dismiss={() => setAnswer(undefined)} />}
      <ConfirmDialog
        title={`Delete ${plural(ids.length)}?`}
        message="Their checks stop and their history is deleted. This cannot be undone."
        confirmLabel={`Delete ${plural(ids.length)}`}
        open={asking === 'delete'}
        busy={bulk.isPending}
        error={error}
        onConfirm={() => void run('delete')}
        onClose={() => setAsking(null)}
      />
      {asking && asking !== 'delete' && (
        <TypedActionDialog action={asking} count={ids.length} busy={bulk.isPending} error={error} onSubmit={(values) => void run(asking, { [TYPED[asking].field]: values })} onClose={() => setAsking(null)} />
      )}
    </>
  );
}

interface TypedActionDialogProps {
  action: TypedAction;
  count: number;
  busy: boolean;
  error?: string;
  onSubmit(values: string[]): void;
  onClose(): void;
}

/** Tags or locations for the selected services, separated by commas. */
function TypedActionDialog({ action, count, busy, error, onSubmit, onClose }: TypedActionDialogProps) {
  const [text, setText] = useState('');
  const [missing, setMissing] = useState<string>();
  const { label } = TYPED[action];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const values = list(text);
    if (values.length === 0) return setMissing(`Name at least one of the ${label.toLowerCase()}.`);
    onSubmit(values);
  };
  return (
    <Dialog title={`${ACTION_TEXT[action]}: ${plural(count)}`} open onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <TextField
          label={label}
          value={text}
          onChange={(e) => setText(e.target.value)}
          error={missing ?? error}
          hint={action === 'set_locations' ? 'Separated by commas; replaces every location of each service.' : 'Separated by commas.'}
          autoFocus
        />
        <FormActions onCancel={onClose} busy={busy} submitLabel={ACTION_TEXT[action]} />
      </form>
    </Dialog>
  );
}

/** What the last action did, counted by outcome, and why any service was skipped. */
function BulkResult({ answer, nameOf, dismiss }: { answer: BulkAnswer; nameOf(id: string): string | undefined; dismiss(): void }) {
  const counted = (Object.entries(answer.counts) as [BulkOutcome, number][]).filter(([, n]) => n > 0);
  const skipped = answer.results.filter((r) => r.outcome === 'skipped');
  return (
    <div className="notice bulk-result" role="status">
      <strong>{ACTION_TEXT[answer.action]}:</strong> {counted.map(([outcome, n]) => `${n} ${OUTCOME_TEXT[outcome]}`).join(', ')}.{' '}
      <button type="button" onClick={dismiss}>
        Dismiss
      </button>
      {skipped.length > 0 && (
        <ul aria-label="Skipped services">
          {skipped.map((r) => (
            <li key={r.id}>
              {nameOf(r.id) ?? r.id}: {r.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
