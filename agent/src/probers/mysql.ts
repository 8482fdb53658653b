// MySQL and MariaDB through mysql2: the server greeting proves the protocol; with
// credentials the probe logs in and runs SELECT 1.
import mysql from 'mysql2/promise';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeResult } from './prober.js';

interface MysqlOptions {
  username?: string;
  password?: string;
  database?: string;
}

export function mysqlProber(): Prober {
  return {
    family: 'MYSQL',
    async probe(target, signal): Promise<ProbeResult> {
      const o = target.options as MysqlOptions;
      const withCredentials = o.username !== undefined || o.password !== undefined;
      const address = parseHostPort(target.endpoint);
      if (!address) return { ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} };
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let connection: mysql.Connection | undefined;
      let aborted = false;
      const onAbort = () => (aborted = true);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const connecting = mysql.createConnection({
          host: address.host,
          port: address.port,
          user: o.username ?? 'outpost_probe',
          password: o.password,
          database: o.database,
          connectTimeout: target.timeoutMs,
        });
        // A connection that arrives after the timeout is closed at once, not leaked.
        connecting.then((late) => aborted && late.destroy(), () => undefined);
        connection = await abortable(connecting, signal);
        const loginMs = elapsed();
        if (!withCredentials) return { ok: true, responseTimeMs: loginMs, message: `MySQL greeting received in ${loginMs} ms`, details: { handshake_ms: loginMs } };
        await abortable(connection.query('SELECT 1'), signal);
        return { ok: true, responseTimeMs: elapsed(), message: `MySQL login ok, SELECT 1 in ${elapsed() - loginMs} ms`, details: { login_ms: loginMs, query_ms: elapsed() - loginMs } };
      } catch (err) {
        const e = err as { sqlState?: string; errno?: number; message?: string };
        // A server-sent error (e.g. access denied) came after its greeting: MySQL is speaking.
        if (!withCredentials && !aborted && e.sqlState) {
          return { ok: true, responseTimeMs: elapsed(), message: `MySQL greeting received (login refused: ${e.message?.slice(0, 100)})`, details: { handshake_ms: elapsed() } };
        }
        const message = aborted ? `timed out after ${target.timeoutMs} ms` : `MySQL: ${describeNetworkError(err)}`;
        return { ok: false, responseTimeMs: elapsed(), message, details: {} };
      } finally {
        signal.removeEventListener('abort', onAbort);
        connection?.destroy();
      }
    },
  };
}

/** Rejects when the signal aborts; the caller destroys what the promise was building. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
