// The OpenAPI description of one route, declared next to the route's schemas. The document
// (openapi-document.ts) is built from these, and a test compares them with the router.
import { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'head';

/**
 * A success answer: a JSON schema, `null` for no body, plain text, a file of that media type, or
 * JSON that a query parameter may turn into a file (`format=csv`).
 */
export type SuccessBody = z.ZodType | null | { text: string } | { file: string } | { json: z.ZodType; orFile: string };

export interface ApiOperation {
  method: HttpMethod;
  /** Relative to /api/v1, in the router's form: `/services/:id`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Needs no credentials (`security: []`). */
  public?: true;
  /** One schema per `:name` of the path. */
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may be left out entirely. */
  bodyOptional?: true;
  responses: Partial<Record<number, SuccessBody>>;
  /** Error statuses beyond those the shape of the operation implies (see errorStatuses). */
  errors?: number[];
}

/** The error body of API.md "Errors"; `code` is one of the closed set of errors.ts. */
export const ApiError = z
  .object({
    error: z.string(),
    code: z.string().optional(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error', description: 'Every error answer: a human-readable sentence, a machine-readable code, and for validation errors the fields concerned.' });

/** The statuses every operation of this shape can answer with, besides its own `errors`. */
export function errorStatuses(op: ApiOperation): number[] {
  const statuses = new Set(op.errors ?? []);
  if (op.params || op.query || op.body) statuses.add(400);
  if (op.params) statuses.add(404);
  if (op.body) [413, 415].forEach((s) => statuses.add(s));
  if (!op.public) [401, 403, 429].forEach((s) => statuses.add(s));
  statuses.add(503);
  return [...statuses].sort();
}

/** A UUID in a path, with the message the route gives when it is not one. */
export const idParam = (what: string) => z.uuid({ message: `${what} id must be a UUID` });

/** Timestamps in answers: ISO 8601 UTC with Z (API.md). */
export const isoTime = () => z.iso.datetime();
export const uuidOut = () => z.uuid();
