// What a result's details say beyond its status: each assertion with the value it judged, a
// MULTISTEP run's steps, and the response a failed check saved. Details come from agents of
// any version, so every field is read as possibly missing and unknown ones are left out.
import type { AssertionOutcome } from '../../../../../shared/src/assertions.js';
import { formatMs } from '../../ui/format';
import { comparisonLabel, sourceLabel } from './assertion-catalogue';
import { isRecord, records } from './text-values';

type Details = Record<string, unknown>;

interface StepOutcome {
  name: string;
  ok: boolean;
  method?: string;
  statusCode?: number;
  message?: string;
  responseTimeMs?: number;
  /** Phase timings (dns_ms, connect_ms, ...), in the order recorded. */
  timings: [string, number][];
  assertions: AssertionOutcome[];
  /** The names of the values it extracted (not the values: they may be tokens). */
  extracted: string[];
}

interface SavedResponse {
  status?: number;
  headers: [string, string][];
  body?: string;
}

const optionalNumber = (value: unknown) => (typeof value === 'number' ? value : undefined);
const optionalText = (value: unknown) => (typeof value === 'string' ? value : undefined);

function assertionsOf(value: unknown): AssertionOutcome[] {
  return records(value)
    .filter((a) => typeof a.source === 'string' && typeof a.comparison === 'string')
    .map((a) => ({
      source: a.source as string,
      property: optionalText(a.property),
      comparison: a.comparison as AssertionOutcome['comparison'],
      target: typeof a.target === 'string' || typeof a.target === 'number' || typeof a.target === 'boolean' ? a.target : undefined,
      actual: a.actual === null || a.actual === undefined ? null : String(a.actual),
      passed: a.passed === true,
    }));
}

function stepsOf(value: unknown): StepOutcome[] {
  return records(value).map((s, i) => ({
    name: optionalText(s.name) ?? `Step ${i + 1}`,
    ok: s.ok === true,
    method: optionalText(s.method),
    statusCode: optionalNumber(s.status_code),
    message: optionalText(s.message),
    responseTimeMs: optionalNumber(s.response_time_ms),
    timings: Object.entries(s).filter((e): e is [string, number] => e[0].endsWith('_ms') && e[0] !== 'response_time_ms' && typeof e[1] === 'number'),
    assertions: assertionsOf(s.assertions),
    extracted: Array.isArray(s.extracted) ? s.extracted.map(String) : isRecord(s.extracted) ? Object.keys(s.extracted) : [],
  }));
}

function savedResponseOf(value: unknown): SavedResponse | undefined {
  if (!isRecord(value)) return undefined;
  const headers = isRecord(value.headers) ? Object.entries(value.headers).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(', ') : String(v)]) : [];
  return { status: optionalNumber(value.status), headers, body: optionalText(value.body) };
}

/** Whether the details hold anything this component shows. */
export function hasOutcomeDetails(details: Details): boolean {
  return assertionsOf(details.assertions).length > 0 || stepsOf(details.steps).length > 0 || savedResponseOf(details.response) !== undefined;
}

export function OutcomeDetails({ details }: { details: Details }) {
  const assertions = assertionsOf(details.assertions);
  const steps = stepsOf(details.steps);
  const response = savedResponseOf(details.response);
  return (
    <div className="outcome-details">
      {assertions.length > 0 && (
        <>
          <h3>Assertions</h3>
          <AssertionTable assertions={assertions} label="Assertions" />
        </>
      )}
      {steps.length > 0 && (
        <>
          <h3>Steps</h3>
          <ol className="step-outcomes">
            {steps.map((step, i) => (
              <StepItem key={i} step={step} n={i + 1} />
            ))}
          </ol>
        </>
      )}
      {response && <SavedResponseView response={response} />}
    </div>
  );
}

/** Pass or fail in words, with colour as a second cue. */
function PassBadge({ passed, yes = 'Passed', no = 'Failed' }: { passed: boolean; yes?: string; no?: string }) {
  return <span className={`status ${passed ? 'status-green' : 'status-red'}`}>{passed ? yes : no}</span>;
}

const ASSERTION_COLUMNS = ['Source', 'Property', 'Comparison', 'Target', 'Actual', 'Result'];

/** On a phone each row stacks into "column: value" lines (data-label), keeping Result in view. */
function AssertionTable({ assertions, label }: { assertions: AssertionOutcome[]; label: string }) {
  return (
    <div className="table-scroll">
      <table aria-label={label} className="outcome-table">
        <thead>
          <tr>
            {ASSERTION_COLUMNS.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {assertions.map((a, i) => (
            <tr key={i}>
              <td data-label="Source">{sourceLabel(a.source)}</td>
              <td data-label="Property" className="mono">{a.property ?? ''}</td>
              <td data-label="Comparison">{comparisonLabel(a.comparison)}</td>
              <td data-label="Target" className="mono">{a.target === undefined ? '' : String(a.target)}</td>
              <td data-label="Actual" className="mono actual">{a.actual ?? <span className="muted">none</span>}</td>
              <td data-label="Result">
                <PassBadge passed={a.passed} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function StepItem({ step, n }: { step: StepOutcome; n: number }) {
  const facts = [
    step.method,
    step.statusCode !== undefined && `status ${step.statusCode}`,
    step.responseTimeMs !== undefined && formatMs(step.responseTimeMs),
    step.timings.length > 0 && step.timings.map(([k, v]) => `${k.replace(/_ms$/, '')} ${formatMs(v)}`).join(', '),
    step.extracted.length > 0 && `extracted ${step.extracted.join(', ')}`,
  ].filter(Boolean);
  return (
    <li className="step-outcome" aria-label={`Step ${n}: ${step.name}`}>
      <p>
        <strong>{step.name}</strong> <PassBadge passed={step.ok} yes="OK" /> <span className="muted">{facts.join(' · ')}</span>
      </p>
      {step.message && <p className="check-message">{step.message}</p>}
      {step.assertions.length > 0 && <AssertionTable assertions={step.assertions} label={`Assertions of step ${n}`} />}
    </li>
  );
}

function SavedResponseView({ response }: { response: SavedResponse }) {
  const head = [response.status !== undefined ? `Status ${response.status}` : '', ...response.headers.map(([k, v]) => `${k}: ${v}`)].filter(Boolean).join('\n');
  return (
    <section aria-label="Saved response">
      <h3>Saved response</h3>
      <pre className="saved-response">
        {head}
        {response.body !== undefined && `\n\n${response.body}`}
      </pre>
    </section>
  );
}
