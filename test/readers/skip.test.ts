import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/readers/lines.js';
import { scanRecord, valueEnd, type Fields, type Shape } from '../../src/readers/scan.js';
import { nativeBuffer, nativeOffset, nativeValueEnd } from '../../src/readers/skip.js';
import { tempDir } from '../helpers/run.js';

const root = new URL('../..', import.meta.url).pathname;

/** `bytes` placed in the native buffer, as the reader's lines are. */
function native(bytes: Buffer): Buffer {
  bytes.copy(nativeBuffer!);
  return nativeBuffer!.subarray(0, bytes.length);
}

/** Where a value may start: after `:`, `,` or `[`. */
const valueStart = (b: Buffer, i: number) => i === 0 || b[i - 1] === 58 || b[i - 1] === 44 || b[i - 1] === 91;

/** Where skip.c and scan.ts's valueEnd disagree on the value at each offset of `bytes` that `at` takes. */
function disagreements(bytes: Buffer, at: (b: Buffer, i: number) => boolean = () => true): string[] {
  const line = native(bytes);
  const offset = nativeOffset(line);
  const found: string[] = [];
  for (let i = 0; i <= bytes.length; i++) {
    if (!at(bytes, i)) continue;
    const here = valueEnd(bytes, i);
    const there = nativeValueEnd(offset, i, bytes.length);
    if (here !== there)
      found.push(`${JSON.stringify(bytes.toString('latin1'))} at ${i}: ${here} here, ${there} native`);
  }
  return found;
}

// Bytes JSON's structure turns on, and some it does not.
const ALPHABET = Buffer.from('""""\\\\\\{}[],:-0123456789.eE+tfnrulsaxX \n\r\t\u0001\u00e9', 'latin1');

function randomBytes(random: () => number, length: number): Buffer {
  const b = Buffer.alloc(length);
  for (let i = 0; i < length; i++) b[i] = ALPHABET[Math.floor(random() * ALPHABET.length)]!;
  return b;
}

/** A small seeded generator (mulberry32): the same cases on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function capturedLines(): Buffer[] {
  const lines: Buffer[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.jsonl'))
        lines.push(
          ...readFileSync(path)
            .toString('latin1')
            .split('\n')
            .map((l) => Buffer.from(l, 'latin1')),
        );
    }
  };
  walk(join(root, 'test/fixtures/captures/claude-code'));
  walk(join(root, 'test/fixtures/captures/codex'));
  return lines.filter((l) => l.length > 0);
}

/** Where scanRecord finds otherwise in `bytes` natively than in JavaScript, or undefined. */
function scanDisagreement(bytes: Buffer, shape: Shape): string | undefined {
  const here = tree(scanRecord(Buffer.from(bytes), shape));
  const there = tree(scanRecord(native(bytes), shape));
  return here === there ? undefined : `${bytes.toString()}: ${here} here, ${there} native`;
}

/** What scanRecord found, as plain data: each member's span, and what was read inside it. */
function tree(fields: Fields | undefined): string {
  const of = (f: Fields): unknown =>
    f.found.map((m) => m && { start: m.start, end: m.end, object: m.object && of(m.object), items: m.items?.map(of) });
  return JSON.stringify(fields && of(fields)) ?? 'undefined';
}

/** A shape of some of `value`'s keys (and some it has not), objects inside read as objects or not. */
function shapeOf(value: unknown, random: () => number): Shape {
  const shape: Record<string, true | Shape> = { absent: true };
  const objects = (Array.isArray(value) ? value : [value]).filter((v) => v !== null && typeof v === 'object');
  for (const o of objects) {
    for (const [k, v] of Object.entries(o as object)) {
      if (random() < 0.3 || k in shape) continue;
      shape[k] = v !== null && typeof v === 'object' && random() < 0.7 ? shapeOf(v, random) : true;
    }
  }
  return shape;
}

/** JSON text of objects with the shape's keys (and others), sometimes damaged. */
function randomJson(random: () => number, depth: number, shape: Shape): string {
  const keys = [...Object.keys(shape), 'x', 'a\\"'];
  const value = (d: number): string => {
    const r = random();
    if (d > 0 && r < 0.25) return randomJson(random, d - 1, shape);
    if (d > 0 && r < 0.4) return `[${Array.from({ length: Math.floor(random() * 3) }, () => value(d - 1)).join(', ')}]`;
    return ['1', '-2.5e3', '"s\\"q"', 'true', 'null', '"é"', '01', 'nul', '{}', '[]'][Math.floor(random() * 10)]!;
  };
  const members = Array.from(
    { length: Math.floor(random() * 5) },
    () => `${JSON.stringify(keys[Math.floor(random() * keys.length)])} :${value(depth)}`,
  );
  const text = ` {${members.join(random() < 0.9 ? ',' : ' ')}} `;
  return random() < 0.1 ? text.slice(0, Math.floor(random() * text.length)) : text;
}

