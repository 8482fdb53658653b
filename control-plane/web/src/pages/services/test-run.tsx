// The form's "Test": runs the check as the form stands, once, on an agent of the chosen
// location, without saving it; then shows what came back, or why nothing did.
import { useState } from 'react';
import { ApiError } from '../../api/http';
import { formatDateTime, formatMs } from '../../ui/format';
import { StatusBadge } from '../../ui/status';
import { OutcomeDetails } from './check-outcome';
import type { useTestService } from './service-api';

type TestMutation = ReturnType<typeof useTestService>;

/** A 400 names fields: the form shows those at the fields, as for Save. */
export const isFieldError = (error: unknown) => error instanceof ApiError && error.status === 400;

interface TestControlsProps {
  locations: string[];
  busy: boolean;
  onTest(location: string | undefined): void;
}

export function TestControls({ locations, busy, onTest }: TestControlsProps) {
  const [chosen, setChosen] = useState('');
  const location = locations.includes(chosen) ? chosen : locations[0];
  return (
    <div className="test-controls">
      {locations.length > 1 && (
        <label>
          Test from{' '}
          <select value={location} onChange={(e) => setChosen(e.target.value)}>
            {locations.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
      )}
      <button type="button" disabled={busy} onClick={() => onTest(location)}>
        {busy ? 'Testing…' : 'Test'}
      </button>
    </div>
  );
}

export function TestOutcome({ test, timeoutSeconds }: { test: TestMutation; timeoutSeconds: string }) {
  if (test.isIdle) return null;
  return (
    <section className="test-outcome" aria-labelledby="test-outcome-title">
      <h2 id="test-outcome-title">Test result</h2>
      {test.isPending && (
        <p className="muted" role="status">
          Running the check on an agent: the answer comes within the timeout ({timeoutSeconds || '?'} s) and 5 s more.
        </p>
      )}
      {test.isError && <TestFailure error={test.error} timeoutSeconds={timeoutSeconds} />}
      {test.isSuccess && (
        <div role="status">
          <dl className="service-facts">
            <div>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={test.data.status} />
              </dd>
            </div>
            <div>
              <dt>Response time</dt>
              <dd>{formatMs(test.data.response_time_ms)}</dd>
            </div>
            <div>
              <dt>Location</dt>
              <dd>{test.data.location}</dd>
            </div>
            <div>
              <dt>Checked at</dt>
              <dd>{formatDateTime(test.data.checked_at)}</dd>
            </div>
          </dl>
          {test.data.message && <p className="check-message">{test.data.message}</p>}
          <OutcomeDetails details={test.data.details ?? {}} />
        </div>
      )}
    </section>
  );
}

function TestFailure({ error, timeoutSeconds }: { error: Error; timeoutSeconds: string }) {
  const status = error instanceof ApiError ? error.status : 0;
  const why =
    status === 400
      ? 'Not tested: correct the fields marked in the form.'
      : status === 409
        ? 'Not tested: no agent serves this location. Start one there, or test from another location.'
        : status === 504
          ? `No agent answered within the timeout (${timeoutSeconds || '?'} s) and 5 s more: the agent may be overloaded or cut off.`
          : 'The test could not be run.';
  return (
    <div className="form-error" role="alert">
      <p>{why}</p>
      {status !== 400 && <p>{error.message}</p>}
    </div>
  );
}
