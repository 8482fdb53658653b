// DOMAIN: when a registered domain name expires, by RDAP (RFC 9082/9083): GET
// {base}domain/{name} on its registry's RDAP service (found through the IANA bootstrap file,
// RFC 7484, or options.rdap_url), following redirects to the registrar's as registries do,
// and the date of its "expiration" event. RED once expired or when not registered; passed but
// degraded (YELLOW) with fewer than warn_days left. Spoken through the agent's own HTTP client
// (http-client.ts): one exchange per request, and the same TLS handling as HTTP checks.
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { daysRemaining } from '../../../shared/src/days-remaining.js';
import { abortable } from './abortable.js';
import { createHttpClient, type ClientRequest, type HttpClient } from './http-client.js';
import type { HttpExchange } from './http-request.js';
import { describeNetworkError } from './network-errors.js';
import { DeadlineSignal, type ProbeSignal } from './probe-signal.js';
import type { Prober, ProbeDetails, ProbeResult } from './prober.js';

export interface DomainProberSettings {
  /** The RDAP bootstrap file for DNS (RFC 7484): the agent's --rdap-bootstrap. */
  bootstrapUrl: string;
}

const DEFAULT_WARN_DAYS = 30;
/** An RDAP answer is a few kB; the bootstrap file about 50 kB. */
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;
/** The bootstrap file changes a few times a year; one copy serves every check for a day. */
const BOOTSTRAP_TTL_MS = 24 * 3600 * 1000;
const BOOTSTRAP_TIMEOUT_MS = 30_000;
const ACCEPT = { accept: 'application/rdap+json, application/json' };

/** Each zone the bootstrap file lists (lower case, no final dot), with its RDAP base URL. */
type Registries = Map<string, string>;

class RdapError extends Error {}

export function domainProber(settings: DomainProberSettings): Prober<'DOMAIN'> {
  const client = createHttpClient({}, { maxBodyBytes: MAX_BODY_BYTES });
  const bootstrap = bootstrapCache(client, settings.bootstrapUrl);
  return {
    family: 'DOMAIN',
    prepare: (target) => {
      const name = target.endpoint.toLowerCase().replace(/\.$/, '');
      const tld = name.slice(name.lastIndexOf('.') + 1);
      const o = target.options;
      const warnDays = o.warn_days ?? DEFAULT_WARN_DAYS;
      const judged = assertsOn(o.assertions, 'days_remaining');
      const timedOut = `timed out after ${target.timeoutMs} ms`;
      // The first request of the target's checks, kept while its base URL stays the same (the
      // HTTP client sends a request object it has seen as it encoded it the first time).
      let request: ClientRequest | undefined;

      return async (signal): Promise<ProbeResult> => {
        const started = performance.now();
        const elapsed = () => Math.round(performance.now() - started);
        try {
          const base = o.rdap_url ?? registryOf(name, await abortable(bootstrap(), signal));
          if (base === undefined) return { ok: false, responseTimeMs: elapsed(), message: `no RDAP service for .${tld} in the IANA bootstrap file; set options.rdap_url`, details: {} };
          const url = new URL(`domain/${name}`, base.endsWith('/') ? base : `${base}/`);
          if (request?.url.href !== url.href) request = { url, method: 'GET', headers: ACCEPT };
          const asked = performance.now();
          const { exchange, finalUrl } = await followRedirects(client, request, signal);
          const details: ProbeDetails = { rdap_url: finalUrl.href, rdap_ms: Math.round(performance.now() - asked) };
          if (exchange.status === 404) return { ok: false, responseTimeMs: elapsed(), message: `${name} is not registered (RDAP 404)`, details };
          if (exchange.status !== 200) return { ok: false, responseTimeMs: elapsed(), message: `the RDAP server answered HTTP ${exchange.status}`, details };
          const domain = rdapDomain(exchange);
          return judge(name, domain, warnDays, judged, details, elapsed());
        } catch (err) {
          if (signal.aborted) return { ok: false, responseTimeMs: elapsed(), message: timedOut, details: {} };
          const message = err instanceof RdapError ? err.message : `RDAP: ${describeNetworkError(err)}`;
          return { ok: false, responseTimeMs: elapsed(), message, details: {} };
        }
      };
    },
  };
}

/**
 * The bootstrap file's registries, fetched once for all the checks of a day. The fetch has its
 * own deadline: a check that times out while waiting for it leaves it to the next check.
 */
function bootstrapCache(client: HttpClient, url: string): () => Promise<Registries> {
  let registries: { zones: Registries; until: number } | undefined;
  let fetching: Promise<Registries> | undefined;
  const request: ClientRequest = { url: new URL(url), method: 'GET', headers: { accept: 'application/json' } };
  const fetchFile = async (): Promise<Registries> => {
    const deadline = new DeadlineSignal();
    const timer = setTimeout(() => deadline.abort(), BOOTSTRAP_TIMEOUT_MS).unref();
    try {
      const { exchange } = await followRedirects(client, request, deadline);
      if (exchange.status !== 200) throw new RdapError(`the RDAP bootstrap file ${url} could not be fetched: HTTP ${exchange.status}`);
      const zones = parseBootstrap(exchange.body);
      if (!zones) throw new RdapError(`${url} is not an RDAP bootstrap file (RFC 7484)`);
      registries = { zones, until: Date.now() + BOOTSTRAP_TTL_MS };
      return zones;
    } catch (err) {
      if (err instanceof RdapError) throw err;
      const reason = deadline.aborted ? `timed out after ${BOOTSTRAP_TIMEOUT_MS} ms` : describeNetworkError(err);
      throw new RdapError(`the RDAP bootstrap file ${url} could not be fetched: ${reason}`);
    } finally {
      clearTimeout(timer);
      fetching = undefined;
    }
  };
  return () => {
    if (registries && Date.now() < registries.until) return Promise.resolve(registries.zones);
    return (fetching ??= fetchFile());
  };
}