describe('the scanner in WebAssembly (skip.c)', () => {
  it('runs here: the reader reads its lines into its memory', () => {
    const dir = tempDir();
    const path = join(dir, 'a.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":[2]}\n');
    const offsets: number[] = [];
    readLines(path, 0, (line) => offsets.push(nativeOffset(line)));
    expect(offsets).toHaveLength(2);
    expect(offsets.every((o) => o > 0)).toBe(true);
    expect(scanRecord(native(Buffer.from('{"a":{"b":"c\\"d"},"e":true}')), { e: true })?.isTrue('e')).toBe(true);
  });

  it('ends every value where scan.ts ends it: random bytes, at every offset', () => {
    const random = seeded(1);
    const found: string[] = [];
    for (let n = 0; n < 4000 && found.length < 5; n++) {
      found.push(...disagreements(randomBytes(random, 1 + Math.floor(random() * 60))));
    }
    expect(found.slice(0, 5)).toEqual([]);
  });

  it('ends every string where scan.ts ends it: long ones, escapes dense and sparse, from every quote', () => {
    const random = seeded(3);
    const found: string[] = [];
    for (let n = 0; n < 3000 && found.length < 5; n++) {
      // Quotes rare or not, backslashes alone and in runs: 1 byte in 2 to 1 in 500 a quote.
      const quotes = 0.002 + random() * 0.5;
      const backslashes = random() * 0.8;
      const body = Buffer.alloc(Math.floor(random() * 400));
      for (let i = 0; i < body.length; i++) {
        const r = random();
        body[i] = r < quotes ? 34 : r < quotes + backslashes ? 92 : 97;
      }
      found.push(...disagreements(Buffer.concat([Buffer.from('"'), body]), (b, i) => b[i] === 34));
    }
    expect(found.slice(0, 5)).toEqual([]);
  });

  it('ends every value where scan.ts ends it: JSON, whole and cut, at every offset', () => {
    const random = seeded(2);
    const texts = [
      '{"a":"x\\\\","b":[1,-2.5e+3,true,false,null,{"c":"\\"q\\""}],"d":"' + 'long text '.repeat(20) + '\\n"}',
      '[0, 01, -0.5, 1e, 1E-2, tru, nul, falsey, NaN, Infinity, "é\\u00e9"]',
      '{"s":"' + 'x\\"'.repeat(40) + '"}',
      '{"s":"' + '\\\\'.repeat(33) + '"}',
    ];
    const found: string[] = [];
    for (const text of texts) {
      for (let cut = text.length; cut > 0 && found.length < 5; cut -= 1 + Math.floor(random() * 7)) {
        found.push(...disagreements(Buffer.from(text.slice(0, cut))));
      }
    }
    expect(found.slice(0, 5)).toEqual([]);
  });

  it('ends every value where scan.ts ends it: the real CLIs’ lines, wherever a value may start', () => {
    const lines = capturedLines();
    expect(lines.length).toBeGreaterThan(100);
    const found = lines.flatMap((l) => disagreements(l, valueStart).slice(0, 1));
    expect(found.slice(0, 5)).toEqual([]);
  });

  it('finds in a line what scan.ts finds, a shape made of its own keys: the real CLIs’ lines, whole and cut', () => {
    const random = seeded(4);
    const found: string[] = [];
    for (const line of capturedLines()) {
      const shape = shapeOf(JSON.parse(line.toString()) as unknown, random);
      for (const cut of [line.length, Math.floor(random() * line.length)]) {
        const disagreement = scanDisagreement(line.subarray(0, cut), shape);
        if (disagreement) found.push(disagreement);
      }
    }
    expect(found.slice(0, 3)).toEqual([]);
  });

  it('finds in a line what scan.ts finds: random bytes and random JSON', () => {
    const random = seeded(5);
    const shape: Shape = { a: true, b: { a: true, c: { d: true } }, c: { a: true }, '': true, é: true };
    const found: string[] = [];
    for (let n = 0; n < 20000 && found.length < 3; n++) {
      const bytes =
        n % 2 === 0 ? randomBytes(random, Math.floor(random() * 40)) : Buffer.from(randomJson(random, 3, shape));
      const disagreement = scanDisagreement(bytes, shape);
      if (disagreement) found.push(disagreement);
    }
    expect(found.slice(0, 3)).toEqual([]);
  });

  it('leaves a line with more members asked for than its records hold to scan.ts', () => {
    const shape: Shape = { a: { b: true } };
    const bytes = Buffer.from(JSON.stringify({ a: Array.from({ length: 5000 }, () => ({ b: 1, c: 2 })) }));
    const read = scanRecord(native(bytes), shape)!;
    expect(read.items('a')).toHaveLength(5000);
    expect(read.items('a')![4999]!.number('b')).toBe(1);
    expect(tree(read)).toBe(tree(scanRecord(Buffer.from(bytes), shape)));
  });

  it('is what scripts/build-skip.sh builds from skip.c (with the clang it names; with another, a module of the same functions)', () => {
    const out = join(tempDir(), 'skip-wasm.ts');
    const built = spawnSync(join(root, 'scripts/build-skip.sh'), [out], { encoding: 'utf8' });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const fresh = readFileSync(out, 'utf8');
    const committed = readFileSync(join(root, 'src/readers/skip-wasm.ts'), 'utf8');
    const compiler = (text: string) => text.split('\n')[0];
    if (compiler(fresh) === compiler(committed)) expect(fresh).toBe(committed);
    else {
      const module = new WebAssembly.Module(Buffer.from(/'([^']+)'/.exec(fresh)![1]!, 'base64'));
      expect(WebAssembly.Module.exports(module).map((e) => e.name)).toEqual([
        'memory',
        'valueEnd',
        'scanRecord',
        '__heap_base',
      ]);
    }
  });
});
