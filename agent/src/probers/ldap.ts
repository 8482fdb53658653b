// LDAP: connects (ldap:// or ldaps://), binds anonymously or as options.bind_dn, and with
// options.base_dn searches (filter default (objectClass=*), scope default sub). The number of
// entries found is the `entries` source; the first entry's attributes are the `attribute`
// source. The client (ldapts) unbinds and closes its socket on every path, abort included.
import net, { isIP, type Socket } from 'node:net';
import tls, { type ConnectionOptions } from 'node:tls';
import { Client, FilterParser, ResultCodeError, type Entry, type Filter, type SearchOptions } from 'ldapts';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import type { CheckOptions } from '../../../shared/src/check-options.js';
import { abortable } from './abortable.js';
import { clientTls } from './client-tls.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Observed, Prober, ProbeDetails, ProbeResult, ProbeTarget } from './prober.js';

/**
 * The most entries a search asks for: the count is capped there (a server's own, lower limit
 * caps it too). Reaching it still passes, as the server answered; the message says so.
 */
const LDAP_SIZE_LIMIT = 1000;
const DEFAULT_FILTER = '(objectClass=*)';
/** LDAP result codes the messages name. */
const INVALID_CREDENTIALS = 49;
const NO_SUCH_OBJECT = 32;
/** Codes with which a server refuses a search's filter (RFC 4511 appendix A). */
const FILTER_CODES = new Set([2, 7, 17, 18]);
/** The tag every LDAPMessage starts with. */
const BER_SEQUENCE = 0x30;

interface PreparedSearch {
  base: string;
  options: SearchOptions;
  /** Only an assertion reads the attributes: otherwise none are asked for ("1.1"). */
  readsAttributes: boolean;
}

type Phase = 'connect' | 'bind' | 'search';

/** What every check of a target starts from, worked out once per assignment. */
interface PreparedTarget {
  url: string;
  /** Only for ldaps: ldapts switches to TLS whenever tlsOptions holds a value. */
  tlsOptions?: ConnectionOptions;
  bindDn: string;
  search?: PreparedSearch;
}

export function ldapProber(): Prober<'LDAP'> {
  return {
    family: 'LDAP',
    prepare(target) {
      let prepared: PreparedTarget;
      try {
        prepared = prepareTarget(target);
      } catch (err) {
        const message = describeNetworkError(err);
        return () => Promise.resolve({ ok: false, responseTimeMs: 0, message, details: {} });
      }
      return (signal) => probe(target, prepared, signal);
    },
  };
}

function prepareTarget(target: ProbeTarget<'LDAP'>): PreparedTarget {
  const o = target.options;
  const url = new URL(target.endpoint);
  const prepared: PreparedTarget = { url: target.endpoint, bindDn: o.bind_dn ?? '' };
  if (url.protocol === 'ldaps:') {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const { rejectUnauthorized, secureContext } = clientTls(o);
    // RFC 6066 forbids an IP address as server name.
    prepared.tlsOptions = { rejectUnauthorized, secureContext, servername: isIP(host) ? undefined : host };
  }
  if (o.base_dn !== undefined) {
    const readsAttributes = assertsOn(o.assertions, 'attribute');
    prepared.search = { base: o.base_dn, options: searchOptions(target, readsAttributes), readsAttributes };
  }
  return prepared;
}

function searchOptions(target: ProbeTarget<'LDAP'>, readsAttributes: boolean): SearchOptions {
  const o = target.options;
  const text = o.filter ?? DEFAULT_FILTER;
  let filter: Filter;
  try {
    // Parsed once here rather than by ldapts on every search.
    filter = FilterParser.parseString(text);
  } catch (err) {
    throw new Error(`filter ${text} is not a valid LDAP filter: ${(err as Error).message.replace(/\.? Full string: .*$/s, '')}`);
  }
  return {
    scope: o.scope ?? 'sub',
    filter,
    sizeLimit: LDAP_SIZE_LIMIT,
    timeLimit: Math.max(1, Math.ceil(target.timeoutMs / 1000)),
    attributes: readsAttributes ? [] : ['1.1'],
  };
}