/** `services` of RFC 7484: [[zones...], [base URLs...]], an https URL preferred. */
function parseBootstrap(body: string): Registries | undefined {
  let file: unknown;
  try {
    file = JSON.parse(body);
  } catch {
    return undefined;
  }
  const services = (file as { services?: unknown } | null)?.services;
  if (!Array.isArray(services)) return undefined;
  const zones: Registries = new Map();
  for (const service of services) {
    if (!Array.isArray(service) || !Array.isArray(service[0]) || !Array.isArray(service[1])) continue;
    const urls = service[1].filter((u): u is string => typeof u === 'string');
    const base = urls.find((u) => u.startsWith('https://')) ?? urls.find((u) => u.startsWith('http://'));
    if (base === undefined) continue;
    for (const zone of service[0]) if (typeof zone === 'string') zones.set(zone.toLowerCase().replace(/\.$/, ''), base);
  }
  return zones;
}

/** The RDAP base URL of the longest suffix of `name`, in whole labels, that the bootstrap file lists. */
function registryOf(name: string, zones: Registries): string | undefined {
  for (let suffix = name; ; ) {
    const base = zones.get(suffix);
    if (base !== undefined) return base;
    const dot = suffix.indexOf('.');
    if (dot < 0) return undefined;
    suffix = suffix.slice(dot + 1);
  }
}

async function followRedirects(client: HttpClient, first: ClientRequest, signal: ProbeSignal): Promise<{ exchange: HttpExchange; finalUrl: URL }> {
  let request = first;
  for (let redirects = 0; ; redirects++) {
    const exchange = await client.exchange(request, signal);
    const location = exchange.headers.location;
    if (exchange.status < 300 || exchange.status > 399 || location === undefined) return { exchange, finalUrl: request.url };
    if (redirects === MAX_REDIRECTS) throw new RdapError(`more than ${MAX_REDIRECTS} RDAP redirects (last to ${location})`);
    request = { url: new URL(location, request.url), method: 'GET', headers: request.headers };
  }
}

interface RdapDomain {
  expiresAt?: string;
  registrar?: string;
  status: string[];
}

/** The facts of an RDAP domain object (RFC 9083 section 5.3); throws when the answer is not one. */
function rdapDomain(exchange: HttpExchange): RdapDomain {
  let answer: unknown;
  try {
    answer = JSON.parse(exchange.body);
  } catch {
    answer = undefined;
  }
  const domain = answer as { objectClassName?: unknown; events?: unknown; entities?: unknown; status?: unknown } | undefined;
  if (typeof domain !== 'object' || domain === null || domain.objectClassName !== 'domain') {
    throw new RdapError(`the RDAP answer is not an RDAP domain object (${exchange.headers['content-type'] ?? 'no content-type'})`);
  }
  const events = Array.isArray(domain.events) ? (domain.events as { eventAction?: unknown; eventDate?: unknown }[]) : [];
  const expiration = events.find((e) => e?.eventAction === 'expiration')?.eventDate;
  const status = Array.isArray(domain.status) ? domain.status.filter((s): s is string => typeof s === 'string') : [];
  return { expiresAt: typeof expiration === 'string' ? expiration : undefined, registrar: registrarName(domain.entities), status };
}

/** The `fn` of the vCard (jCard, RFC 7095) of the entity with the role registrar. */
function registrarName(entities: unknown): string | undefined {
  if (!Array.isArray(entities)) return undefined;
  const registrar = entities.find((e: { roles?: unknown }) => Array.isArray(e?.roles) && e.roles.includes('registrar')) as { vcardArray?: unknown } | undefined;
  const properties = Array.isArray(registrar?.vcardArray) ? registrar.vcardArray[1] : undefined;
  if (!Array.isArray(properties)) return undefined;
  const fn = properties.find((p: unknown) => Array.isArray(p) && p[0] === 'fn') as unknown[] | undefined;
  return typeof fn?.[3] === 'string' ? fn[3] : undefined;
}

function judge(name: string, domain: RdapDomain, warnDays: number, judged: boolean, details: ProbeDetails, responseTimeMs: number): ProbeResult {
  if (domain.registrar !== undefined) details.registrar = domain.registrar;
  if (domain.status.length > 0) details.status = domain.status;
  if (domain.expiresAt === undefined) return { ok: true, responseTimeMs, message: `${name}: the registry publishes no expiration date`, details, observed: {} };
  const expires = new Date(domain.expiresAt);
  if (Number.isNaN(expires.getTime())) throw new RdapError(`the RDAP expiration date "${domain.expiresAt.slice(0, 64)}" is not a date`);
  const days = daysRemaining(expires, new Date());
  const on = expires.toISOString().slice(0, 10);
  Object.assign(details, { expires_at: expires.toISOString(), days_remaining: days, warn_days: warnDays });
  const observed = { days_remaining: days };
  const plural = (n: number) => (n === 1 ? '' : 's');
  // With an assertion on days_remaining, it judges the date instead of warn_days.
  if (days < 0) return { ok: judged, responseTimeMs, message: `${name} expired ${-days} day${plural(-days)} ago, on ${on}`, details, observed };
  const message = `${name} expires in ${days} day${plural(days)}, on ${on}`;
  if (days < warnDays && !judged) return { ok: true, degraded: true, responseTimeMs, message: `${message}, under the ${warnDays}-day warning`, details, observed };
  return { ok: true, responseTimeMs, message, details, observed };
}
