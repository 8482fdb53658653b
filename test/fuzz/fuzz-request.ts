// One fuzz case as it goes on the wire, and the ways a body is wrapped: JSON, text that is
// not JSON, a 1 MB field, the wrong Content-Type, a Content-Encoding that lies, a real
// compressed body (and a bomb), bytes that are not UTF-8, or no body at all.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { extraKeys, hostileBodyText, MB_STRING, MULTIBYTE_STRING, OVER_LIMIT_STRING } from './hostile.js';

export interface FuzzRequest {
  /** The route as the router declares it ("PUT /services/:id"): what the benchmark counts by. */
  route: string;
  method: string;
  /** Under /api/v1, percent-encoded as sent. */
  path: string;
  /** Whether the owner's token goes with it. */
  auth: boolean;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What a binary body holds, for the reader of a counterexample. */
  note?: string;
  /** Written by hand on its own connection, target and headers byte for byte (malformed-requests.ts). */
  raw?: true;
}

export type Payload = Pick<FuzzRequest, 'headers' | 'body' | 'note'>;

const JSON_TYPE = { 'content-type': 'application/json' };

const wrongContentType = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/json',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/json; charset=no-such-charset',
  'APPLICATION/JSON',
  'application/*',
  '*/*',
  'application',
  ';;;',
);

const statedEncoding = fc.constantFrom('gzip', 'br', 'deflate', 'x-gzip', 'GZIP', 'gzip, br', 'identity', 'compress', 'zstd', 'bogus', '');

/** Byte sequences no UTF-8 decoder accepts: stray, overlong (a NUL), a surrogate, past U+10FFFF, cut short. */
const invalidUtf8 = fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x00], [0x80]);

const compressors = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
/** 8 MB of JSON in a few KB of gzip: the size limit must count what it inflates to. */
const gzipBomb = gzipSync(`{"name":"${'a'.repeat(8 * 1024 * 1024)}"}`);

/** Wraps a generated body value in one of the envelopes; `fields` name the keys the route knows. */
export function payloadArbitrary(value: fc.Arbitrary<unknown>, fields: string[]): fc.Arbitrary<Payload> {
  const field = fc.constantFrom(...(fields.length > 0 ? fields : ['name']));
  const maybeExtras = fc.oneof({ withCrossShrink: true }, { weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: extraKeys });
  const withExtras = fc.tuple(value, maybeExtras).map(([v, extras]) => (extras ? merged(v, Object.entries(extras)) : v));
  // Cross-shrinking turns a failing envelope into plain JSON when the body alone fails.
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 30, arbitrary: withExtras.map((v) => ({ headers: JSON_TYPE, body: JSON.stringify(v) })) },
    { weight: 3, arbitrary: field.chain(hostileBodyText).map((body) => ({ headers: JSON_TYPE, body })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(value, field, fc.constantFrom(MB_STRING, OVER_LIMIT_STRING, MULTIBYTE_STRING))
        .map(([v, f, big]) => ({ headers: JSON_TYPE, body: JSON.stringify(merged(v, [[f, big]])) })),
    },
    { weight: 1, arbitrary: fc.tuple(value, wrongContentType).map(([v, type]) => ({ headers: { 'content-type': type }, body: JSON.stringify(v) })) },
    {
      weight: 1,
      arbitrary: fc.tuple(value, statedEncoding).map(([v, encoding]) => ({ headers: { ...JSON_TYPE, 'content-encoding': encoding }, body: JSON.stringify(v) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.constantFrom('gzip', 'deflate', 'br') as fc.Arbitrary<keyof typeof compressors>).map(([v, encoding]) => {
        const text = JSON.stringify(v) ?? '';
        return { headers: { ...JSON_TYPE, 'content-encoding': encoding }, body: compressors[encoding](text), note: `${encoding} of ${text}` };
      }),
    },
    { weight: 1, arbitrary: fc.constant({ headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, body: gzipBomb, note: 'gzip of {"name":"a" × 8 MiB}' }) },
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.nat(), invalidUtf8).map(([v, at, bad]) => {
        const bytes = Buffer.from(JSON.stringify(v) ?? '');
        const cut = at % (bytes.length + 1);
        return { headers: JSON_TYPE, body: Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)]) };
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom<Payload>({ headers: {} }, { headers: JSON_TYPE }, { headers: {}, body: '{}' }) },
  );
}

/** `value` with `entries` added as data keys ("__proto__" stays a key); a non-object becomes one. */
function merged(value: unknown, entries: [string, unknown][]): Record<string, unknown> {
  const base = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [];
  return Object.fromEntries([...base, ...entries]);
}

/** Gives a case the printed form fast-check shows for a counterexample. */
export function printable(request: FuzzRequest): FuzzRequest {
  return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
}

export function describeRequest(r: FuzzRequest): string {
  const wire = r.raw ? '  (written raw on its own connection)' : '';
  // In a target even a space is a byte to show; a header value may hold spaces.
  const lines = [`${r.method} /api/v1${abbreviated(hexEscaped(r.path, /[^\x21-\x7e]/g))}${r.auth ? '  (Authorization: Bearer <owner token>)' : ''}${wire}`];
  for (const [name, value] of Object.entries(r.headers)) lines.push(`${name}: ${hexEscaped(value, /[^\x20-\x7e]/g)}`);
  if (r.body !== undefined) {
    const text = typeof r.body === 'string' ? escaped(r.body) : escapedBytes(r.body);
    lines.push(`body (${Buffer.byteLength(r.body)} bytes): ${abbreviated(text)}`);
  }
  if (r.note) lines.push(`which is: ${abbreviated(escaped(r.note))}`);
  return lines.join('\n  ');
}

/** Control characters, surrogate halves and invisible marks as \uXXXX, so the reader sees them. */
function escaped(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\ud800-\udfff\u202a-\u202e\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function escapedBytes(bytes: Buffer): string {
  return [...bytes].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
}

/** Text that goes on the wire as latin1 (a target, a header), with `unsafe` characters as \xNN. */
function hexEscaped(text: string, unsafe: RegExp): string {
  return text.replace(unsafe, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Long runs ("a" a million times, "[" 5,000 times) as one mark, then cut to a screenful. */
function abbreviated(text: string): string {
  const runs = text.replace(/([\s\S]{1,8}?)\1{19,}/g, (run, unit: string) => `‹${JSON.stringify(unit)} × ${run.length / unit.length}›`);
  return runs.length > 600 ? `${runs.slice(0, 600)}… (${runs.length} characters)` : runs;
}
