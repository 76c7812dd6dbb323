// Read threads (worker_threads) for a history read for the first time: started at the first
// backlog a collector hands them (read-ahead.ts), one backlog at a time, and stopped after the
// first scan. Started only then: a thread costs about as much CPU to start as the exporter itself.

import type { Worker } from 'node:worker_threads';
import { startThread, threadScript } from '../threads.js';
import type { ReadPosted, ReadTask, ThreadDone } from './read-worker.js';

const SCRIPT = threadScript('collectors/read-worker.js');

// A read thread's young generation, in MB: with V8's default for a thread the exporter's peak memory
// reading 616 MB was 185 MB instead of 160 MB, for no measurable speed (1 to 16 MB all measure alike).
const THREAD_YOUNG_MB = 4;

/** What a backlog hears from the threads reading it. */
export interface Backlog {
  /** A thread read a file. */
  posted(posted: ReadPosted): void;
  /** A thread claims no more files of this backlog: it read them all, or it died (`died`). */
  ended(claim: number, died: boolean): void;
}

// The first claim mark of a thread (`Claims.MAIN` is the main thread's).
const FIRST_CLAIM = 2;

export class ReadThreads {
  private readonly workers = new Map<Worker, number>();
  /** The backlog the threads read, and its task's id (what threads post names the task). */
  private current: { backlog: Backlog; id: number } | undefined;
  private tasks = 0;
  private started = false;

  constructor(private readonly threads: number) {}

  private start(): void {
    this.started = true;
    for (let n = 0; n < this.threads; n++) {
      const worker = startThread(SCRIPT, { resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_MB } });
      worker.unref();
      const claim = FIRST_CLAIM + n;
      worker.on('message', (m: ReadPosted | ThreadDone) => {
        const current = this.current;
        if (current?.id !== m.task) return; // a backlog given up on
        if ('done' in m) current.backlog.ended(claim, false);
        else current.backlog.posted(m);
      });
      // Killed, or failed: whatever it claimed and did not post is read on the main thread.
      worker.on('exit', () => {
        this.workers.delete(worker);
        this.current?.backlog.ended(claim, true);
      });
      // An error is followed by the exit; without a listener it would be thrown here.
      worker.on('error', () => {});
      this.workers.set(worker, claim);
    }
  }

  /**
   * Hands every thread the backlog; false when they are busy with another or none runs. Each
   * thread claims files with its own mark (`Claims.claim`).
   */
  read(task: Omit<ReadTask, 'claim' | 'task'>, backlog: Backlog): boolean {
    if (!this.started) this.start();
    if (this.current || this.workers.size === 0) return false;
    this.current = { backlog, id: ++this.tasks };
    for (const [worker, claim] of this.workers) {
      worker.ref(); // the process waits for what they post, also where nothing else keeps it alive
      worker.postMessage({ ...task, claim, task: this.tasks } satisfies ReadTask);
    }
    return true;
  }

  /** The backlog is done with (its files are all claimed): threads may take another. */
  release(backlog: Backlog): void {
    if (this.current?.backlog !== backlog) return;
    this.current = undefined;
    for (const worker of this.workers.keys()) worker.unref();
  }

  /** The marks of the threads still running (`Claims.claim`). */
  get claims(): number[] {
    return [...this.workers.values()];
  }

  /** Stops the threads for good; a backlog still being read hears that they died. */
  close(): void {
    this.started = true;
    for (const worker of this.workers.keys()) void worker.terminate();
    this.workers.clear();
  }
}
