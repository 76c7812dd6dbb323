// One forward pass over a JSON record's bytes, yielding only the fields a reader asks for.
//
// Session records are mostly text nobody counts (file contents, command output, prompts); the
// few facts a reader needs (a type, a timestamp, a usage, a call id) sit among them. `JSON.parse`
// would decode every byte into strings; this scanner walks the line once, jumps over strings
// (natively, once they are long), descends only into the members a `Shape` names and remembers
// where their values are. The reader then decodes just those values. It reads JSON however it
// is spaced, and a line that is not a JSON object is not read at all (the reader counts it).
//
// A line in skip.ts's memory (the reader's buffer, lines.ts) is walked in WebAssembly (skip.c), and
// its fields built here from what that found. The JavaScript below walks every other line (a
// document's, a database row's), and is skip.c's specification: test/readers/skip.test.ts
// compares the two.

import { lineCount, numberOf, time } from './fields.js';
import { nativeOffset, nativeRecords, nativeScan, nativeShape } from './skip.js';

/**
 * The members of an object to read: `true` for a value read as is, or the shape of an object
 * inside (applied to each element when the value is an array of objects).
 */
export interface Shape {
  readonly [key: string]: true | Shape;
}

interface Member {
  start: number;
  end: number;
  object: Fields | undefined;
  items: Fields[] | undefined;
}

/** A member found. One shape for every member: three made each reader's reads of them polymorphic. */
function member(start: number, end: number, object?: Fields, items?: Fields[]): Member {
  return { start, end, object, items };
}

/**
 * A shape prepared for matching keys on their bytes, so that keys not asked for cost no string.
 * Keys are matched as written (no harness escapes the letters of a key).
 */
class Compiled {
  readonly keys: string[];
  /** The shape of each key's value where it is read as an object (or array of them), compiled once. */
  readonly wants: (true | Compiled)[];
  readonly bytes: Buffer[];
  readonly index = new Map<string, number>();
  /** Indexes of the keys by their length in bytes. */
  readonly byLength: number[][] = [];
  /** Where the shape is written for the native scan (skip.ts), once asked; 0 where there is none. */
  native: number | undefined;
  /** The short ASCII text each key last had (`Fields.text`): a record's type, folder or model, line after line. */
  readonly lastText: (string | undefined)[];

  constructor(shape: Shape) {
    this.keys = Object.keys(shape);
    this.wants = this.keys.map((k) => {
      const want = shape[k]!;
      return want === true ? true : compile(want);
    });
    this.bytes = this.keys.map((k) => Buffer.from(k, 'latin1'));
    this.lastText = this.keys.map(() => undefined);
    this.keys.forEach((k, i) => {
      this.index.set(k, i);
      (this.byLength[this.bytes[i]!.length] ??= []).push(i);
    });
  }

  /** The index of the key written at [start, end) of `b`, or -1 when it is not asked for. */
  find(b: Buffer, start: number, end: number): number {
    const candidates = this.byLength[end - start];
    if (candidates === undefined) return -1;
    next: for (const i of candidates) {
      const key = this.bytes[i]!;
      for (let j = 0; j < key.length; j++) if (b[start + j] !== key[j]) continue next;
      return i;
    }
    return -1;
  }
}

const compiled = new WeakMap<Shape, Compiled>();

function compile(shape: Shape): Compiled {
  let c = compiled.get(shape);
  if (!c) compiled.set(shape, (c = new Compiled(shape)));
  return c;
}

// Short ASCII texts decoded before, by their bytes' hash: a record's type, model, folder and branch,
// the same on line after line, are each one string, not one a line (a tenth of a first read went
// to making them). Emptied when full.
const INTERNED_LENGTH = 64;
const INTERNED_TEXTS = 4096;
const interned = new Map<number, string>();

/** Whether `text` (ASCII) is the bytes at [start, end) of `b`. */
function sameAscii(text: string, b: Buffer, start: number, end: number): boolean {
  if (text.length !== end - start) return false;
  for (let i = start; i < end; i++) if (text.charCodeAt(i - start) !== b[i]) return false;
  return true;
}

