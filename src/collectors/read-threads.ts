// Read threads (worker_threads) for a history read for the first time: started at the first
// backlog a collector hands them (read-ahead.ts), or with a report that reads the files itself
// (`start`), and stopped after the first scan. Each backlog is posted to every thread when it is
// handed; one handed while a thread reads another (collectors scanned together, as a report's own
// read does) waits in the thread's turn, so that the thread goes on to it at once, not after the
// main thread (busy reading) has heard the first was done. Otherwise started only when first
// needed: a thread costs about as much CPU to start as the exporter itself.

import { availableParallelism } from 'node:os';
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

/**
 * How many read threads a first read gets: `configured` (`readThreads`), at most one fewer than the
 * cores (the main thread reads too). A report's own read, all its process does: every core but the
 * main thread's, unless `readThreads` is 0.
 */
export function threadsFor(configured: number, report: boolean): number {
  const cores = availableParallelism() - 1;
  return report ? (configured > 0 ? cores : 0) : Math.min(configured, cores);
}

// The first claim mark of a thread (`Claims.MAIN` is the main thread's).
const FIRST_CLAIM = 2;

type Handed = Omit<ReadTask, 'claim' | 'task'>;

export class ReadThreads {
  /** Each thread's claim mark, and the tasks posted to it that it has not done yet. */
  private readonly workers = new Map<Worker, { claim: number; pending: number }>();
  /** The backlogs handed and not released, by task id (in the order they were handed). */
  private readonly backlogs = new Map<number, Backlog>();
  private tasks = 0;
  private started = false;

  constructor(private readonly threads: number) {}

  /**
   * Starts the threads, once: at the first backlog (`read`), or sooner, where a report's own read
   * starts them while the rest of it loads (`cli/run.ts`). Never again after `close`.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (let n = 0; n < this.threads; n++) {
      const worker = startThread(SCRIPT, { resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_MB } });
      worker.unref();
      const claim = FIRST_CLAIM + n;
      worker.on('message', (m: ReadPosted | ThreadDone) => {
        const backlog = this.backlogs.get(m.task); // none: a backlog given up on
        if (!('done' in m)) return backlog?.posted(m);
        backlog?.ended(claim, false);
        this.done(worker);
      });
      // Killed, or failed: whatever it claimed and did not post is read on the main thread.
      worker.on('exit', () => {
        this.workers.delete(worker);
        for (const backlog of this.backlogs.values()) backlog.ended(claim, true);
      });
      // An error is followed by the exit; without a listener it would be thrown here.
      worker.on('error', () => {});
      this.workers.set(worker, { claim, pending: 0 });
    }
  }

  /**
   * Hands the threads a backlog: each reads it once done with those handed before. False when
   * none runs. Each thread claims files with its own mark (`Claims.claim`).
   */
  read(handed: Handed, backlog: Backlog): boolean {
    this.start();
    if (this.workers.size === 0) return false;
    const task = ++this.tasks;
    this.backlogs.set(task, backlog);
    for (const [worker, state] of this.workers) {
      state.pending++;
      worker.ref(); // the process waits for what it posts, also where nothing else keeps it alive
      worker.postMessage({ ...handed, claim: state.claim, task } satisfies ReadTask);
    }
    return true;
  }

  /** The backlog is done with (its files are all claimed): what threads post of it is not heard. */
  release(backlog: Backlog): void {
    for (const [task, b] of this.backlogs) if (b === backlog) this.backlogs.delete(task);
  }

  /** The marks of the threads still running (`Claims.claim`). */
  get claims(): number[] {
    return [...this.workers.values()].map((w) => w.claim);
  }

  /** Stops the threads for good; a backlog still being read hears that they died. */
  close(): void {
    this.started = true;
    for (const worker of this.workers.keys()) void worker.terminate();
    this.workers.clear();
  }

  /** A thread did a task: with none left, it keeps the process up no longer. */
  private done(worker: Worker): void {
    const state = this.workers.get(worker);
    if (state && --state.pending === 0) worker.unref();
  }
}