async function probe(target: ProbeTarget<'LDAP'>, prepared: PreparedTarget, signal: ProbeSignal): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const details: ProbeDetails = {};
  // ldapts connects inside bind(): the socket's own events time the connection and its handshake.
  let readyAt: number | undefined;
  // ldapts drops what it cannot parse and waits on: a first byte that cannot start an LDAPMessage (a SEQUENCE) ends the check at once.
  let notLdap!: (err: Error) => void;
  const garbled = new Promise<never>((_, reject) => (notLdap = reject));
  garbled.catch(() => undefined);
  const watched = (socket: Socket, secure: boolean) => {
    socket.once('connect', () => {
      details.connect_ms = elapsed();
      if (!secure) readyAt = details.connect_ms;
    });
    if (secure) socket.once('secureConnect', () => (details.tls_ms = (readyAt = elapsed()) - ((details.connect_ms as number | undefined) ?? 0)));
    socket.once('data', (chunk: Buffer) => chunk[0] !== BER_SEQUENCE && notLdap(new NotLdapError()));
    return socket;
  };
  const step = <T>(operation: Promise<T>) => abortable(Promise.race([operation, garbled]), signal);
  const client = new Client({
    url: prepared.url,
    tlsOptions: prepared.tlsOptions,
    createConnection: ((port: number, host: string) => watched(net.connect(port, host), false)) as typeof net.connect,
    createSecureConnection: ((port: number, host: string, options: ConnectionOptions) => watched(tls.connect(port, host, options), true)) as typeof tls.connect,
  });
  const close = () => void client.unbind().catch(() => undefined);
  signal.addEventListener('abort', close, { once: true });
  let searching = false;
  try {
    await step(client.bind(prepared.bindDn, target.options.password ?? ''));
    details.bind_ms = elapsed() - readyAt!;
    const who = prepared.bindDn === '' ? 'anonymous bind' : `bind as ${prepared.bindDn}`;
    if (!prepared.search) return { ok: true, responseTimeMs: elapsed(), message: `LDAP ${who} in ${elapsed()} ms`, details };
    searching = true;
    const searchStarted = elapsed();
    const { searchEntries } = await step(client.search(prepared.search.base, prepared.search.options));
    details.search_ms = elapsed() - searchStarted;
    const entries = searchEntries.length;
    details.entries = entries;
    const observed: Observed = { entries };
    if (prepared.search.readsAttributes) observed.attributes = searchEntries[0] ? attributesOf(searchEntries[0]) : {};
    const count = entries >= LDAP_SIZE_LIMIT ? `${entries} entries (the size limit)` : `${entries} ${entries === 1 ? 'entry' : 'entries'}`;
    return { ok: true, responseTimeMs: elapsed(), message: `LDAP ${who}, ${count} in ${elapsed()} ms`, details, observed };
  } catch (err) {
    const phase: Phase = searching ? 'search' : readyAt === undefined ? 'connect' : 'bind';
    const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeLdapError(err, phase, prepared, target.options);
    return { ok: false, responseTimeMs: elapsed(), message, details };
  } finally {
    signal.removeEventListener('abort', close);
    if (!signal.aborted) close();
  }
}

/** Lower-case names; text values as they are, binary ones (not UTF-8) as base64. */
function attributesOf(entry: Entry): Record<string, string[]> {
  const attributes: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(entry)) {
    if (name === 'dn') continue;
    const values = Array.isArray(value) ? value : [value];
    attributes[name.toLowerCase()] = values.map((v) => (typeof v === 'string' ? v : v.toString('base64')));
  }
  return attributes;
}

function describeLdapError(err: unknown, phase: Phase, prepared: PreparedTarget, o: CheckOptions<'LDAP'>): string {
  if (!(err instanceof ResultCodeError)) {
    const transport = describeTransportError(err);
    // Before the handshake ends, a TLS port that resets or closes is refusing the handshake.
    return phase === 'connect' && prepared.tlsOptions && !transport.startsWith('TLS') && transport !== 'connection refused' ? `TLS handshake failed: ${transport}` : transport;
  }
  // The server's diagnostic message, or the result's name (InappropriateMatchingError: "inappropriate matching") when it sent none.
  const reason = err.message.replace(/ ?Code: 0x[0-9a-f]+$/, '') || err.name.replace(/Error$/, '').replace(/(?!^)([A-Z])/g, ' $1').toLowerCase();
  if (phase === 'bind') {
    if (err.code === INVALID_CREDENTIALS) return `invalid credentials for ${prepared.bindDn || 'an anonymous bind'} (LDAP 49)`;
    return `LDAP bind refused: ${reason} (LDAP ${err.code})`;
  }
  if (err.code === NO_SUCH_OBJECT) return `base DN "${prepared.search!.base}" not found (noSuchObject)`;
  if (FILTER_CODES.has(err.code)) return `the server rejected the filter ${o.filter ?? DEFAULT_FILTER}: ${reason} (LDAP ${err.code})`;
  return `LDAP search failed: ${reason} (LDAP ${err.code})`;
}

class NotLdapError extends Error {
  constructor() {
    super('not an LDAP server (its answer is not an LDAP message)');
  }
}

/** ldapts reports a lost connection in its own words. */
function describeTransportError(err: unknown): string {
  if (err instanceof NotLdapError) return err.message;
  if ((err as Error).message?.startsWith('Connection closed before message response')) return 'the server closed the connection before answering';
  return describeNetworkError(err);
}