/** The members a `Shape` asked for of one object, as found in the line. */
export class Fields {
  /** By the index of their key in the shape; duplicate keys: the last wins, as with JSON.parse. */
  readonly found: (Member | undefined)[];

  constructor(
    private readonly line: Buffer,
    readonly shape: Compiled,
  ) {
    // As long as the shape from the start: an empty array grown by its first member took room for 30.
    this.found = new Array<Member | undefined>(shape.keys.length);
  }

  private get(key: string): Member | undefined {
    const i = this.shape.index.get(key);
    return i === undefined ? undefined : this.found[i];
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** What kind of JSON value a member is (from its first byte, nothing decoded); undefined when absent. */
  kind(key: string): 'string' | 'number' | 'object' | 'array' | 'boolean' | 'null' | undefined {
    const m = this.get(key);
    if (!m) return undefined;
    const c = this.line[m.start];
    return c === 34
      ? 'string'
      : c === 123
        ? 'object'
        : c === 91
          ? 'array'
          : c === 110
            ? 'null'
            : c === 116 || c === 102
              ? 'boolean'
              : 'number';
  }

  /** A string member, decoded; undefined when absent or not a string. */
  text(key: string): string | undefined {
    const i = this.shape.index.get(key);
    const m = i === undefined ? undefined : this.found[i];
    const b = this.line;
    if (!m || b[m.start] !== 34) return undefined;
    const start = m.start + 1;
    const end = m.end - 1;
    // The key's text of the line before, compared: no hash, no lookup.
    const last = this.shape.lastText[i!];
    if (last !== undefined && sameAscii(last, b, start, end)) return last;
    // The bytes' hash, and whether they are all ASCII, on the way.
    let hash = end - start;
    let ascii = true;
    for (let i = start; i < end; i++) {
      const c = b[i]!;
      if (c === 92) return decode(b, m.start, m.end) as string | undefined; // escapes
      if (c > 127) ascii = false;
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    if (!ascii || end - start > INTERNED_LENGTH) return b.toString('utf8', start, end);
    const known = interned.get(hash);
    if (known !== undefined && sameAscii(known, b, start, end)) return (this.shape.lastText[i!] = known);
    const text = b.toString('latin1', start, end);
    if (interned.size === INTERNED_TEXTS) interned.clear();
    interned.set(hash, text);
    return (this.shape.lastText[i!] = text);
  }

  /**
   * The number of lines of a string member, as `lineCount` counts them, counted on its bytes: a
   * file's whole content is not decoded to count its newlines. Undefined when absent or not a string.
   */
  lineCount(key: string): number | undefined {
    const m = this.get(key);
    const b = this.line;
    if (!m || b[m.start] !== 34) return undefined;
    const close = m.end - 1;
    if (close === m.start + 1) return 0;
    let newlines = 0;
    let endsWithNewline = false;
    for (let i = m.start + 1; i < close; i++) {
      if (b[i] !== 92) {
        endsWithNewline = false;
        continue;
      }
      const escaped = b[++i];
      if (escaped === 117) return lineCount(this.text(key)!); // \u…, which may be a newline: decoded
      endsWithNewline = escaped === 110;
      if (endsWithNewline) newlines++;
    }
    return newlines + (endsWithNewline ? 0 : 1);
  }

  /**
   * A string member read as a time, as `time` (fields.ts) reads the decoded text: milliseconds, or
   * undefined. Nearly every record has one, nearly always as `2026-01-05T01:40:49.315Z`: that form
   * is read on its bytes (no string, no Date.parse), any other is decoded and parsed.
   */
  time(key: string): number | undefined {
    const m = this.get(key);
    if (!m) return undefined;
    const quoted = m.end - m.start === 26 && this.line[m.start] === 34 && this.line[m.end - 1] === 34;
    return (quoted ? isoTime(this.line, m.start + 1) : undefined) ?? time(this.text(key));
  }

  /** A number member; undefined when absent or not a number. */
  number(key: string): number | undefined {
    const m = this.get(key);
    const c = m ? this.line[m.start]! : 0;
    if (!m || !(c === 45 || (c >= 48 && c <= 57))) return undefined;
    const n = Number(this.line.toString('latin1', m.start, m.end));
    return Number.isNaN(n) ? undefined : n;
  }

  /**
   * A count as `numberOf` (fields.ts) reads the decoded value: a number, or a string of digits; 0
   * when absent or `null`; NaN for anything else. A whole number of up to 15 digits is read on its
   * bytes, with no string made.
   */
  count(key: string): number {
    const m = this.get(key);
    if (!m) return 0;
    const c = this.line[m.start]!;
    const n = m.end - m.start <= 15 ? digits(this.line, m.start, m.end) : -1;
    if (n !== -1) return n;
    if (c === 45 || (c >= 48 && c <= 57)) return Number(this.line.toString('latin1', m.start, m.end));
    return c === 34 ? numberOf(this.text(key)) : c === 110 ? 0 : Number.NaN;
  }

  /** Whether a member is the literal `true`. */
  isTrue(key: string): boolean {
    const m = this.get(key);
    return m !== undefined && m.end - m.start === 4 && this.line[m.start] === 116;
  }

  /** A member decoded with `JSON.parse` (small values: a usage, a plan); undefined if it will not parse. */
  value(key: string): unknown {
    const m = this.get(key);
    return m ? decode(this.line, m.start, m.end) : undefined;
  }

  /** A member's bytes as written (to compare with another line's without decoding). */
  raw(key: string): string | undefined {
    const m = this.get(key);
    return m ? this.line.toString('latin1', m.start, m.end) : undefined;
  }

  /** Where a member's value starts and ends in the line. */
  span(key: string): { start: number; end: number } | undefined {
    return this.get(key);
  }

  /** An object member read with its shape; undefined when absent or not an object. */
  object(key: string): Fields | undefined {
    return this.get(key)?.object;
  }

  /** The objects of an array member, read with its shape (other elements left out); undefined when not an array. */
  items(key: string): Fields[] | undefined {
    return this.get(key)?.items;
  }
}

/**
 * Reads a line holding one JSON object (whitespace around it allowed): the members `shape`
 * names, or undefined when the line is not a well-formed JSON object (binary, cut, `null`, a
 * number, an array). Values not asked for are checked for balance, not decoded.
 */
export function scanRecord(line: Buffer, shape: Shape): Fields | undefined {
  const compiled = compile(shape);
  const offset = nativeOffset(line);
  if (offset !== -1) {
    const at = (compiled.native ??= nativeShape(compiled));
    // -2: more found than there is room for; the line is walked here.
    const found = at === 0 ? -2 : nativeScan(offset, line.length, at);
    if (found === -1) return undefined;
    if (found !== -2) return fieldsOf(line, compiled, found);
  }
  const fields = new Fields(line, compiled);
  const end = scanObject(line, skipSpace(line, 0), fields);
  return end !== -1 && skipSpace(line, end) === line.length ? fields : undefined;
}

/** The fields of a line from the records of its native scan (skip.c says what a record is). */
function fieldsOf(line: Buffer, shape: Compiled, found: number): Fields {
  const records = nativeRecords;
  const top = new Fields(line, shape);
  const objects: Fields[] = [top];
  const arrays: { items: Fields[]; shape: Compiled }[] = [];
  for (let r = 0; r < 5 * found; r += 5) {
    const owner = records[r]!;
    const key = records[r + 1]!;
    const start = records[r + 2]!;
    const end = records[r + 3]!;
    const readAs = records[r + 4]!;
    if (key === -1) {
      const array = arrays[owner]!;
      const item = new Fields(line, array.shape);
      objects[readAs] = item;
      array.items.push(item);
      continue;
    }
    const into = objects[owner]!;
    if (readAs === -1) {
      into.found[key] = member(start, end);
    } else if (line[start] === 123) {
      const object = new Fields(line, into.shape.wants[key] as Compiled);
      objects[readAs] = object;
      into.found[key] = member(start, end, object);
    } else {
      const items: Fields[] = [];
      arrays[readAs] = { items, shape: into.shape.wants[key] as Compiled };
      into.found[key] = member(start, end, undefined, items);
    }
  }
  return top;
}

/** The digits at [from, to) of `b` as a number, or -1 when one is not a digit. */
function digits(b: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = b[i]! - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ` at `i` (UTC, milliseconds), as Date.parse reads it; undefined for
 * anything else, also a valid time outside the ranges checked here (left to Date.parse).
 */
function isoTime(b: Buffer, i: number): number | undefined {
  if (
    b[i + 4] !== 45 ||
    b[i + 7] !== 45 ||
    b[i + 10] !== 84 ||
    b[i + 13] !== 58 ||
    b[i + 16] !== 58 ||
    b[i + 19] !== 46 ||
    b[i + 23] !== 90
  )
    return undefined;
  const year = digits(b, i, i + 4);
  const month = digits(b, i + 5, i + 7);
  const day = digits(b, i + 8, i + 10);
  const hour = digits(b, i + 11, i + 13);
  const minute = digits(b, i + 14, i + 16);
  const second = digits(b, i + 17, i + 19);
  const ms = digits(b, i + 20, i + 23);
  // Years below 100 would be 19xx to Date.UTC; days past the 28th are checked by Date.parse.
  if (
    year < 100 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 28 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    ms < 0
  )
    return undefined;
  return (((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60 + second) * 1000 + ms;
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (year 100 on), as Date.UTC
 * counts them, in integer arithmetic (H. Hinnant's days_from_civil): Date.UTC, a call into the
 * runtime, cost more than the rest of reading a time.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function decode(line: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(line.toString('utf8', start, end)) as unknown;
  } catch {
    return undefined;
  }
}

function skipSpace(b: Buffer, i: number): number {
  for (let c = b[i]; c === 32 || c === 10 || c === 13 || c === 9; c = b[++i]);
  return i;
}

// A string is scanned byte by byte for this many bytes, then searched with `indexOf`, whose call
// costs as much as comparing a few bytes here but then runs natively; after an escaped quote
// (text holding quotes, such as code, holds many close together) byte by byte again.
const BYTEWISE = 16;

/** The end (after the closing quote) of the string whose opening quote is at `i`; -1 if cut. */
export function stringEnd(b: Buffer, i: number): number {
  let j = i + 1;
  for (;;) {
    for (const stop = Math.min(b.length, j + BYTEWISE); j < stop; j++) {
      const c = b[j];
      if (c === 34) return j + 1;
      if (c === 92) j++;
    }
    const q = b.indexOf(34, j);
    if (q === -1) return -1;
    // The quote ends the string unless an odd run of backslashes escapes it.
    let k = q - 1;
    while (b[k] === 92) k--;
    if ((q - k) % 2 === 1) return q + 1;
    j = q + 1;
  }
}

// Bytes counted between two steps of `valuesAtMost` (a millisecond or two).
const COUNTED_A_STEP = 1 << 20;

/**
 * Whether the JSON text `b` holds at most `max` values, told without decoding it (a bound: the
 * commas and opening brackets outside strings). What parsing it would cost is in its values.
 * Step by step, a step a megabyte: the caller may give the event loop a turn at each.
 */
export function* valuesAtMost(b: Buffer, max: number): Generator<void, boolean, void> {
  let values = 0;
  for (let i = 0, step = COUNTED_A_STEP; i < b.length; i++) {
    if (i >= step) {
      step = i + COUNTED_A_STEP;
      yield;
    }
    const c = b[i];
    if (c === 34) {
      const end = stringEnd(b, i);
      if (end === -1) return true; // cut: no JSON, which the parse tells
      i = end - 1;
    } else if ((c === 44 || c === 91 || c === 123) && ++values > max) return false;
  }
  return true;
}

/**
 * The end of the value starting at `i` (not asked for: only its balance is checked, and that its
 * numbers and literals are JSON's); -1 if malformed.
 */
export function valueEnd(b: Buffer, i: number): number {
  const c = b[i];
  if (c === 34) return stringEnd(b, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j]!;
      if (d === 34) {
        j = stringEnd(b, j) - 1;
        if (j < 0) return -1;
      } else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        if (--depth === 0) return j + 1;
      } else if (d === 45 || (d >= 48 && d <= 57) || (d >= 97 && d <= 122) || (d >= 65 && d <= 90)) {
        j = literalEnd(b, j) - 1;
        if (j < 0) return -1;
      }
    }
    return -1;
  }
  return literalEnd(b, i);
}

const DIGIT = (d: number | undefined) => d !== undefined && d >= 48 && d <= 57;
const LITERALS = ['true', 'false', 'null'].map((l) => Buffer.from(l, 'latin1'));

/**
 * The end of a number or a literal at `i`, as JSON writes them; -1 for anything else. `NaN`,
 * `Infinity`, `0x10` or `01` (Python's json.dumps writes the first two) make a line no JSON, as
 * `JSON.parse` has it: counted as `parse_error`, never read as a value that is absent.
 */
function literalEnd(b: Buffer, i: number): number {
  let j = i;
  const literal = LITERALS.find((l) => b[i] === l[0]);
  if (literal) {
    if (b.length < i + literal.length || b.compare(literal, 0, literal.length, i, i + literal.length) !== 0) return -1;
    j = i + literal.length;
  } else {
    if (b[j] === 45) j++;
    if (b[j] === 48) j++;
    else if (DIGIT(b[j])) while (DIGIT(b[j])) j++;
    else return -1;
    if (b[j] === 46) {
      if (!DIGIT(b[++j])) return -1;
      while (DIGIT(b[j])) j++;
    }
    if (b[j] === 101 || b[j] === 69) {
      if (b[j + 1] === 43 || b[j + 1] === 45) j++;
      if (!DIGIT(b[++j])) return -1;
      while (DIGIT(b[j])) j++;
    }
  }
  // What follows ends the value (a delimiter or the end), or the value was not what it seemed.
  const d = b[j];
  return d === undefined || d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9 ? j : -1;
}

/** Reads the object at `i` into `into`; returns its end, or -1 if malformed. */
function scanObject(b: Buffer, i: number, into: Fields): number {
  if (b[i] !== 123) return -1;
  const shape = into.shape;
  i = skipSpace(b, i + 1);
  if (b[i] === 125) return i + 1;
  for (;;) {
    if (b[i] !== 34) return -1;
    const keyEnd = stringEnd(b, i);
    if (keyEnd === -1) return -1;
    const k = shape.find(b, i + 1, keyEnd - 1);
    i = skipSpace(b, keyEnd);
    if (b[i] !== 58) return -1;
    const start = skipSpace(b, i + 1);
    const end = k === -1 ? valueEnd(b, start) : wanted(b, start, shape.wants[k]!, k, into);
    if (end === -1) return -1;
    i = skipSpace(b, end);
    if (b[i] === 44) i = skipSpace(b, i + 1);
    else return b[i] === 125 ? i + 1 : -1;
  }
}

/** Reads a member asked for (descending when its shape says so) and records it; returns its end. */
function wanted(b: Buffer, start: number, shape: true | Compiled, k: number, into: Fields): number {
  if (shape === true || (b[start] !== 123 && b[start] !== 91)) {
    const end = valueEnd(b, start);
    if (end !== -1) into.found[k] = member(start, end);
    return end;
  }
  if (b[start] === 123) {
    const object = new Fields(b, shape);
    const end = scanObject(b, start, object);
    if (end !== -1) into.found[k] = member(start, end, object);
    return end;
  }
  const items: Fields[] = [];
  let i = skipSpace(b, start + 1);
  if (b[i] === 93) {
    into.found[k] = member(start, i + 1, undefined, items);
    return i + 1;
  }
  for (;;) {
    let end: number;
    if (b[i] === 123) {
      const item = new Fields(b, shape);
      end = scanObject(b, i, item);
      items.push(item);
    } else {
      end = valueEnd(b, i);
    }
    if (end === -1) return -1;
    i = skipSpace(b, end);
    if (b[i] === 44) i = skipSpace(b, i + 1);
    else if (b[i] === 93) break;
    else return -1;
  }
  into.found[k] = member(start, i + 1, undefined, items);
  return i + 1;
}
