// zstd frames written by hand (RFC 8878), for what no compressor here writes: bombs. Node 20 has
// no zstd compressor, and one would not write a frame that lies about its window.

/** Raw bytes, or one byte repeated `times` (an RLE block of up to 128 kB each: 4 bytes of frame). */
export type Part = Buffer | { byte: number; times: number };

const BLOCK = 128 << 10;

/** A frame of `parts`, with the window `windowLog` declares (2 ** windowLog bytes). */
export function zstdFrame(parts: Part[], windowLog = 17): Buffer {
  const blocks: [type: number, size: number, body: Uint8Array][] = [];
  for (const p of parts) {
    if (Buffer.isBuffer(p)) {
      for (let at = 0; at < p.length; at += BLOCK)
        blocks.push([0, Math.min(BLOCK, p.length - at), p.subarray(at, at + BLOCK)]);
    } else {
      for (let left = p.times; left > 0; left -= BLOCK) blocks.push([1, Math.min(BLOCK, left), Buffer.from([p.byte])]);
    }
  }
  // Magic number; no content size, single segment, checksum or dictionary; the window.
  const out: Uint8Array[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3])];
  blocks.forEach(([type, size, body], i) => {
    const header = (size << 3) | (type << 1) | (i === blocks.length - 1 ? 1 : 0);
    out.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), body);
  });
  return Buffer.concat(out);
}
