import { describe, expect, it, vi } from 'vitest';
import { jsonPieces, PIECE } from '../../src/readers/json-pieces.js';

/** The value `jsonPieces` gives, its steps taken at once, and how many there were. */
function parsed(b: Buffer, piece?: number): { value: unknown; steps: number } {
  const steps = jsonPieces(b, piece);
  for (let n = 0; ; n++) {
    const step = steps.next();
    if (step.done) return { value: step.value, steps: n };
  }
}

function jsonParse(b: Buffer): unknown {
  try {
    return JSON.parse(b.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Where two values differ, told more strictly than `toEqual`: -0, key order, own `__proto__`, prototypes. */
function difference(a: unknown, b: unknown, at = '$'): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null)
    return Object.is(a, b) ? undefined : `${at}: ${String(a)} ≠ ${String(b)}`;
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b))
    return `${at}: not the same kind`;
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b);
  if (ka.join('\0') !== kb.join('\0')) return `${at}: keys ${ka.join(',')} ≠ ${kb.join(',')}`;
  for (const k of ka) {
    if (k === 'length' && Array.isArray(a)) continue;
    const d = difference(
      (a as Record<string | symbol, unknown>)[k],
      (b as Record<string | symbol, unknown>)[k],
      `${at}.${String(k)}`,
    );
    if (d) return d;
  }
  return undefined;
}

// Piece sizes: every container built member by member (0), a few bytes, and the real one.
const PIECES = [0, 1, 5, 64, PIECE];

function expectSame(b: Buffer): void {
  const want = jsonParse(b);
  for (const piece of PIECES) {
    const got = parsed(b, piece).value;
    const d = difference(got, want);
    if (d) expect.fail(`${JSON.stringify(b.toString('latin1'))} in pieces of ${piece}: ${d}`);
  }
}

const EDGES = [
  // numbers as JSON.parse reads them: -0, beyond a double, tiny, long, exponents
  '[0,-0,1.0,1e400,-1e400,5e-324,2e-400,123456789012345678901234567890,0.1,1E+2,1e-2,9007199254740993]',
  '{"a":-0.0e0}',
  // escapes, surrogates (paired, lone, reversed), text beyond ASCII
  String.raw`["\"\\\/\b\f\n\r\t","\u0041\u00e9\u20ac","\ud83d\ude00","\ud800","\udc00\ud800","é€😀"]`,
  String.raw`{"\ud800":1,"\u005f_proto__":{"x":1}}`,
  // duplicate keys: the last value, at the first one's place; integer keys first, ascending
  '{"b":1,"a":2,"b":3,"10":4,"2":5,"4294967295":6,"4294967294":7,"-1":8,"01":9}',
  '{"a":{"x":1},"a":[1,2,3],"b":{"a":1,"a":{"c":[]}}}',
  // __proto__ is an own key, never the prototype
  '{"__proto__":{"polluted":true},"y":[{"__proto__":[1]},{"__proto__":null}]}',
  '{"__proto__":1,"__proto__":{"a":[1,2,3,4,5,6,7,8,9]}}',
  '{"constructor":{"prototype":{"x":1}},"toString":"s","hasOwnProperty":1}',
  // spaces JSON allows, and the empty containers
  ' \t\r\n[ \t\r\n{ "a" : [ ] , "b" : { } } , [ [ ] , { } ] ] \n',
  '[]',
  '{}',
  '[[]]',
  '[{}]',
  '{"":{"":[""]}}',
  '[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]',
  '[true,false,null,"true",1,"",[true],{"n":null}]',
  // documents that are not a container
  '"just a string"',
  '12',
  ' null ',
  'true',
  // no JSON
  '',
  ' ',
  '[',
  ']',
  '{',
  '}',
  '[1,]',
  '[,1]',
  '[1,,2]',
  '{"a":1,}',
  '{,"a":1}',
  '{"a"}',
  '{"a":}',
  '{"a" 1}',
  '{"a"::1}',
  '{1:2}',
  '{a:1}',
  "{'a':1}",
  '[1 2]',
  '[1]]',
  '[[1]',
  '{"a":[}',
  '{"a":1]',
  '[{]}',
  '[1]x',
  '[1] [2]',
  '[1],',
  '[tru]',
  '[True]',
  '[nul]',
  '[NaN]',
  '[Infinity]',
  '[-]',
  '[01]',
  '[1.]',
  '[.5]',
  '[1e]',
  '[+1]',
  '[0x10]',
  '[1-2]',
  '["a]',
  '["a\\"]',
  '["\\x41"]',
  '["\\u12"]',
  '["\u0001"]',
  '["a\nb"]',
  '{"a\u0000":1}',
  '{"\\q":1}',
  '["\\ud83d\\u"]',
  '\ufeff[1]',
  '[1]\u00a0',
  '[\u00a01]',
  '/*c*/[1]',
  '[1]//c',
];

