// HTTP and HTTPS: a request over a new connection; passes on an expected status (default
// 200-399, unless a status assertion judges it), the keyword when one is set (in the decoded
// body), and a valid certificate unless told otherwise. The exchanges are http-client.ts's.
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { createHttpClient, type ClientRequest, type HttpClient } from './http-client.js';
import type { HttpExchange } from './http-request.js';
import { describeNetworkError } from './network-errors.js';
import { createTokenCache, type TokenCache } from './oauth2-token-cache.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Observed, Prober, ProbeResult, ProbeTarget } from './prober.js';

const MAX_REDIRECTS = 10;
const MAX_BODY_BYTES = 1024 * 1024;

/** What every check of a target starts from, made once per assignment. */
interface PreparedTarget {
  /** The same object on every check: the client encodes it once (about a tenth of a check's CPU on loopback, P1). */
  first: ClientRequest;
  client: HttpClient;
  /** For a redirect to another origin: bearer_token and oauth2 tokens are not sent there. */
  anonymous: () => HttpClient;
  /** Whether the default 200-399 rule applies: not when a status assertion, and no expected_status, judges the status. */
  statusRule: boolean;
}

/** `tokens` keeps oauth2 tokens for all the targets this prober checks. */
export function httpProber(tokens: TokenCache = createTokenCache()): Prober<'HTTP'> {
  return {
    family: 'HTTP',
    prepare(target) {
      const o = target.options;
      let url: URL;
      try {
        url = new URL(target.endpoint);
      } catch (err) {
        const message = describeNetworkError(err);
        return () => Promise.resolve(failed(0, message, {}));
      }
      const settings = { maxBodyBytes: MAX_BODY_BYTES, tokens };
      let anonymous: HttpClient | undefined;
      const prepared: PreparedTarget = {
        first: { url, method: o.method ?? 'GET', headers: o.headers ?? {}, body: o.body },
        client: createHttpClient(o, settings),
        anonymous: () => (anonymous ??= createHttpClient({ ...o, bearer_token: undefined, oauth2: undefined }, settings)),
        statusRule: o.expected_status !== undefined || !assertsOn(o.assertions, 'status'),
      };
      return (signal) => probe(target, prepared, signal);
    },
  };
}

async function probe(target: ProbeTarget<'HTTP'>, prepared: PreparedTarget, signal: ProbeSignal): Promise<ProbeResult> {
  const o = target.options;
  const { first } = prepared;
  const started = performance.now();
  let request = first;
  let exchange: HttpExchange;
  let redirects = 0;
  try {
    for (;;) {
      const client = request === first || request.url.origin === first.url.origin ? prepared.client : prepared.anonymous();
      exchange = await client.exchange(request, signal);
      const location = exchange.headers.location;
      if (location && (o.follow_redirects ?? true) && isRedirect(exchange.status)) {
        if (++redirects > MAX_REDIRECTS) return failed(elapsedSince(started), `more than ${MAX_REDIRECTS} redirects`, { status_code: exchange.status }, observedIn(exchange));
        request = { ...redirectedRequest(exchange.status, request), url: new URL(location, request.url), headers: first.headers };
        continue;
      }
      break;
    }
  } catch (err) {
    const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeNetworkError(err);
    return failed(elapsedSince(started), message, {});
  }
  const responseTimeMs = elapsedSince(started);
  const details: ProbeResult['details'] = { status_code: exchange.status, http_version: exchange.httpVersion, ...exchange.timings };
  if (exchange.bodyTruncated) details.body_truncated_at_bytes = MAX_BODY_BYTES;
  if (redirects > 0) {
    details.redirects = redirects;
    details.final_url = request.url.toString();
  }
  if (exchange.certificate) {
    details.tls_subject = exchange.certificate.subject;
    details.tls_issuer = exchange.certificate.issuer;
    details.tls_valid_to = exchange.certificate.valid_to;
    details.tls_days_remaining = exchange.certificate.days_remaining;
  }
  const observed = observedIn(exchange);
  const summary = `HTTP ${exchange.status} in ${responseTimeMs} ms`;
  if (prepared.statusRule && !statusExpected(exchange.status, o.expected_status)) {
    return { ok: false, responseTimeMs, message: `${summary}: unexpected status`, details, observed };
  }
  if (o.keyword !== undefined) {
    const found = exchange.body.includes(o.keyword);
    if (found === (o.keyword_inverted ?? false)) {
      const why = found ? `keyword "${o.keyword}" found` : `keyword "${o.keyword}" not found`;
      return { ok: false, responseTimeMs, message: `${summary}: ${why}`, details, observed };
    }
  }
  return { ok: true, responseTimeMs, message: summary, details, observed };
}

const elapsedSince = (started: number) => Math.round(performance.now() - started);

/** What the assertions (and save_failed_response) read: the response as it arrived, its body decoded. */
export function observedIn(exchange: HttpExchange): Observed {
  const observed: Observed = { status: exchange.status, headers: exchange.headers, body: exchange.body };
  if (exchange.certificate) observed.tls_days_remaining = exchange.certificate.days_remaining;
  return observed;
}

function isRedirect(status: number): boolean {
  return [301, 302, 303, 307, 308].includes(status);
}

/** As browsers do: 307 and 308 repeat the request; the others turn it into a GET (HEAD stays HEAD). */
function redirectedRequest(status: number, request: ClientRequest): Pick<ClientRequest, 'method' | 'body'> {
  if (status === 307 || status === 308) return { method: request.method, body: request.body };
  return { method: request.method === 'HEAD' ? 'HEAD' : 'GET', body: undefined };
}

/** Numbers match exactly, "2xx"-style strings match a class; the default is 200-399. */
export function statusExpected(status: number, expected: (number | string)[] | undefined): boolean {
  if (!expected || expected.length === 0) return status >= 200 && status < 400;
  return expected.some((e) => (typeof e === 'number' ? e === status : e.toLowerCase() === `${Math.floor(status / 100)}xx`));
}

function failed(responseTimeMs: number, message: string, details: ProbeResult['details'], observed?: Observed): ProbeResult {
  return observed ? { ok: false, responseTimeMs, message, details, observed } : { ok: false, responseTimeMs, message, details };
}
