import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; secrets never reach them (see redact). */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'outpost-control-plane' },
    redact: ['req.headers.authorization', 'token', 'password', '*.password', '*.token'],
  });
}
