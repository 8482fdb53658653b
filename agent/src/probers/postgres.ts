// PostgreSQL: SSLRequest, then a StartupMessage (over TLS when the server offers it). Any
// answer of the protocol (an authentication request, or an error such as "no such role")
// proves PostgreSQL is speaking. With credentials it logs in and runs SELECT 1 instead, or
// options.query, read-only, whose first value is the `result` source.
import pg from 'pg';
import type { CheckOptions } from '../../../shared/src/check-options.js';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { converse, type Verdict } from './conversation.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Prober, ProbeResult, ProbeTarget } from './prober.js';
import { exactNumber, firstValue, localDateTime } from './query-result.js';
import type { SocketSession } from './socket-session.js';

const SSL_REQUEST_CODE = 80877103;
const PROTOCOL_3 = 196608;
/** The role named in the startup of a check without credentials. */
const PROBE_USER = 'outpost';

export function postgresProber(): Prober<'POSTGRES'> {
  return {
    family: 'POSTGRES',
    prepare: (target) => (signal) => {
      const o = target.options;
      // A query needs a login.
      return o.username !== undefined || o.password !== undefined || o.query !== undefined ? login(target, o, signal) : converse(target, signal, (s) => handshake(s, o));
    },
  };
}

async function handshake(s: SocketSession, o: CheckOptions<'POSTGRES'>): Promise<Verdict> {
  const sslRequest = Buffer.alloc(8);
  sslRequest.writeInt32BE(8, 0);
  sslRequest.writeInt32BE(SSL_REQUEST_CODE, 4);
  s.write(sslRequest);
  const answer = (await s.readBytes(1)).toString('latin1');
  if (answer !== 'S' && answer !== 'N') return { ok: false, message: 'not a PostgreSQL server (unexpected answer to SSLRequest)' };
  if (answer === 'S') await s.startTls();
  s.write(startupMessage(PROBE_USER, o.database ?? 'postgres'));
  const type = (await s.readBytes(1)).toString('latin1');
  const length = (await s.readBytes(4)).readInt32BE(0);
  if ((type !== 'R' && type !== 'E') || length < 4 || length > 65_536) return { ok: false, message: 'not a PostgreSQL server (unexpected startup reply)' };
  const body = await s.readBytes(length - 4);
  const details = { startup_ms: s.elapsed(), tls: answer === 'S' };
  if (type === 'R') {
    // Leave politely (Terminate) rather than in the middle of the startup.
    s.write(Buffer.from([0x58, 0, 0, 0, 4]));
    return { ok: true, message: `PostgreSQL ${describeAuthRequest(body.readInt32BE(0))}`, details };
  }
  return { ok: true, message: `PostgreSQL answered: ${errorMessage(body)}`, details };
}

async function login(target: ProbeTarget, o: CheckOptions<'POSTGRES'>, signal: ProbeSignal): Promise<ProbeResult> {
  const address = parseHostPort(target.endpoint);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!address) return { ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} };
  const client = new pg.Client({
    host: address.host,
    port: address.port,
    user: o.username,
    password: o.password,
    database: o.database ?? 'postgres',
    connectionTimeoutMillis: target.timeoutMs,
    query_timeout: target.timeoutMs,
    // The server gives up on the query at the deadline too, rather than run on for nobody.
    ...(o.query !== undefined ? { statement_timeout: target.timeoutMs } : {}),
  });
  const onAbort = () => void client.end().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await client.connect();
    const connectMs = elapsed();
    if (o.query !== undefined) {
      let result: unknown;
      try {
        result = await readOnlyQuery(client, o.query);
      } catch (err) {
        if (signal.aborted) throw err;
        return { ok: false, responseTimeMs: elapsed(), message: `query failed: ${describeNetworkError(err)}`, details: { login_ms: connectMs } };
      }
      const queryMs = elapsed() - connectMs;
      return { ok: true, responseTimeMs: elapsed(), message: `PostgreSQL query answered in ${queryMs} ms`, details: { login_ms: connectMs, query_ms: queryMs }, observed: { result } };
    }
    await client.query('select 1');
    return { ok: true, responseTimeMs: elapsed(), message: `PostgreSQL login ok, SELECT 1 in ${elapsed() - connectMs} ms`, details: { login_ms: connectMs, query_ms: elapsed() - connectMs } };
  } catch (err) {
    const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : `PostgreSQL: ${describeNetworkError(err)}`;
    return { ok: false, responseTimeMs: elapsed(), message, details: {} };
  } finally {
    signal.removeEventListener('abort', onAbort);
    await client.end().catch(() => undefined);
  }
}

/**
 * `query` in a read-only transaction that is rolled back. The extended protocol takes one
 * statement only: a "commit; ..." cannot end the transaction and go on writing.
 */
async function readOnlyQuery(client: pg.Client, query: string): Promise<unknown> {
  await client.query('BEGIN READ ONLY');
  try {
    const config: pg.QueryArrayConfig & { queryMode: 'extended' } = { text: query, rowMode: 'array', queryMode: 'extended', types: RESULT_TYPES };
    return firstValue((await client.query(config)).rows);
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
  }
}

const PG_OIDS = { INT8: 20, DATE: 1082, TIMESTAMP: 1114, NUMERIC: 1700 } as const;
/** Integers and decimals as numbers when exact; a date, or a date and time without a zone, as the ISO text of what is stored (pg's parsers would read it in the agent's zone). */
const RESULT_PARSERS: Record<number, (text: string) => unknown> = {
  [PG_OIDS.INT8]: exactNumber,
  [PG_OIDS.NUMERIC]: exactNumber,
  [PG_OIDS.DATE]: (text) => text,
  [PG_OIDS.TIMESTAMP]: localDateTime,
};
const RESULT_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => RESULT_PARSERS[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

function startupMessage(user: string, database: string): Buffer {
  const params = Buffer.from(`user\0${user}\0database\0${database}\0application_name\0outpost-agent\0\0`, 'utf8');
  const message = Buffer.alloc(8 + params.length);
  message.writeInt32BE(message.length, 0);
  message.writeInt32BE(PROTOCOL_3, 4);
  params.copy(message, 8);
  return message;
}

/** The human text ('M' field) of an ErrorResponse body. */
function errorMessage(body: Buffer): string {
  for (const field of body.toString('utf8').split('\0')) if (field.startsWith('M')) return field.slice(1).slice(0, 160);
  return 'error';
}

function describeAuthRequest(method: number): string {
  const names: Record<number, string> = { 0: 'accepted the startup (trust)', 3: 'asks for a password', 5: 'asks for an MD5 password', 10: 'asks for SASL authentication' };
  return names[method] ?? `asks for authentication (method ${method})`;
}
