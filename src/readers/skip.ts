// The scanner's native pass over values (skip.c, built into skip-wasm.ts): one WebAssembly instance
// per thread, whose memory holds the reader's line buffer (lines.ts), so that a line is passed over
// where it was read, never copied.

import { SKIP_WASM } from './skip-wasm.js';

interface Exports {
  memory: WebAssembly.Memory;
  /** skip.c's value_end: the end of the value at `i` of the `length` bytes at `line`, or -1. */
  valueEnd(line: number, i: number, length: number): number;
}

const PAGE = 65536;
// The module's own data and stack fit in its first page; the lines' buffer starts after it.
const BUFFER_AT = PAGE;
const BUFFER_SIZE = 2 << 20;

function instantiate(): Exports | undefined {
  try {
    const native = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(SKIP_WASM, 'base64')))
      .exports as never as Exports;
    native.memory.grow(BUFFER_SIZE / PAGE);
    return native;
  } catch {
    return undefined; // no WebAssembly (or no SIMD) here: the scanner passes over values itself
  }
}

const native = instantiate();

/**
 * 2 MB in the module's memory, for the reader's lines (lines.ts), which the scanner then passes
 * over natively; undefined where WebAssembly cannot run. The memory never grows again, so the
 * buffer stays valid for the thread's life.
 */
export const nativeBuffer: Buffer | undefined = native && Buffer.from(native.memory.buffer, BUFFER_AT, BUFFER_SIZE);

const memory = nativeBuffer?.buffer;

/** Where `line` starts in the module's memory, or -1 when it is not there. */
export function nativeOffset(line: Buffer): number {
  return line.buffer === memory ? line.byteOffset : -1;
}

/** The end of the value at `i` of the `length` bytes at `offset` (nativeOffset) of the module's memory, or -1. */
export function nativeValueEnd(offset: number, i: number, length: number): number {
  return native!.valueEnd(offset, i, length);
}
