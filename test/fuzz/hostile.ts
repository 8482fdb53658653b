// Input no client should send and every server must survive: text PostgreSQL cannot store,
// prototype keys, wrong types, extreme numbers, JSON that is not JSON, and deep nesting.
import fc from 'fast-check';

export const MIB = 1024 * 1024;
/** Fits under the 1 MiB body limit with room for the rest of the body: reaches validation. */
export const MB_STRING = 'a'.repeat(1_000_000);
/** Just over the limit once quoted: a 413. */
export const OVER_LIMIT_STRING = 'a'.repeat(MIB + 1);
/** Fewer characters than bytes: a limit counted in characters would let it through. */
export const MULTIBYTE_STRING = 'é'.repeat(600_000);
/** Far past any depth limit; built as text because JSON.stringify of such a value can overflow the stack. */
export const DEEP_LEVELS = 5_000;

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];

export const hostileText = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '',
  ' ',
  '\t\r\n',
  '\u202eevil',
  '\ufeff',
  '\uffff',
  '💥🔥'.repeat(40),
  "' or 1=1 --",
  '"; drop table users; --',
  '${7*7}{{7*7}}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '%s%n%x',
  'null',
  'true',
  '-1',
  'NaN',
  '1e400',
  ...PROTOTYPE_KEYS,
  'x'.repeat(10_000),
);

const hostileNumber = fc.constantFrom(0, -0, -1, 0.5, -0.5, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 32, 2 ** 53 + 2, -(2 ** 63), 1e21);

/** Objects whose keys JavaScript treats specially once parsed. */
const prototypeObject = fc.constantFrom(...PROTOTYPE_KEYS).chain((key) =>
  fc.jsonValue({ maxDepth: 1 }).map((value) => Object.fromEntries([[key, value]])),
);

/** Just past and just under the server's depth limit (16), as values JSON.stringify can write. */
const nested = fc.integer({ min: 14, max: 20 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
});

/** Offered in place of any value of a body: the wrong type for every field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(true, false, null, [], {}, [null], [[]], [''], { '': '' }) },
  { weight: 1, arbitrary: prototypeObject },
  { weight: 1, arbitrary: nested },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Keys added to a body beside the schema's own. */
export const extraKeys = fc.dictionary(
  fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, '', '\u0000', '\ud800', 'a.b', 'ID', 'role', 'organization_id', 'is_admin'), fc.string({ maxLength: 8 })),
  hostileValue,
  { minKeys: 1, maxKeys: 3 },
);

/** Request bodies as text: not JSON, JSON that is not an object, or nested past any limit. */
export function hostileBodyText(field: string): fc.Arbitrary<string> {
  const f = JSON.stringify(field);
  const deepArray = '['.repeat(DEEP_LEVELS) + ']'.repeat(DEEP_LEVELS);
  return fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '{"a":}',
    '{"a":1,}',
    "{'a':1}",
    '{"a":1}{"b":2}',
    '{"a":1} trailing',
    '\ufeff{}',
    'nul',
    'NaN',
    'Infinity',
    '[]',
    '[{}]',
    '1',
    '-0',
    '"text"',
    'null',
    'true',
    `{${f}:1e400}`,
    `{${f}:-1e400}`,
    `{${f}:123456789012345678901234567890}`,
    `{${f}:"\\u0000"}`,
    `{${f}:"\\ud800"}`,
    `{${f}:"\\udfff\\ud800"}`,
    `{${f}:"a",${f}:1}`,
    `{"__proto__":{${f}:1,"is_admin":true}}`,
    `{"constructor":{"prototype":{${f}:1}}}`,
    deepArray,
    '{"a":'.repeat(DEEP_LEVELS) + '1' + '}'.repeat(DEEP_LEVELS),
    `{${f}:${deepArray}}`,
  );
}

/** Path segments where an id belongs: encoded NULs, broken escapes, traversal, length. */
export const hostileSegment = fc.constantFrom(
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF%FE',
  '%C0%80',
  '%',
  '%zz',
  '%25',
  '..',
  '%2e%2e%2f%2e%2e',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '123e4567-e89b-12d3-a456-426614174000%00',
  `'%20or%201=1--`,
  '%F0%9F%92%A5',
  'x'.repeat(4_000),
);

/** Query parameter values, already encoded: the same hostile text as bodies, and broken escapes. */
export const hostileQueryValue = fc.oneof(
  hostileText.filter((t) => t.isWellFormed() && t.length < 1_000).map(encodeURIComponent),
  fc.constantFrom('%00', '%ED%A0%80', '%ED%B0%80%ED%A0%80', '%FF', '%C0%80', '%', '%zz', '%u0000', '+%2B+'),
);
