// A session that is one JSON document, rewritten whole, is parsed whole at every rewrite, and what
// a parse costs is the document's values, not its bytes: 32 MB of `{},` is 11 million objects,
// 1.1 GB and half a minute of JSON.parse and reading on the thread that answers scrapes. A
// document is parsed only where it holds at most one value per 16 bytes (the densest real ones,
// small metadata documents such as a Cline task's, hold one per 24 to 26; transcripts, mostly
// text, far fewer), so that its parse takes memory in proportion to its size (32 MB at that
// density: 250 MB), and time with it; a denser one is skipped as `file_too_large`, unparsed.

import type { SessionEvents } from '../session/events.js';
import { jsonValue, obj, type Json } from './fields.js';
import { valuesAtMost } from './scan.js';

const BYTES_PER_VALUE = 16;
// A small document is parsed however dense: this many values cost a few megabytes.
const FEW_VALUES = 1 << 16;

/** The document's JSON value; undefined, counted as skipped, where it has none or too many values. */
export function documentValue(doc: Buffer, ev: SessionEvents): unknown {
  if (!valuesAtMost(doc, FEW_VALUES + doc.length / BYTES_PER_VALUE)) {
    ev.skipped('file_too_large');
    return undefined;
  }
  const value = jsonValue(doc.toString('utf8'));
  if (value === undefined) ev.skipped('parse_error');
  return value;
}

/** The document's JSON object; undefined, counted as skipped, where it is none (as `documentValue`). */
export function documentObject(doc: Buffer, ev: SessionEvents): Json | undefined {
  const value = documentValue(doc, ev);
  if (value === undefined) return undefined;
  const o = obj(value);
  if (!o) ev.skipped('parse_error');
  return o;
}
