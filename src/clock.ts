// One timer for what the exporter does on a clock. Each wake of a Node process costs about half a
// millisecond of CPU on the machines measured, whatever it then does: two timers of the same
// period, out of step, woke an idle exporter twice as often as one.

/** Something done on the clock. */
export interface ClockJob {
  /** When it is next due (ms since the epoch; Infinity: not until asked again). */
  next(): number;
  /** Does it; `lateMs`: how long after the wake was due it ran (the event loop's lag). */
  run(now: number, lateMs: number): void;
  /**
   * How long before it is due it may run, with a wake that is happening anyway (0: never early).
   * A job that may run half a period early falls in step with the others at the next wake.
   */
  earlyMs: number;
}

export class Clock {
  private timer?: NodeJS.Timeout;
  private dueAt = Infinity;
  private stopped = false;

  constructor(private readonly jobs: readonly ClockJob[]) {}

  /** Sets the timer for the first job due; called again whenever a job may be due sooner. */
  schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const dueAt = (this.dueAt = Math.min(...this.jobs.map((j) => j.next())));
    if (dueAt === Infinity) return;
    this.timer = setTimeout(
      () => {
        // A timer may fire a millisecond before its time by the wall clock, never before by its own.
        const now = Math.max(Date.now(), dueAt);
        for (const job of this.jobs) if (job.next() - now <= job.earlyMs) job.run(now, now - dueAt);
        this.schedule();
      },
      Math.max(0, dueAt - Date.now()),
    );
    this.timer.unref();
  }

  /** Whether the timer would wake later than `at`: a job that became due sooner must `schedule`. */
  later(at: number): boolean {
    return !this.stopped && at < this.dueAt;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
