// A Bloom filter over the dedupe keys of the state database: most keys a scan looks up are new,
// and the filter answers "never seen" for them without a database lookup. A "maybe" goes to the
// database, so a false positive costs a lookup, never a wrong answer.

const HASHES = 4;
const BITS_PER_KEY = 16; // about 0.2 % false positives at the planned size

function fnv1a(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly mask: number;

  /** Sized for `expectedKeys` (at least a million): more keys only raise the false positives. */
  constructor(expectedKeys: number) {
    let size = 1 << 24;
    while (size < expectedKeys * BITS_PER_KEY && size < 1 << 30) size *= 2;
    this.bits = new Uint32Array(size / 32);
    this.mask = size - 1;
  }

  add(key: string): void {
    const h1 = fnv1a(key, 0x811c9dc5);
    const h2 = fnv1a(key, 0x01000193) | 1;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  mayHave(key: string): boolean {
    const h1 = fnv1a(key, 0x811c9dc5);
    const h2 = fnv1a(key, 0x01000193) | 1;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}
