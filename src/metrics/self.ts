// The exporter's own process metrics, named as every Prometheus client library names them
// (process_*, and nodejs_* as prom-client does), so the usual process dashboards and alerts work.
// Sampled on a timer, never on the scrape path: reading /proc is I/O.

import { readdirSync, readFileSync } from 'node:fs';
import { catalog } from '../catalog.js';
import type { Family } from './snapshot.js';

/** Soft limit of open files from /proc/self/limits; undefined where there is no /proc. */
function maxFds(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
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

export class SelfMetrics {
  private readonly startTime = Date.now() / 1000 - process.uptime();
  private readonly maxFds = maxFds();
  private families: Family[] = [];

  /**
   * Samples the process (serve's clock does, every few seconds; `once` and `top` never sample).
   * The event loop lag is `lateMs`: how long after the clock's timer was due the loop got to it,
   * which every timer due then waited too (as prom-client's nodejs_eventloop_lag_seconds is a
   * timer's lateness). It is timed by the timer the exporter runs anyway: Node's delay histogram
   * (monitorEventLoopDelay) kept a timer of its own, which woke an idle exporter every second for
   * this alone.
   */
  sample(lateMs: number): void {
    const lag = Math.max(0, lateMs) / 1000;
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    const one = (def: Family['def'], value: number | undefined): Family[] =>
      value === undefined ? [] : [{ def, points: [{ labels: {}, value }] }];
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
}
