import { pino, stdSerializers, type Logger } from 'pino';

export type { Logger };

/**
 * Properties that errors of the database driver, the ORM and the body parser carry with the
 * request's own values in them: PostgreSQL's `detail` ("Key (email)=(ada@...) exists"),
 * `where` and `internalQuery`, the ORM's copies of the statement and its parameters, and the
 * raw body the JSON parser failed on. Logs keep what explains the failure (code, constraint,
 * table, message), never what a user sent.
 */
const VALUE_CARRYING = ['detail', 'where', 'internalQuery', 'query', 'sql', 'params', 'parameters', 'bindings', 'body', 'rawBody', 'previous'];

export function serializeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const serialized = stdSerializers.err(err) as unknown as Record<string, unknown>;
  // The ORM also appends the detail to the message ("- detail: Key (email)=(...) exists").
  const carried = VALUE_CARRYING.map((key) => serialized[key]).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  for (const field of ['message', 'stack']) {
    if (typeof serialized[field] === 'string') serialized[field] = carried.reduce((text: string, value) => text.replaceAll(value, '[value withheld]'), serialized[field]);
  }
  for (const key of VALUE_CARRYING) delete serialized[key];
  if (err.cause instanceof Error) serialized.cause = serializeError(err.cause);
  return serialized;
}

/** Structured JSON logs on stdout; secrets and request values never reach them. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'outpost-control-plane' },
    serializers: { err: serializeError },
    redact: ['req.headers.authorization', 'token', 'password', '*.password', '*.token'],
  });
}
