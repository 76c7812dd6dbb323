// Reading a backlog on more cores: read threads (worker_threads) read the files the collector will
// take, in its order, and the main thread plays each file's events back into the store, in that
// order, as if it had read the file itself. The main thread reads too: a file no thread came to
// yet, and, rather than wait for a thread, the last files of the list into logs of its own. Only
// files read from their start are handed out (the first scan of a long history). A thread that
// dies costs only speed: the files it claimed and did not post are read on the main thread.

import { fileURLToPath } from 'node:url';
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { LineReader, SessionFile } from '../readers/reader.js';
import { Backlog } from './backlog.js';
import { readWhole, type FileRead } from './read-whole.js';
import type { ReadPosted, ReadTask } from './read-worker.js';

// Node runs no TypeScript: from the sources (the tests), threads run the built copy.
const SCRIPT = fileURLToPath(new URL('./read-worker.js', import.meta.url))
  .replace(/\/src\/collectors\/read-worker\.js$/, import.meta.url.endsWith('.ts') ? '/dist/collectors/read-worker.js' : '$&');

// A read thread's young generation, in MB: V8's default for a thread doubles the exporter's peak
// memory during a cold read for no measurable speed.
const THREAD_YOUNG_MB = 8;

export class ReadAhead {
  private readonly backlog: Backlog;
  private readonly order = new Map<string, number>();
  /** What threads posted, by file, until it is taken; and who waits for a file still being read. */
  private readonly posted = new Map<number, Uint8Array | undefined>();
  private readonly waiters = new Map<number, () => void>();
  private readonly workers: Worker[] = [];
  /** Files the main thread read ahead while it would have waited, and the dedupe keys they saw. */
  private readonly ownReads = new Map<number, FileRead>();
  private readonly ownKeys = new Set<string>();
  /** Below this index, every file is claimed (the main thread reads ahead from the back). */
  private back: number;

  /** Threads not exited yet. */
  private running = 0;

  /**
   * `mainReads`: the main thread reads files no thread came to yet, and reads ahead rather than
   * wait; off, it only plays back what the threads read (tests use it to have every file read on a
   * thread).
   */
  constructor(
    threads: number, private readonly reader: LineReader<unknown>, private readonly files: readonly SessionFile[],
    private readonly mainReads = true,
  ) {
    files.forEach((file, i) => this.order.set(file.path, i));
    this.back = files.length;
    const shared = Backlog.shared(files.length);
    this.backlog = new Backlog(shared, files.length);
    for (let n = 0; n < threads; n++) {
      const claim = Backlog.thread(n);
      const task: ReadTask = { harness: reader.harness, files: [...files], claim, shared };
      const worker = new Worker(SCRIPT, { workerData: task, resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_MB } });
      worker.unref();
      worker.on('message', ({ index, read }: ReadPosted) => this.arrived(index, read));
      // Killed, or failed: what it claimed and did not post is the main thread's to read; once
      // no thread runs, so is everything else.
      worker.on('exit', (code) => this.exited(claim, code));
      this.workers.push(worker);
    }
    this.running = this.workers.length;
  }

  /**
   * A file's events, read ahead; undefined when nobody read it (no thread had come to it, or its
   * thread died): the caller reads it.
   */
  async take(path: string): Promise<FileRead | undefined> {
    const index = this.order.get(path);
    if (index === undefined) return undefined;
    const own = this.ownReads.get(index);
    if (own) {
      this.ownReads.delete(index);
      return own;
    }
    if (this.mainReads && this.backlog.claim(index, Backlog.MAIN) === Backlog.MAIN) return undefined;
    while (!this.posted.has(index)) {
      const ahead = this.mainReads ? this.claimLast(index) : undefined;
      if (ahead === undefined) await new Promise<void>((resolve) => this.waiters.set(index, resolve));
      else {
        this.ownReads.set(ahead, readWhole(this.reader, this.files[ahead]!, this.ownKeys));
        await new Promise((resolve) => setImmediate(resolve)); // let what the threads posted in
      }
    }
    const read = this.posted.get(index);
    this.posted.delete(index);
    if (!read) return undefined;
    this.backlog.taken(read.length);
    return deserialize(read) as FileRead;
  }

  /** Stops every thread; files not read yet are the caller's to read. */
  close(): void {
    for (const worker of this.workers) void worker.terminate();
  }

  /** Claims the last file after `index` that nobody claimed, for the main thread to read ahead. */
  private claimLast(index: number): number | undefined {
    while (this.back > index + 1) {
      const i = --this.back;
      if (this.backlog.claim(i, Backlog.MAIN) === Backlog.MAIN) return i;
    }
    return undefined;
  }

  private arrived(index: number, read: Uint8Array | undefined): void {
    if (this.posted.has(index)) return;
    this.posted.set(index, read);
    this.waiters.get(index)?.();
    this.waiters.delete(index);
  }

  private exited(claim: number, code: number): void {
    const last = --this.running === 0;
    for (const index of this.order.values()) {
      if (last || (code !== 0 && this.backlog.owner(index) === claim)) this.arrived(index, undefined);
    }
  }
}
