// Incremental reading of append-only JSONL files: only the bytes after the last committed offset,
// synchronously into one reused buffer (fs streams and per-line strings cost several times more
// on large histories). A half-written last line is left for the next read.

import { closeSync, readSync } from 'node:fs';
import { openRegular } from '../files/open.js';
import { jsonObject, type Json } from './fields.js';
import { nativeBuffer } from './skip.js';

const CHUNK = 1 << 20;
// A line longer than this is skipped (counted), so that no file is ever held in memory whole.
export const MAX_LINE = 16 << 20;
// In skip.ts's memory (2 MB) where WebAssembly runs, so that the scanner reads a line where it is;
// a line too long for it is read into a larger buffer, given back after the file.
const home = nativeBuffer ?? Buffer.allocUnsafe(2 * CHUNK);
let shared = home;

export interface ReadResult {
  /** Offset just after the last complete line consumed. */
  offset: number;
  bytesRead: number;
  /** Lines longer than the limit, skipped. */
  longLines: number;
  /** A read that failed part way; `offset` still says how far lines were consumed. */
  error?: Error;
}

/**
 * Calls `onLine` for every complete line from `offset` on (without the newline). The line is a
 * view into a reused buffer, valid only during the call: readers read it with the shared scanner
 * (scan.ts), which decodes only the fields they ask for.
 */
export function readLines(path: string, offset: number, onLine: (line: Buffer, at: number) => void): ReadResult {
  const result: ReadResult = { offset, bytesRead: 0, longLines: 0 };
  let fd: number;
  try {
    fd = openRegular(path);
  } catch (e) {
    return { ...result, error: e as Error };
  }
  let carry = 0; // bytes of an unfinished line at the start of `shared`
  let skipping = false; // inside a line over the limit, dropped until its newline
  try {
    for (;;) {
      if (shared.length - carry < CHUNK) {
        // A line longer than the buffer: grow it (bounded by the longest line, not the file).
        const bigger = Buffer.allocUnsafe(shared.length * 2);
        shared.copy(bigger, 0, 0, carry);
        shared = bigger;
      }
      const n = readSync(fd, shared, carry, shared.length - carry, result.offset + carry);
      if (n === 0) break;
      result.bytesRead += n;
      const filled = shared.subarray(0, carry + n);
      let start = 0;
      for (let nl = filled.indexOf(10); nl !== -1; nl = filled.indexOf(10, start)) {
        if (skipping) skipping = false;
        else if (nl > start) onLine(filled.subarray(start, nl), result.offset + start);
        start = nl + 1;
      }
      result.offset += start;
      carry = filled.length - start;
      if (carry >= MAX_LINE || (skipping && carry > 0)) {
        if (!skipping) result.longLines++;
        skipping = true;
        result.offset += carry;
        carry = 0;
      } else if (carry > 0 && start > 0) {
        shared.copy(shared, 0, start, filled.length);
      }
    }
  } catch (e) {
    result.error = e as Error;
  } finally {
    closeSync(fd);
    // Give back the memory a very long line took.
    shared = home;
  }
  return result;
}

/** Parses one line as a JSON object, or returns undefined. */
export function parseJson(line: Buffer): Json | undefined {
  return jsonObject(line.toString('utf8'));
}
