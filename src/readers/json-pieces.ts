// `JSON.parse` of a large document a piece at a time, so that the thread that answers scrapes
// gets turns while a document of tens of megabytes is parsed (one `JSON.parse` of 32 MB of small
// objects took 1.7 s, 6 s on a loaded machine). The value is the one `JSON.parse` gives, built
// from the values `JSON.parse` gives for the pieces: numbers, strings, escapes and surrogates are
// its own, not a copy of its rules. What is written here is only the frame: a forward pass over
// the bytes (no recursion: an explicit stack) follows the brackets, commas and colons, and checks
// their order as JSON's grammar has it. A container that closes within a piece's bytes is only
// stepped over (its brackets followed) and parsed whole, with its siblings, by one `JSON.parse`;
// one that grows past it is built here, member by member, its members parsed in runs of about a
// piece. Every byte is thus parsed once by
// `JSON.parse`, and no more is held than the value and a piece of text.

import { jsonValue } from './fields.js';
import { stringEnd } from './scan.js';

/** About how many bytes one `JSON.parse` is handed (a few milliseconds of a dense document). */
export const PIECE = 32 << 10;

// Bytes of spaces and tokens read between two steps, where no piece was parsed (in containers built here).
const TOKENS_A_STEP = 4096;

// What may come next in a container.
const OPENED = 0; // a value (a key in an object) or the closing bracket
const COMMA = 1; // after a comma: a value (a key in an object)
const KEY = 2; // after a key: its colon
const COLON = 3; // after a colon: a value
const VALUE = 4; // after a value: a comma or the closing bracket

interface Frame {
  /** Where its opening bracket is. */
  open: number;
  object: boolean;
  next: number;
  /** Its last comma, and in an object where the key of the member being read is. */
  comma: number;
  keyAt: number;
  keyEnd: number;
  /** Once it is built here: what it holds so far. */
  value?: unknown[] | Record<string, unknown>;
  /** Built here: where what it holds not parsed yet starts (after its bracket or a comma); -1 after a member built here, until the next comma. */
  from: number;
  /** Built here, an object: the key of its member being built here. */
  key?: string;
}

