// Parses request input with a zod schema; failures become one 400 with every issue listed.
import { z } from 'zod';
import { validationFailed } from '../errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what = 'request body'): z.infer<S> {
  if (what === 'request body' && (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input))) {
    throw validationFailed('the request body must be a JSON object');
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: describeIssue(issue, input),
  }));
  const first = details[0];
  throw validationFailed(first ? `invalid ${what}: ${first.path ? `${first.path}: ` : ''}${first.message}` : `invalid ${what}`, details);
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return 'is required';
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
  return issue.message;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * Fields a client may send back unchanged from an object it read (id, timestamps, ...):
 * accepted on update and ignored, while any other unknown key is still refused.
 */
export function readOnly<const K extends string>(...names: K[]): Record<K, z.ZodOptional<z.ZodUnknown>> {
  return Object.fromEntries(names.map((n) => [n, z.unknown().optional().meta({ readOnly: true })])) as Record<K, z.ZodOptional<z.ZodUnknown>>;
}

/** The earliest and the first refused instant: monitoring has nothing before 1970, and JSON
 * dates past year 9999 (written "+010000-...") are not a form PostgreSQL reads. */
const EARLIEST = Date.UTC(1970, 0, 1);
const TOO_LATE = Date.UTC(10_000, 0, 1);

/** An ISO 8601 timestamp with its offset (or Z), from 1970 to 9999. */
export function timestamp(field: string) {
  return z.iso
    .datetime({ offset: true, message: `${field} must be an ISO 8601 timestamp` })
    .refine((v) => {
      const at = Date.parse(v);
      return at >= EARLIEST && at < TOO_LATE;
    }, `${field} must be between 1970 and 9999`);
}