describe('a JSON document parsed in pieces', () => {
  it('is what JSON.parse gives, or nothing where it throws: numbers, escapes, surrogates, duplicate keys, __proto__', () => {
    for (const text of EDGES) expectSame(Buffer.from(text));
  });

  it('decodes bytes that are no UTF-8 as JSON.parse of the decoded text does', () => {
    const bad = [
      [0xff],
      [0xc3],
      [0xe2, 0x82],
      [0xed, 0xa0, 0x80],
      [0xf0, 0x9f, 0x98],
      [0xc0, 0xaf],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
    ];
    for (const bytes of bad) {
      expectSame(
        Buffer.concat([
          Buffer.from('["a'),
          Buffer.from(bytes),
          Buffer.from('",{"k'),
          Buffer.from(bytes),
          Buffer.from('":[1,"'),
          Buffer.from(bytes),
          Buffer.from('"]}]'),
        ]),
      );
      expectSame(Buffer.concat([Buffer.from('[1,'), Buffer.from(bytes), Buffer.from(']')]));
    }
  });

  it('is what JSON.parse gives for thousands of random documents, and for each cut, spliced or broken', () => {
    const random = seeded(7);
    for (let n = 0; n < 3000; n++) {
      const text = spaced(randomValue(random, 0), random);
      expectSame(Buffer.from(text));
      const b = Buffer.from(text);
      const at = Math.floor(random() * b.length);
      expectSame(b.subarray(0, at)); // cut
      const broken = Buffer.from(b);
      broken[at] = BREAKERS.charCodeAt(Math.floor(random() * BREAKERS.length));
      expectSame(broken);
      expectSame(Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + Math.floor(random() * 4)))])); // bytes taken out
    }
  });

  it('holds no more text than about a piece at a time: JSON.parse is never handed the document whole', () => {
    const doc = Buffer.from(
      JSON.stringify({
        a: Array.from({ length: 50_000 }, (_, i) => ({ i, b: [i, { c: 'text of a message' }] })),
        d: { e: Array(30_000).fill('x') },
      }),
    );
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const { value } = parsed(doc);
      expect(difference(value, JSON.parse(doc.toString()))).toBeUndefined();
      const longest = Math.max(...parse.mock.calls.slice(0, -1).map(([text]) => text.length));
      expect(longest).toBeLessThanOrEqual(2 * PIECE + 100);
    } finally {
      parse.mockRestore();
    }
  });

  it('is built, not parsed whole, once a container outgrows a piece, with a step at least every piece', () => {
    const doc = Buffer.from(
      JSON.stringify({
        messages: Array.from({ length: 20_000 }, (_, i) => ({ [`k${i}`]: i, text: 'some text of a message' })),
        meta: { n: [1, 2, 3] },
      }),
    );
    const { value, steps } = parsed(doc);
    expect(difference(value, JSON.parse(doc.toString()))).toBeUndefined();
    expect(steps).toBeGreaterThanOrEqual(Math.floor(doc.length / (2 * PIECE)));
  });
});

// Bytes that break a document where they land (or not: a space inside a string).
const BREAKERS = '[]{},:" \\0-.etx\n';

/** A small deterministic random source (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const KEYS = ['a', 'b', 'a', '__proto__', '0', '7', '10', '4294967295', '', 'k\\u00e9', '\\ud800', 'x\\"y', 'é'];
const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1.5',
  '1e400',
  '-1e-400',
  '5e-324',
  '1.7976931348623157e308',
  '123456789012345678901234567890',
  '0.30000000000000004',
  '2E+3',
  '9007199254740993',
];
const STRINGS = [
  '',
  'text',
  '\\"',
  '\\\\',
  '\\n\\t\\r\\b\\f\\/',
  '\\u0000',
  '\\ud83d\\ude00',
  '\\ud800',
  '\\udfff\\ud800',
  'é€😀',
  ',[{]}:',
];

/** A random JSON text (written here, so that keys repeat and numbers are spelled as JSON may spell them). */
function randomValue(random: () => number, depth: number): string {
  const r = random();
  if (depth < 5 && r < 0.25) {
    const n = Math.floor(random() * 6);
    return `[${Array.from({ length: n }, () => randomValue(random, depth + 1)).join(',')}]`;
  }
  if (depth < 5 && r < 0.5) {
    const n = Math.floor(random() * 6);
    return `{${Array.from({ length: n }, () => `"${pick(random, KEYS)}":${randomValue(random, depth + 1)}`).join(',')}}`;
  }
  if (r < 0.7) return pick(random, NUMBERS);
  if (r < 0.9) return `"${pick(random, STRINGS)}${pick(random, STRINGS)}"`;
  return pick(random, ['true', 'false', 'null']);
}

/** The text with JSON's spaces put between some of its tokens (outside strings). */
function spaced(text: string, random: () => number): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += c;
    if (inString) {
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    }
    if (!inString && '[]{},:'.includes(c) && random() < 0.3) out += pick(random, [' ', '\n', '\t', '\r', '  ']);
  }
  return out;
}
