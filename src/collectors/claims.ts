// Who reads which file of a backlog, in memory shared by the main thread and the read threads: a
// file belongs to whoever claims it first (threads in the list's order, the main thread the file it
// takes next, or the next nobody claimed while it would wait), and read threads pause while too many
// of their files' events wait to be played back.

// Events read and not yet taken, at most: threads wait while there are more. (A file's events are
// a few per cent of its bytes.)
const MAX_WAITING_BYTES = 8 << 20;

export class Claims {
  /** The main thread's mark; a read thread's is any larger number. */
  static readonly MAIN = 1;

  static shared(files: number): SharedArrayBuffer {
    return new SharedArrayBuffer(4 * (files + 1));
  }

  private readonly owners: Int32Array;
  private readonly bytes: Int32Array;

  constructor(shared: SharedArrayBuffer, files: number) {
    this.owners = new Int32Array(shared, 4, files);
    this.bytes = new Int32Array(shared, 0, 1);
  }

  /** Claims a file unless someone did: returns who owns it now. */
  claim(index: number, who: number): number {
    const before = Atomics.compareExchange(this.owners, index, 0, who);
    return before === 0 ? who : before;
  }

  owner(index: number): number {
    return Atomics.load(this.owners, index);
  }

  /** Claims every file nobody claimed, for the main thread: read threads stop (none waits for room). */
  claimRest(): void {
    for (let i = 0; i < this.owners.length; i++) Atomics.compareExchange(this.owners, i, 0, Claims.MAIN);
    Atomics.store(this.bytes, 0, 0);
    Atomics.notify(this.bytes, 0);
  }

  /** A thread's read of `n` bytes of events waits to be taken. */
  waiting(n: number): void {
    Atomics.add(this.bytes, 0, n);
  }

  /** The main thread took `n` bytes of events. */
  taken(n: number): void {
    Atomics.sub(this.bytes, 0, n);
    Atomics.notify(this.bytes, 0);
  }

  /** On a read thread: waits while too many events wait to be taken. */
  waitForRoom(): void {
    for (let w = Atomics.load(this.bytes, 0); w > MAX_WAITING_BYTES; w = Atomics.load(this.bytes, 0))
      Atomics.wait(this.bytes, 0, w, 100);
  }
}
