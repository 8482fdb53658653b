// MySQL and MariaDB: the server greeting (protocol 10, with its version) proves the
// protocol; mysql2 then completes the handshake on the same socket. Without credentials the
// probe's login is expected to be refused, which still passes: finishing the handshake
// rather than hanging up after the greeting keeps the probe from counting towards the
// server's max_connect_errors host blocking. With credentials it logs in and runs SELECT 1,
// or options.query, read-only, whose first value is the `result` source.
import net from 'node:net';
import mysql from 'mysql2/promise';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { abortable } from './abortable.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeDetails, ProbeResult } from './prober.js';
import { exactNumber, firstValue, localDateTime } from './query-result.js';

const PROTOCOL_10 = 10;
const ERROR_PACKET = 0xff;

export function mysqlProber(): Prober<'MYSQL'> {
  return {
    family: 'MYSQL',
    prepare: (target) => async (signal): Promise<ProbeResult> => {
      const o = target.options;
      // A query needs a login: without credentials its refusal fails the check.
      const withCredentials = o.username !== undefined || o.password !== undefined || o.query !== undefined;
      const address = parseHostPort(target.endpoint);
      if (!address) return { ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} };
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const details: ProbeDetails = {};
      let greeted = false;
      let notMysql = false;
      const socket = net.connect({ host: address.host, port: address.port });
      socket.once('connect', () => (details.connect_ms = elapsed()));
      socket.once('data', (chunk: Buffer) => {
        const greeting = parseGreeting(chunk);
        if (greeting === null) {
          notMysql = true;
          socket.destroy();
          return;
        }
        details.banner_ms = elapsed();
        if (greeting.protocol === PROTOCOL_10) greeted = true;
        if (greeting.version) details.server_version = greeting.version;
      });
      let connection: mysql.Connection | undefined;
      try {
        const connecting = mysql.createConnection({
          stream: socket,
          user: o.username ?? 'outpost_probe',
          password: o.password,
          database: o.database,
          connectTimeout: target.timeoutMs,
        });
        // A connection that completes after the timeout is closed at once, not leaked.
        connecting.then((late) => signal.aborted && late.destroy(), () => undefined);
        connection = await abortable(connecting, signal);
        details.handshake_ms = elapsed();
        const version = details.server_version ? ` ${details.server_version}` : '';
        if (!withCredentials) return { ok: true, responseTimeMs: elapsed(), message: `MySQL${version} greeting received in ${details.banner_ms} ms`, details };
        if (o.query !== undefined) {
          let result: unknown;
          try {
            result = await abortable(readOnlyQuery(connection, o.query), signal);
          } catch (err) {
            if (signal.aborted) throw err;
            return { ok: false, responseTimeMs: elapsed(), message: `query failed: ${errorText(err)}`, details };
          }
          details.query_ms = elapsed() - details.handshake_ms;
          return { ok: true, responseTimeMs: elapsed(), message: `MySQL${version} query answered in ${details.query_ms} ms`, details, observed: { result } };
        }
        await abortable(connection.query('SELECT 1'), signal);
        details.query_ms = elapsed() - details.handshake_ms;
        return { ok: true, responseTimeMs: elapsed(), message: `MySQL${version} login ok, SELECT 1 in ${details.query_ms} ms`, details };
      } catch (err) {
        const version = details.server_version ? ` ${details.server_version}` : '';
        // A refusal after the greeting (e.g. access denied) still shows MySQL speaking.
        if (!withCredentials && greeted && !signal.aborted) {
          details.handshake_ms = elapsed();
          return { ok: true, responseTimeMs: elapsed(), message: `MySQL${version} greeting received in ${details.banner_ms} ms (login refused: ${errorText(err)})`, details };
        }
        const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : notMysql ? 'not a MySQL server (unexpected greeting)' : `MySQL${version}: ${errorText(err)}`;
        return { ok: false, responseTimeMs: elapsed(), message, details };
      } finally {
        connection?.destroy();
        socket.destroy();
      }
    },
  };
}

/**
 * `query` in a read-only transaction that is rolled back, alone (mysql2 sends no multiple
 * statements). The session is read-only too: a DDL statement first commits the transaction
 * implicitly, and would then run outside it.
 */
async function readOnlyQuery(connection: mysql.Connection, query: string): Promise<unknown> {
  await connection.query('SET SESSION TRANSACTION READ ONLY');
  await connection.query('START TRANSACTION READ ONLY');
  try {
    const [rows] = await connection.query({ sql: query, rowsAsArray: true, typeCast: resultType });
    return firstValue(rows);
  } finally {
    await connection.query('ROLLBACK').catch(() => undefined);
  }
}

/** Integers and decimals as numbers when exact, a date and time as ISO text (in the server's zone, as stored). */
const resultType: mysql.TypeCast = (field, next) => {
  switch (field.type) {
    case 'LONGLONG':
    case 'DECIMAL':
    case 'NEWDECIMAL': {
      const text = field.string('ascii');
      return text === null ? null : exactNumber(text);
    }
    case 'DATETIME':
    case 'TIMESTAMP': {
      const text = field.string('ascii');
      return text === null ? null : localDateTime(text);
    }
    case 'DATE':
      return field.string('ascii');
    default:
      return next();
  }
};

/**
 * The first packet: a 3-byte length, a sequence number 0, then protocol version 10 and the
 * NUL-terminated server version, or an error packet (0xff, e.g. "Too many connections").
 * Null when the bytes cannot be a MySQL greeting.
 */
function parseGreeting(chunk: Buffer): { protocol: number; version?: string } | null {
  if (chunk.length < 5) return null;
  const length = chunk.readUIntLE(0, 3);
  const protocol = chunk[4]!;
  if (chunk[3] !== 0 || length < 1 || length > 1024 || (protocol !== PROTOCOL_10 && protocol !== ERROR_PACKET)) return null;
  if (protocol === ERROR_PACKET) return { protocol };
  const end = chunk.indexOf(0, 5);
  if (end <= 5) return { protocol };
  // MariaDB prefixes its version with "5.5.5-" for the sake of old replication clients.
  return { protocol, version: chunk.subarray(5, Math.min(end, 5 + 64)).toString('latin1').replace(/^5\.5\.5-(?=.*MariaDB)/, '') };
}

function errorText(err: unknown): string {
  return describeNetworkError(err).slice(0, 120);
}
