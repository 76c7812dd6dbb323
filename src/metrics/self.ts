// The exporter's own process metrics, named as every Prometheus client library names them
// (process_*, and nodejs_* as prom-client does), so the usual process dashboards and alerts work.
// Sampled on a timer, never on the scrape path: reading /proc is I/O.

import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, type Histogram, type IntervalHistogram } from 'node:perf_hooks';
import { catalog } from '../catalog.js';
import type { Family } from './snapshot.js';

/** Soft limit of open files from /proc/self/limits; undefined where there is no /proc. */
function maxFds(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === 'unlimited' ? Infinity : soft ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length - 1; // less the descriptor of the listing itself
  } catch {
    return undefined;
  }
}

// The delay histogram's timer is asked to fire this often. prom-client's default is 10 ms: a timer
// that woke the process 100 times a second, most of what an idle exporter cost (1 % of a core).
// Once a second, the lag is still the mean lateness of a timer, from fewer samples.
const RESOLUTION_MS = 1000;

function monitored(): IntervalHistogram {
  const delays = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delays.enable();
  return delays;
}

export class SelfMetrics {
  private readonly startTime = Date.now() / 1000 - process.uptime();
  private readonly maxFds = maxFds();
  private families: Family[] = [];
  private monitor?: IntervalHistogram;

  /**
   * `recorded`: the times between two runs of a timer asked to fire every RESOLUTION_MS, in
   * nanoseconds, that a test recorded; else this loop's, from monitorEventLoopDelay, which times
   * the loop from the first sample on (serve: `once` and `top` never sample).
   */
  constructor(private readonly recorded?: Histogram) {}

  /**
   * Samples the process. The event loop lag is how late, on average since the last sample, a timer
   * ran (as prom-client's nodejs_eventloop_lag_mean_seconds, less the timer's own period). It was
   * how long one unref'd setImmediate waited: on an idle loop, until something woke it, which read
   * 0.4-0.8 s on an exporter doing nothing.
   */
  sample(): void {
    const delays = this.recorded ?? (this.monitor ??= monitored());
    // No timer has run yet on the first sample: nothing was late.
    const lag = delays.count === 0 ? 0 : Math.max(0, delays.mean / 1e9 - RESOLUTION_MS / 1e3);
    delays.reset();
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    const one = (def: Family['def'], value: number | undefined): Family[] => (value === undefined ? [] : [{ def, points: [{ labels: {}, value }] }]);
    this.families = [
      ...one(catalog.processCpu, (cpu.user + cpu.system) / 1e6),
      ...one(catalog.processResidentMemory, memory.rss),
      ...one(catalog.processStartTime, this.startTime),
      ...one(catalog.processOpenFds, openFds()),
      ...one(catalog.processMaxFds, this.maxFds),
      ...one(catalog.eventLoopLag, lag),
      ...one(catalog.heapUsed, memory.heapUsed),
    ];
  }

  current(): Family[] {
    return this.families;
  }

  /** Stops timing the loop (its timer would wake the process every RESOLUTION_MS for nothing). */
  stop(): void {
    this.monitor?.disable();
    this.monitor = undefined;
  }
}
