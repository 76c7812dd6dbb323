// A Bloom filter over the dedupe keys of the state database: most keys a scan looks up are new,
// and the filter answers "never seen" for them without a database lookup. A "maybe" goes to the
// database, so a false positive costs a lookup, never a wrong answer.

const HASHES = 4;
const BITS_PER_KEY = 16; // about 0.2 % false positives per filter at its capacity

const FNV_PRIME = 0x01000193;
const FNV_OFFSET = 0x811c9dc5;

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
  /** The key last hashed (`hash`): its two hashes. */
  private h1 = 0;
  private h2 = 0;

  constructor(expectedKeys: number) {
    let size = MIN_BITS;
    while (size < expectedKeys * BITS_PER_KEY && size < MAX_BITS) size *= 2;
    this.layers = [new Layer(size)];
  }

  add(key: string): void {
    let last = this.layers[this.layers.length - 1]!;
    if (last.keys >= last.capacity) this.layers.push((last = new Layer(Math.min(last.size * 4, MAX_BITS))));
    this.hash(key);
    last.set(this.h1, this.h2);
  }

  mayHave(key: string): boolean {
    // Empty (a first read, before its first commit): nothing to hash the key for.
    if (this.layers[0]!.keys === 0) return false;
    this.hash(key);
    for (const l of this.layers) if (l.has(this.h1, this.h2)) return true;
    return false;
  }

  /**
   * The key's FNV-1a hash, and a second made from it by MurmurHash3's finalizer: one pass over the
   * key (two hashes of it took 60 ms of a first read of 1 GB, on its main thread). Keys whose
   * first hashes are equal set the same bits; with 32 bits that is one in 40,000 for 100,000 keys,
   * a hundredth of the filter's own false positives.
   */
  private hash(key: string): void {
    let h = FNV_OFFSET;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), FNV_PRIME);
    this.h1 = h >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    this.h2 = (h >>> 0) | 1;
  }

  /** The memory its bits take. */
  get bytes(): number {
    return this.layers.reduce((n, l) => n + l.bits.byteLength, 0);
  }
}
