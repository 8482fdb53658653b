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
  return Object.fromEntries(names.map((n) => [n, z.unknown().optional()])) as Record<K, z.ZodOptional<z.ZodUnknown>>;
}
