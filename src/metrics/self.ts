// The exporter's own process metrics, named as every Prometheus client library names them
// (process_*, and nodejs_* as prom-client does), so the usual process dashboards and alerts work.
// Sampled on a timer, never on the scrape path: reading /proc is I/O.

import { readdirSync, readFileSync } from 'node:fs';
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

export class SelfMetrics {
  private readonly startTime = Date.now() / 1000 - process.uptime();
  private readonly maxFds = maxFds();
  private families: Family[] = [];

  /**
   * Samples the process, then calls `done`. The event loop lag is how long a callback queued now
   * waits to run (as prom-client measures it), so the sample completes a moment later.
   */
  sample(done: () => void): void {
    const queued = process.hrtime.bigint();
    setImmediate(() => {
      const lag = Number(process.hrtime.bigint() - queued) / 1e9;
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
      done();
    }).unref();
  }

  current(): Family[] {
    return this.families;
  }
}
