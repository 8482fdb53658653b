// MongoDB through the official driver: `hello` over a direct connection within the
// check's timeout; with credentials it authenticates and sends `ping`. options.command is run
// instead of the ping (logged in or not); its reply is the `result` source.
import { BSON, MongoClient, MongoServerError, type Document } from 'mongodb';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeResult } from './prober.js';

export function mongodbProber(): Prober<'MONGODB'> {
  return {
    family: 'MONGODB',
    prepare: (target) => async (signal): Promise<ProbeResult> => {
      const o = target.options;
      const address = parseHostPort(target.endpoint);
      if (!address) return { ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} };
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const host = address.host.includes(':') ? `[${address.host}]` : address.host;
      const client = new MongoClient(`mongodb://${host}:${address.port}/`, {
        directConnection: true,
        serverSelectionTimeoutMS: target.timeoutMs,
        connectTimeoutMS: target.timeoutMs,
        socketTimeoutMS: target.timeoutMs,
        maxPoolSize: 1,
        monitorCommands: false,
        ...(o.username !== undefined ? { auth: { username: o.username, password: o.password }, authSource: o.database ?? 'admin' } : {}),
      });
      const onAbort = () => void client.close(true).catch(() => undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      // The driver keeps retrying a refused server until selection times out; its first
      // failed heartbeat already says why, so the probe ends there.
      const unreachable = new Promise<never>((_, reject) =>
        client.on('serverDescriptionChanged', (event) => event.newDescription.error && reject(event.newDescription.error)),
      );
      unreachable.catch(() => undefined);
      try {
        const admin = client.db(o.database ?? 'admin');
        const hello = await Promise.race([admin.command({ hello: 1 }), unreachable]);
        const helloMs = elapsed();
        const details: ProbeResult['details'] = { hello_ms: helloMs };
        if (typeof hello.maxWireVersion === 'number') details.max_wire_version = hello.maxWireVersion;
        if (o.command !== undefined) {
          const name = Object.keys(o.command)[0] ?? 'command';
          let reply: Document;
          try {
            reply = await admin.command(o.command);
          } catch (err) {
            if (signal.aborted || !(err instanceof MongoServerError)) throw err;
            // The server's refusal is an answer too ({ok: 0, errmsg, code}).
            return { ok: false, responseTimeMs: elapsed(), message: `command failed: ${err.message}`, details, observed: { result: plainJson(err.errorResponse) } };
          }
          details.command_ms = elapsed() - helloMs;
          return { ok: true, responseTimeMs: elapsed(), message: `MongoDB ${name} answered in ${details.command_ms} ms`, details, observed: { result: plainJson(reply) } };
        }
        if (o.username === undefined) return { ok: true, responseTimeMs: helloMs, message: `MongoDB hello answered in ${helloMs} ms`, details };
        await admin.command({ ping: 1 });
        details.ping_ms = elapsed() - helloMs;
        return { ok: true, responseTimeMs: elapsed(), message: `MongoDB login ok, ping in ${details.ping_ms} ms`, details };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause;
        const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : `MongoDB: ${describeNetworkError(cause?.code ? cause : err)}`;
        return { ok: false, responseTimeMs: elapsed(), message, details: {} };
      } finally {
        signal.removeEventListener('abort', onAbort);
        await client.close(true).catch(() => undefined);
      }
    },
  };
}

/**
 * A reply as relaxed Extended JSON, the form JSONPath reads: numbers as numbers, and the BSON
 * types JSON lacks as MongoDB writes them ({"$date": "..."}, {"$oid": "..."}).
 */
function plainJson(document: Document): unknown {
  return BSON.EJSON.serialize(document, { relaxed: true });
}