/** A member set as `JSON.parse` sets it: `__proto__` is an own key, not the prototype. */
function set(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/** Parses [from, to) of what a frame built here holds (members and the commas between them) into it. */
function parseRun(b: Buffer, f: Frame, to: number): void {
  const text = b.toString('utf8', f.from, to);
  if (Array.isArray(f.value)) {
    const items = JSON.parse(`[${text}]`) as unknown[];
    for (const v of items) f.value.push(v);
  } else {
    const members = JSON.parse(`{${text}}`) as Record<string, unknown>;
    for (const k of Object.keys(members)) set(f.value!, k, members[k]);
  }
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
// Bytes that end a number or a literal.
const ENDS = new Uint8Array(256);
for (const c of [32, 10, 13, 9, 44, 58, 91, 93, 123, 125, 34]) ENDS[c] = 1;

/**
 * `JSON.parse(b.toString('utf8'))`, or undefined where that throws, step by step: the caller may
 * give the event loop a turn at each step. `piece`: the bytes a `JSON.parse` is handed (a test
 * makes it small to build every container here).
 */
export function* jsonPieces(b: Buffer, piece = PIECE): Generator<void, unknown, void> {
  let i = 0;
  while (i < b.length && isSpace(b[i]!)) i++;
  // A document that is a string, a number or a literal is one value, parsed whole.
  if (b[i] !== 91 && b[i] !== 123) return jsonValue(b.toString('utf8'));
  try {
    return yield* containers(b, i, piece);
  } catch {
    return undefined; // a piece that is no JSON
  }
}

/** The value of the container at `i` (the document's), checked to be followed by nothing but spaces; throws where a piece is no JSON. */
function* containers(b: Buffer, i: number, piece: number): Generator<void, unknown, void> {
  const stack: Frame[] = [];
  // The frames built here: the first `built` of the stack (a container grown past a piece, and so those around it).
  let built = 0;
  let tokens = 0;
  let lookFrom = 0;
  const push = (at: number) =>
    void stack.push({ open: at, object: b[at] === 123, next: OPENED, comma: -1, keyAt: -1, keyEnd: -1, from: -1 });
  push(i++);
  for (;;) {
    if (++tokens === TOKENS_A_STEP) {
      tokens = 0;
      yield;
    }
    const c = b[i];
    if (c === undefined) return undefined; // cut
    if (isSpace(c)) {
      i++;
      continue;
    }
    const f = stack[stack.length - 1]!;
    const valueNext = f.object ? f.next === COLON : f.next === OPENED || f.next === COMMA;
    if (c === 34) {
      const end = stringEnd(b, i);
      if (end === -1) return undefined;
      if (f.object && (f.next === OPENED || f.next === COMMA)) {
        f.keyAt = i;
        f.keyEnd = end;
        f.next = KEY;
      } else if (valueNext) {
        f.next = VALUE;
      } else {
        return undefined;
      }
      i = end;
    } else if (c === 91 || c === 123) {
      if (!valueNext) return undefined;
      f.next = VALUE;
      // A container that closes within a piece is only stepped over: `JSON.parse` checks it with
      // the run it is in. Where one did not, none is looked ahead for until past where it looked.
      const end = i >= lookFrom ? closeWithin(b, i, piece) : -1;
      if (end !== -1) i = end;
      else {
        if (i >= lookFrom) lookFrom = i + piece + 1;
        push(i++);
      }
    } else if (c === 93 || c === 125) {
      if (f.object !== (c === 125) || (f.next !== OPENED && f.next !== VALUE)) return undefined;
      stack.pop();
      const wasBuilt = built > stack.length;
      if (wasBuilt) {
        built = stack.length;
        if (f.from !== -1) parseRun(b, f, i);
      }
      i++;
      const parent = stack[stack.length - 1];
      if (!parent) {
        // The document's container; one that never grew past a piece is parsed whole.
        const value: unknown = wasBuilt ? f.value : JSON.parse(b.toString('utf8', f.open, i));
        while (i < b.length && isSpace(b[i]!)) i++;
        return i === b.length ? value : undefined;
      }
      // A member built here goes into its container (built here too); one that was not is parsed with its siblings.
      if (wasBuilt) {
        if (Array.isArray(parent.value)) parent.value.push(f.value);
        else set(parent.value!, parent.key!, f.value);
      }
    } else if (c === 44) {
      if (f.next !== VALUE) return undefined;
      f.next = COMMA;
      f.comma = i;
      if (built === stack.length) {
        if (f.from === -1) {
          f.from = i + 1;
        } else if (i - f.from >= piece) {
          parseRun(b, f, i);
          f.from = i + 1;
          tokens = TOKENS_A_STEP - 1; // a step ends after a piece
        }
      }
      i++;
    } else if (c === 58) {
      if (f.next !== KEY) return undefined;
      f.next = COLON;
      i++;
    } else {
      // A number or a literal: what it is, `JSON.parse` tells when it parses the piece it is in.
      if (!valueNext) return undefined;
      f.next = VALUE;
      do i++;
      while (i < b.length && !ENDS[b[i]!]);
    }
    // Containers that have grown past a piece are built here from now on, the outer ones first.
    while (built < stack.length && i - stack[built]!.open > piece) build(b, stack, built++);
  }
}

/**
 * The end of the container at `i` where it closes within `limit` bytes; -1 where not (or cut).
 * Only its brackets are followed: whether what it holds is JSON, `JSON.parse` tells.
 */
function closeWithin(b: Buffer, i: number, limit: number): number {
  const stop = Math.min(b.length, i + limit + 1);
  let depth = 0;
  for (let j = i; j < stop; j++) {
    const c = b[j];
    if (c === 34) {
      j = stringEnd(b, j) - 1;
      if (j < 0) return -1;
    } else if (c === 91 || c === 123) {
      depth++;
    } else if ((c === 93 || c === 125) && --depth === 0) {
      return j + 1;
    }
  }
  return -1;
}

/** The frame at `k` of the stack is built here from now on: what its container holds before it is parsed. */
function build(b: Buffer, stack: Frame[], k: number): void {
  const f = stack[k]!;
  f.value = f.object ? {} : [];
  f.from = f.open + 1;
  const parent = stack[k - 1];
  if (!parent) return;
  // The parent's members before this one, up to the comma before it.
  if (parent.from !== -1 && parent.comma >= parent.from) parseRun(b, parent, parent.comma);
  parent.from = -1;
  if (parent.object) parent.key = JSON.parse(b.toString('utf8', parent.keyAt, parent.keyEnd)) as string;
}
