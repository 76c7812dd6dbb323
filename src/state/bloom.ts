// A Bloom filter over the dedupe keys of the state database: most keys a scan looks up are new,
// and the filter answers "never seen" for them without a database lookup. A "maybe" goes to the
// database, so a false positive costs a lookup, never a wrong answer.

const HASHES = 4;
const BITS_PER_KEY = 16; // about 0.2 % false positives per filter at its capacity

function fnv1a(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** One filter of fixed size, full once it holds `capacity` keys. */
class Layer {
  readonly bits: Uint32Array;
  readonly mask: number;
  readonly capacity: number;
  keys = 0;

  constructor(readonly size: number) {
    this.bits = new Uint32Array(size / 32);
    this.mask = size - 1;
    this.capacity = size / BITS_PER_KEY;
  }

  set(h1: number, h2: number): void {
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.keys++;
  }

  has(h1: number, h2: number): boolean {
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

const MIN_BITS = 1 << 16;
const MAX_BITS = 1 << 30;

/**
 * Sized for the keys expected, and grown by a filter four times larger whenever the last one is
 * full (a scalable Bloom filter): a fixed filter of 16 M bits held 2 MB for the few thousand keys
 * most state databases have, and a state that outgrew its filter got more false positives.
 */
export class BloomFilter {
  private readonly layers: Layer[];

  constructor(expectedKeys: number) {
    let size = MIN_BITS;
    while (size < expectedKeys * BITS_PER_KEY && size < MAX_BITS) size *= 2;
    this.layers = [new Layer(size)];
  }

  add(key: string): void {
    let last = this.layers[this.layers.length - 1]!;
    if (last.keys >= last.capacity) this.layers.push((last = new Layer(Math.min(last.size * 4, MAX_BITS))));
    last.set(fnv1a(key, 0x811c9dc5), fnv1a(key, 0x01000193) | 1);
  }

  mayHave(key: string): boolean {
    // Empty (a first read, before its first commit): nothing to hash the key for.
    if (this.layers[0]!.keys === 0) return false;
    const h1 = fnv1a(key, 0x811c9dc5);
    const h2 = fnv1a(key, 0x01000193) | 1;
    return this.layers.some((l) => l.has(h1, h2));
  }

  /** The memory its bits take. */
  get bytes(): number {
    return this.layers.reduce((n, l) => n + l.bits.byteLength, 0);
  }
}
