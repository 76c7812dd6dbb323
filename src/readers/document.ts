// A session that is one JSON document, rewritten whole, is parsed whole at every rewrite, and what
// a parse costs is the document's values, not its bytes: 32 MB of `{},` is 11 million objects,
// 1.1 GB and half a minute of JSON.parse and reading on the thread that answers scrapes. A
// document is parsed only where it holds at most one value per 16 bytes (the densest real ones,
// small metadata documents such as a Cline task's, hold one per 24 to 26; transcripts, mostly
// text, far fewer), so that its parse takes memory in proportion to its size (32 MB at that
// density: 250 MB), and time with it; a denser one is skipped as `file_too_large`, unparsed.
//
// Even so, one JSON.parse of a 32 MB document that dense took seconds. A large document is
// therefore parsed before its reader reads it (`parseAhead`, by the collector), a piece at a time
// (json-pieces.ts) with turns of the event loop between the pieces; its reader, synchronous as
// every reader is, is handed the value parsed.

import type { SessionEvents } from '../session/events.js';
import { jsonValue, obj, type Json } from './fields.js';
import { jsonPieces } from './json-pieces.js';
import { valuesAtMost } from './scan.js';

const BYTES_PER_VALUE = 16;
// A small document is parsed however dense: this many values cost a few megabytes.
const FEW_VALUES = 1 << 16;
// A document this large is parsed ahead in pieces; a smaller one, at once (in a few milliseconds).
const IN_PIECES = 1 << 20;
// How long the parse of a large document, or its reader's pass over it, runs between two turns of
// the event loop.
export const TURN_MS = 4;

/** A JSON text's value, or why it has none (a skip's reason). */
export type Parsed = { value: unknown } | 'file_too_large' | 'parse_error';

/** Large documents parsed ahead, until their reader takes their value. */
const parsedAhead = new WeakMap<Buffer, Parsed>();

/** Whether a JSON text holds few enough values to be parsed (step by step, as `valuesAtMost`). */
const fewEnough = (text: Buffer) => valuesAtMost(text, FEW_VALUES + text.length / BYTES_PER_VALUE);

function* parse(doc: Buffer, inPieces: boolean): Generator<void, Parsed, void> {
  if (!(yield* fewEnough(doc))) return 'file_too_large';
  const value = inPieces ? yield* jsonPieces(doc) : jsonValue(doc.toString('utf8'));
  return value === undefined ? 'parse_error' : { value };
}

/**
 * Parses a large document for its reader, with turns of the event loop while it does (a few
 * milliseconds apart); undefined for one small enough to be parsed when its reader asks.
 */
export function parseAhead(doc: Buffer): Promise<void> | undefined {
  if (doc.length < IN_PIECES) return undefined;
  return inTurns(parse(doc, true)).then((parsed) => void parsedAhead.set(doc, parsed));
}

async function inTurns<T>(steps: Generator<void, T, void>): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= TURN_MS) {
      await new Promise((r) => setImmediate(r));
      since = performance.now();
    }
  }
}

function atOnce<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The document's JSON value; undefined, counted as skipped, where it has none or too many values. */
export function documentValue(doc: Buffer, ev: SessionEvents): unknown {
  const parsed = parsedAhead.get(doc) ?? atOnce(parse(doc, false));
  parsedAhead.delete(doc); // the reader owns the value
  if (typeof parsed === 'string') {
    ev.skipped(parsed);
    return undefined;
  }
  return parsed.value;
}

/** The document's JSON object; undefined, counted as skipped, where it is none (as `documentValue`). */
export function documentObject(doc: Buffer, ev: SessionEvents): Json | undefined {
  const value = documentValue(doc, ev);
  if (value === undefined) return undefined;
  const o = obj(value);
  if (!o) ev.skipped('parse_error');
  return o;
}

/**
 * Whether JSON read whole that is no one document (a file of JSON lines, each parsed in turn) holds
 * few enough values to be parsed, by a document's bound; told at once.
 */
export function parsable(text: Buffer): boolean {
  return atOnce(fewEnough(text));
}

/**
 * A JSON value held in a store's row (Warp's conversations, Cursor's chats), parsed under a
 * document's bound, at once: its value, or why it has none, for its reader to count once per
 * version of the row (a row is read again while it may still change).
 */
export function rowJson(value: string | Uint8Array): Parsed {
  const text = typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.length);
  // A value takes a character at least (a bracket or a comma, one byte too): a text no longer than
  // the few values any text may hold is within the bound uncounted.
  if (value.length > FEW_VALUES && !parsable(typeof text === 'string' ? Buffer.from(text) : text))
    return 'file_too_large';
  const parsed = jsonValue(typeof text === 'string' ? text : text.toString('utf8'));
  return parsed === undefined ? 'parse_error' : { value: parsed };
}
