// The one error hierarchy of the control plane. Services throw AppError with a code from a
// closed set; each transport maps the code once (http/error-middleware.ts, grpc/status.ts).

export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHENTICATED'
  /** A status page whose access is password, asked for without the cookie its password earns. */
  | 'PASSWORD_REQUIRED'
  | 'FORBIDDEN'
  /** A password sign-in into an organization that requires single sign-on; the message names its start URL. */
  | 'SSO_REQUIRED'
  | 'PLAN_LIMIT_REACHED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  /** Something the control plane depends on (its database) does not answer; retry later. */
  | 'UNAVAILABLE'
  /** Something the control plane asked on the caller's behalf (an agent's test run) gave no answer in time. */
  | 'NO_ANSWER';

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { details?: ErrorDetail[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const validationFailed = (message: string, details?: ErrorDetail[]) =>
  new AppError('VALIDATION_FAILED', message, details ? { details } : {});
