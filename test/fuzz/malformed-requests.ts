// Requests broken below JSON, at the HTTP layer: raw (unencoded) bytes in the target, a
// target longer than Node's header limit, framing that contradicts itself, an unknown method.
// A naive client sends these; node:http would refuse to, so they go out by hand (`raw`).
import fc from 'fast-check';
import type { Fixtures } from './fixtures.js';
import { printable, type FuzzRequest } from './fuzz-request.js';
import { LIST_ROUTES } from './list-routes.js';
import { WRITE_ROUTES } from './write-routes.js';

/** NUL, space, controls, bytes past ASCII, and printable characters RFC 3986 wants escaped. */
const rawByte = fc.constantFrom('\x00', ' ', '\x01', '\t', '\x7f', '\x80', '\xe9', '\xff', '"', '<', '{', '|', '\\', '^', '`');

/** Cases per test run: each opens a connection of its own. */
export const MALFORMED_RUNS = 150;

const JSON_TYPE = { 'content-type': 'application/json' };
const brokenFraming = fc.constantFrom<Pick<FuzzRequest, 'headers' | 'body'>>(
  { headers: { ...JSON_TYPE, 'transfer-encoding': 'chunked' }, body: 'zz\r\n{}\r\n0\r\n\r\n' },
  { headers: { ...JSON_TYPE, 'transfer-encoding': 'chunked', 'content-length': '2' }, body: '2\r\n{}\r\n0\r\n\r\n' },
  { headers: { ...JSON_TYPE, 'content-length': 'abc' }, body: '{}' },
  { headers: { ...JSON_TYPE, 'content-length': '-1' }, body: '{}' },
  { headers: { ...JSON_TYPE, 'content-length': '2, 3' }, body: '{}' },
  { headers: { ...JSON_TYPE, 'x-fuzz': 'a\x01b' }, body: '{}' },
  { headers: { 'content-type': 'application/json\x00' }, body: '{}' },
);

export function malformedCases(f: Fixtures): fc.Arbitrary<FuzzRequest> {
  const routes = [
    ...WRITE_ROUTES.map((r) => ({ method: r.method as string, path: r.path, target: r.target?.(f), public: r.public })),
    ...LIST_ROUTES.map((r) => ({ method: 'GET', path: r.path, target: r.target?.(f), public: r.public })),
  ].map((r) => ({ ...r, path: r.path.replace(/:[a-zA-Z]+/, r.target ?? '00000000-0000-4000-8000-000000000000') }));
  const route = fc.constantFrom(...routes);
  const request = (kind: string, r: (typeof routes)[number], parts: Partial<FuzzRequest>): FuzzRequest =>
    printable({ route: `malformed: ${kind}`, method: r.method, path: r.path, auth: !r.public, headers: {}, raw: true, ...parts });
  return fc.oneof(
    fc.tuple(route, rawByte, fc.boolean()).map(([r, byte, inQuery]) =>
      request('raw byte in the target', r, { path: inQuery ? `${r.path}?tag=a${byte}b` : `${r.path}${byte}x` }),
    ),
    // Node's limit on the request line and headers is 16 KiB: one under, two over.
    fc.tuple(route, fc.constantFrom(8_000, 16_500, 70_000)).map(([r, n]) => request('overlong target', r, { path: `${r.path}?q=${'a'.repeat(n)}` })),
    fc.tuple(route, brokenFraming).map(([r, framing]) => request('broken framing', r, { method: r.method === 'GET' ? 'POST' : r.method, ...framing })),
    fc.tuple(route, fc.constantFrom('FOO', 'get', 'PROPFIND')).map(([r, method]) => request('unknown method', r, { method })),
  );
}
