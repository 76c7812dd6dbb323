// The scanner in WebAssembly (skip.c, built into skip-wasm.ts): one instance per thread, whose
// memory holds the reader's line buffer (lines.ts), so that a line is read where it was read into,
// never copied; the shapes readers ask for, written there once; and what a line's scan found.

import { SKIP_WASM } from './skip-wasm.js';

interface Exports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  /** skip.c's value_end: the end of the value at `i` of the `length` bytes at `line`, or -1. */
  valueEnd(line: number, i: number, length: number): number;
  /** skip.c's scan_record: the number of records found, -1 for no JSON object, -2 when they would not fit. */
  scanRecord(line: number, length: number, shape: number, records: number, room: number): number;
}

/** A shape as skip.c reads it: its keys' bytes, and each key's shape where its value is read as an object. */
export interface NativeShape {
  readonly bytes: readonly Buffer[];
  readonly wants: readonly (true | NativeShape)[];
}

const PAGE = 65536;
// Memory past the module's own, to the end of its first page: the shapes. Then the lines' buffer,
// then the records of a line's scan.
const BUFFER_AT = PAGE;
const BUFFER_SIZE = 2 << 20;
const RECORDS_AT = BUFFER_AT + BUFFER_SIZE;
/** The records one line's scan may find (five numbers each); a line with more is read by scan.ts. */
const ROOM = 4096;

function instantiate(): Exports | undefined {
  try {
    const native = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(SKIP_WASM, 'base64')))
      .exports as never as Exports;
    native.memory.grow(Math.ceil((BUFFER_SIZE + ROOM * 20) / PAGE));
    return native;
  } catch {
    return undefined; // no WebAssembly (or no SIMD) here: the scanner reads in JavaScript
  }
}

const native = instantiate();

/**
 * 2 MB in the module's memory, for the reader's lines (lines.ts), which the scanner then reads
 * natively; undefined where WebAssembly cannot run. The memory never grows again, so the buffer
 * stays valid for the thread's life.
 */
export const nativeBuffer: Buffer | undefined = native && Buffer.from(native.memory.buffer, BUFFER_AT, BUFFER_SIZE);

const memory = nativeBuffer?.buffer;
/** What the last scan found (`nativeScan`), five numbers a record. */
export const nativeRecords: Int32Array = native
  ? new Int32Array(native.memory.buffer, RECORDS_AT, ROOM * 5)
  : new Int32Array(0);

/** Where `line` starts in the module's memory, or -1 when it is not there. */
export function nativeOffset(line: Buffer): number {
  return line.buffer === memory ? line.byteOffset : -1;
}

/**
 * The end of the value at `i` of the `length` bytes at `offset` (nativeOffset) of the module's
 * memory, or -1: skip.c's pass over a value alone, which tests compare with scan.ts's valueEnd.
 */
export function nativeValueEnd(offset: number, i: number, length: number): number {
  return native!.valueEnd(offset, i, length);
}

/**
 * Scans the `length` bytes at `offset` with the shape at `shape` (`nativeShape`): the number of
 * records written to `nativeRecords`, -1 when they are not one JSON object, -2 when they would not fit.
 */
export function nativeScan(offset: number, length: number, shape: number): number {
  return native!.scanRecord(offset, length, shape, RECORDS_AT, ROOM);
}

// Where the next shape is written, and the end of the room for them.
let shapesAt = native ? align(native.__heap_base.value as number) : 0;
const SHAPES_END = BUFFER_AT;
const written = new WeakMap<NativeShape, number>();

function align(n: number): number {
  return (n + 7) & ~7;
}

/**
 * Where `shape` is in the module's memory, written there the first time (with the shapes inside
 * it); 0 when there is no room left (its lines are read by scan.ts) or no WebAssembly.
 */
export function nativeShape(shape: NativeShape): number {
  if (!native) return 0;
  const at = written.get(shape);
  if (at !== undefined) return at;
  const inner = shape.wants.map((w) => (w === true ? 0 : nativeShape(w)));
  const keysAt = align(shapesAt + 4 + 12 * shape.bytes.length);
  const end = keysAt + shape.bytes.reduce((n, b) => n + b.length, 0);
  if (shape.wants.some((w, k) => w !== true && inner[k] === 0) || end > SHAPES_END) {
    written.set(shape, 0);
    return 0;
  }
  const view = new DataView(native.memory.buffer);
  const bytes = new Uint8Array(native.memory.buffer);
  view.setInt32(shapesAt, shape.bytes.length, true);
  let keyAt = keysAt;
  shape.bytes.forEach((key, k) => {
    view.setInt32(shapesAt + 4 + 12 * k, key.length, true);
    view.setInt32(shapesAt + 8 + 12 * k, keyAt, true);
    view.setInt32(shapesAt + 12 + 12 * k, inner[k]!, true);
    bytes.set(key, keyAt);
    keyAt += key.length;
  });
  written.set(shape, shapesAt);
  shapesAt = align(end);
  return written.get(shape)!;
}
