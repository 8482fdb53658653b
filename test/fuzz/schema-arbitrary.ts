// Turns the JSON Schema that zod emits for a request schema (z.toJSONSchema, io "input") into
// a fast-check arbitrary. Values mostly conform, so cases get past validation into services
// and the database; `hostile` replaces a value by a non-conforming one at any node.
import fc from 'fast-check';
import { z } from 'zod';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
}

export interface ConvertOptions {
  /**
   * Arbitraries by field path ("config", "steps[].channel_ids[]"), mixed with what the schema
   * gives: values a refine or transform needs (a known check type, an existing id) that
   * JSON Schema cannot say.
   */
  hints?: Record<string, fc.Arbitrary<unknown>>;
  /** Offered in place of any value, once in HOSTILE_ODDS. */
  hostile?: fc.Arbitrary<unknown>;
}

/** Rare enough that a body of a dozen fields often carries just one. */
const HOSTILE_ODDS = 16;

/** Recursive $refs stop here; no request schema nests deeper. */
const MAX_DEPTH = 12;
/** Fuzzed URLs stay on loopback: a channel test or a check must not reach the internet. */
const loopbackUrl = fc
  .tuple(fc.constantFrom('http', 'https'), fc.integer({ min: 1, max: 65535 }), fc.webPath())
  .map(([scheme, port, path]) => `${scheme}://127.0.0.1:${port}${path}`);

/** Any instant the format allows, years 0000 to 9999 and offsets to ±23:59, not only plausible ones. */
const dateTime = fc
  .tuple(
    fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
    fc.boolean(),
    fc.constantFrom('Z', '+00:00', '+05:30', '-08:00', '+23:59', '-23:59'),
  )
  .map(([date, millis, offset]) => date.toISOString().slice(0, millis ? 23 : 19) + offset);

export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

export function zodArbitrary(schema: z.ZodType, options: ConvertOptions = {}): fc.Arbitrary<unknown> {
  return schemaArbitrary(jsonSchemaOf(schema), options);
}

export function schemaArbitrary(root: JsonSchema, options: ConvertOptions = {}): fc.Arbitrary<unknown> {
  const defs = { ...root.definitions, ...root.$defs };

  const convert = (schema: JsonSchema | boolean, path: string, depth: number): fc.Arbitrary<unknown> => {
    const conforming = plain(schema, path, depth);
    const hint = options.hints?.[path];
    const hinted = hint ? fc.oneof({ withCrossShrink: true }, { weight: 3, arbitrary: hint }, { weight: 1, arbitrary: conforming }) : conforming;
    if (!options.hostile) return hinted;
    return fc.oneof({ withCrossShrink: true }, { weight: HOSTILE_ODDS - 1, arbitrary: hinted }, { weight: 1, arbitrary: options.hostile });
  };

  /** The schema's own values at one node; the alternatives of anyOf and a $ref stay one node. */
  const plain = (schema: JsonSchema | boolean, path: string, depth: number): fc.Arbitrary<unknown> => {
    if (depth > MAX_DEPTH) return fc.constant(null);
    if (schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) return fc.jsonValue({ maxDepth: 2 });
    if (schema === false) return fc.constant(undefined);
    if (schema.$ref) return plain(resolve(schema.$ref, root, defs), path, depth + 1);
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) return fc.oneof(...branches.map((b) => plain(b, path, depth + 1)));
    if (schema.allOf) return plain(Object.assign({}, ...schema.allOf) as JsonSchema, path, depth);
    if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => plain({ ...schema, type }, path, depth)));
    switch (schema.type) {
      case 'object':
        return objectOf(schema, path, depth);
      case 'array':
        return fc.array(convert(schema.items ?? true, `${path}[]`, depth + 1), { minLength: schema.minItems, maxLength: schema.maxItems });
      case 'string':
        return stringOf(schema);
      case 'integer':
        return fc.integer({
          min: schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? -(2 ** 31)),
          max: schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : (schema.maximum ?? 2 ** 31 - 1),
        });
      case 'number':
        return fc.double({
          min: schema.exclusiveMinimum ?? schema.minimum,
          minExcluded: schema.exclusiveMinimum !== undefined,
          max: schema.exclusiveMaximum ?? schema.maximum,
          maxExcluded: schema.exclusiveMaximum !== undefined,
          noNaN: true,
          noDefaultInfinity: true,
        });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  };

  const objectOf = (schema: JsonSchema, path: string, depth: number): fc.Arbitrary<unknown> => {
    const child = (key: string) => (path ? `${path}.${key}` : key);
    const model = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, s]) => [key, convert(s, child(key), depth + 1)]));
    const known = fc.record(model, { requiredKeys: schema.required ?? [] });
    const extra = schema.additionalProperties;
    if (extra === false) return known;
    const extras = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), convert(extra ?? true, child('*'), depth + 1), { maxKeys: 3 });
    // fromEntries defines every key as data, so a generated "__proto__" stays a plain key.
    return fc.tuple(extras, known).map(([e, k]) => Object.fromEntries([...Object.entries(e), ...Object.entries(k)]));
  };

  return convert(root, '', 0);
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return dateTime;
    case 'uri':
    case 'url':
      return loopbackUrl;
    case 'ipv4':
      return fc.ipV4();
    case 'ipv6':
      return fc.ipV6();
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const lengths = { minLength: schema.minLength ?? 0, maxLength: schema.maxLength };
  const texts = [fc.string(lengths), fc.string({ ...lengths, unit: 'binary' })];
  // The longest value allowed: where an off-by-one in a column width would show.
  if (schema.maxLength !== undefined) texts.push(fc.constant('x'.repeat(schema.maxLength)));
  return fc.oneof({ withCrossShrink: true }, ...texts);
}

function resolve(ref: string, root: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  if (ref === '#') return root;
  const name = ref.replace(/^#\/(\$defs|definitions)\//, '');
  const found = defs[name];
  if (!found) throw new Error(`unresolved $ref ${ref}`);
  return found;
}
