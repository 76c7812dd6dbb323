// Bounded zstd decompression: Node's own (`zlib.zstdDecompressSync`, Node 24 and later), else
// fzstd (pure JS: Node 20's zlib has no zstd, Node 22's decodes only a blob's first frame). A few bytes of zstd can ask for gigabytes in two
// ways, and each is stopped before it costs them: a frame's header names a window the decoder
// allocates (and copies within for every block) before it reads any, so every frame's header is
// looked at first; and each 4-byte RLE block is 128 kB of output, so the output is given up on
// once it passes the limit (Node's `maxOutputLength`, or fzstd's stream).

import { createRequire } from 'node:module';
import zlib from 'node:zlib';

/** Why a blob was not decompressed: more than the limit, or no zstd. */
export type Unzstd = Buffer | 'too_large' | 'invalid';

type ZstdDecompressSync = (blob: Uint8Array, options: { maxOutputLength: number }) => Buffer;

/** A frame of one raw block holding `a` (RFC 8878: magic, single-segment header, size 1, block). */
const FRAME_A = [0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x01, 0x09, 0x00, 0x00, 0x61];

/**
 * Node's zstd, where it has one that decodes every frame of a blob: Node 22's (22.23.5) stops
 * after the first and says nothing, so there fzstd decodes.
 */
const nativeZstd = ((native: ZstdDecompressSync | undefined) => {
  try {
    return native?.(Uint8Array.from([...FRAME_A, ...FRAME_A]), { maxOutputLength: 2 }).toString() === 'aa'
      ? native
      : undefined;
  } catch {
    return undefined;
  }
})((zlib as { zstdDecompressSync?: ZstdDecompressSync }).zstdDecompressSync);

// fzstd is loaded on the first blob, where Node has no zstd: every start-up with none goes without it.
let Decompress: typeof import('fzstd').Decompress | undefined;

const TOO_LARGE = new Error('too large');

/** `blob` decompressed, if it is zstd and holds at most `max` bytes. */
export function unzstd(blob: Uint8Array, max: number): Unzstd {
  const window = largestWindow(blob);
  if (window === undefined) return 'invalid';
  if (window > max) return 'too_large';
  if (nativeZstd) {
    try {
      return nativeZstd(blob, { maxOutputLength: max });
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'too_large' : 'invalid';
    }
  }
  Decompress ??= (createRequire(import.meta.url)('fzstd') as typeof import('fzstd')).Decompress;
  const parts: Uint8Array[] = [];
  let size = 0;
  const stream = new Decompress((chunk) => {
    size += chunk.length;
    if (size > max) throw TOO_LARGE;
    parts.push(chunk);
  });
  try {
    stream.push(blob, true);
  } catch (e) {
    return e === TOO_LARGE ? 'too_large' : 'invalid';
  }
  return Buffer.concat(parts, size);
}

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC = 0x184d2a50; // the last 4 bits are the user's
const DICT_ID_BYTES = [0, 1, 2, 4];

/**
 * The largest window a frame of `blob` declares (RFC 8878, 3.1.1), walking frames by their block
 * headers; undefined if `blob` is not a whole sequence of frames.
 */
function largestWindow(blob: Uint8Array): number | undefined {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  let largest = 0;
  let at = 0;
  if (blob.length === 0) return undefined;
  while (at < blob.length) {
    if (at + 8 > blob.length) return undefined; // the smallest frame
    const magic = view.getUint32(at, true);
    if ((magic & 0xfffffff0) === SKIPPABLE_MAGIC) {
      at += 8 + view.getUint32(at + 4, true);
      continue;
    }
    if (magic !== ZSTD_MAGIC) return undefined;
    const descriptor = blob[at + 4]!;
    const singleSegment = (descriptor >> 5) & 1;
    const sizeBytes = [singleSegment, 2, 4, 8][descriptor >> 6]!;
    at += 5;
    let window: number;
    if (singleSegment) {
      // The window is the content, whose size follows the dictionary id.
      const from = at + DICT_ID_BYTES[descriptor & 3]!;
      if (from + sizeBytes > blob.length) return undefined;
      window =
        sizeBytes === 1
          ? blob[from]!
          : sizeBytes === 2
            ? view.getUint16(from, true) + 256
            : sizeBytes === 4
              ? view.getUint32(from, true)
              : Number(view.getBigUint64(from, true));
    } else {
      const exponent = blob[at]! >> 3;
      const base = 2 ** (10 + exponent);
      window = base + (base / 8) * (blob[at]! & 7);
      at++;
    }
    at += DICT_ID_BYTES[descriptor & 3]! + sizeBytes;
    for (let last = 0; !last;) {
      if (at + 3 > blob.length) return undefined;
      const header = blob[at]! | (blob[at + 1]! << 8) | (blob[at + 2]! << 16);
      last = header & 1;
      const type = (header >> 1) & 3;
      if (type === 3) return undefined;
      // An RLE block's one byte is repeated; a raw or compressed block's size is what it holds.
      at += 3 + (type === 1 ? 1 : header >>> 3);
    }
    if (descriptor & 4) at += 4; // the content checksum
    largest = Math.max(largest, window);
  }
  return at === blob.length ? largest : undefined;
}
