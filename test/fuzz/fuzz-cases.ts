// Builds the arbitrary of whole requests for one route: a path (an existing id mostly, else
// an unknown or hostile one), then a body in one of its envelopes, or a query string.
import fc from 'fast-check';
import type { Fixtures } from './fixtures.js';
import { payloadArbitrary, printable, type FuzzRequest } from './fuzz-request.js';
import { hostileQueryValue, hostileSegment, hostileValue } from './hostile.js';
import type { ListRoute } from './list-routes.js';
import { jsonSchemaOf, schemaArbitrary } from './schema-arbitrary.js';
import type { WriteRoute } from './write-routes.js';

export function writeCases(route: WriteRoute, f: Fixtures): fc.Arbitrary<FuzzRequest> {
  const schema = route.body && jsonSchemaOf(route.body);
  const hints = route.hints?.(f);
  // Half the bodies conform all through, so they get past validation; the other half carry
  // hostile values at random nodes. A route that reads no body still gets one: the body
  // parser runs before any route.
  const value = schema
    ? fc.oneof({ withCrossShrink: true }, schemaArbitrary(schema, { hints }), schemaArbitrary(schema, { hints, hostile: hostileValue }))
    : fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined });
  const fields = Object.keys(schema?.properties ?? {});
  return fc.tuple(segmentOf(route.target?.(f)), payloadArbitrary(value, fields)).map(([segment, payload]) =>
    printable({ route: `${route.method} ${route.path}`, method: route.method, path: filled(route.path, segment), auth: !route.public, ...payload }),
  );
}

export function listCases(route: ListRoute, f: Fixtures): fc.Arbitrary<FuzzRequest> {
  const schema = jsonSchemaOf(route.query);
  const fields = Object.keys(schema.properties ?? {});
  const name = fc.oneof(fc.constantFrom(...fields, 'q'), fc.constantFrom('__proto__', 'constructor', '%00', '%ED%A0%80', 'a[b]', 'a[]', '', '%'));
  const rawPairs = fc.array(fc.tuple(name, hostileQueryValue), { maxLength: 2 });
  return fc.tuple(segmentOf(route.target?.(f)), schemaArbitrary(schema, { hostile: hostileValue }), rawPairs).map(([segment, query, raw]) => {
    const pairs = [...queryPairs(query), ...raw.map(([k, v]) => `${k}=${v}`)];
    const path = filled(route.path, segment) + (pairs.length > 0 ? `?${pairs.join('&')}` : '');
    return printable({ route: `GET ${route.path}`, method: 'GET', path, auth: !route.public, headers: {} });
  });
}

/** Mostly the fixture's id, so the route reaches its resource; without one, unknown or hostile only. */
function segmentOf(target: string | undefined): fc.Arbitrary<string> {
  const others = fc.oneof(fc.uuid(), hostileSegment);
  return target ? fc.oneof({ weight: 8, arbitrary: fc.constant(target) }, { weight: 2, arbitrary: others }) : others;
}

function filled(path: string, segment: string): string {
  return path.replace(/:[a-zA-Z]+/, segment);
}

/** A generated query object as name=value pairs: arrays repeat the name, objects go as JSON. */
function queryPairs(query: unknown): string[] {
  const entries: [string, unknown][] = query !== null && typeof query === 'object' && !Array.isArray(query) ? Object.entries(query) : [['q', query]];
  return entries.flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => `${encoded(name)}=${encoded(typeof v === 'string' ? v : JSON.stringify(v) ?? '')}`),
  );
}

/** Like encodeURIComponent, but a lone surrogate goes as its (invalid) 3-byte UTF-8 form instead of throwing. */
function encoded(text: string): string {
  if (text.isWellFormed()) return encodeURIComponent(text);
  return Array.from(text, (ch) => {
    if (ch.isWellFormed()) return encodeURIComponent(ch);
    const unit = ch.charCodeAt(0);
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  }).join('');
}
