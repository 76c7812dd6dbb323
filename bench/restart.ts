// A warm restart as a person meets it: the real binary spawned over a state database that holds the
// corpus, timed from the spawn until its /metrics has every token counter at its full total (the
// process's start-up, the modules it loads, the state database read and the scan that finds nothing
// new), polled every 5 ms with the raw-socket client (raw-get.ts: fetch's first request to each new
// port cost the bench 30-50 ms more). Beside the wall time, the CPU time the process had used by
// then (utime + stime, 1/100 s): what a loaded machine inflates least.

import { cpuTicks, sleep, startExporter } from './exporter.js';
import { rawRequest } from './raw-get.js';
import { diffTotals, totalsOfText, type Totals } from './totals.js';

/** Wall and CPU milliseconds of each of `runs` restarts; Infinity where the totals were not reached within 30 s. */
export async function warmRestarts(
  stateDir: string,
  home: string,
  expected: Totals,
  runs: number,
): Promise<{ ms: number; cpuMs: number }[]> {
  const times: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < runs; i++) {
    const exporter = await startExporter(stateDir, home, ['--rescan-seconds', '3600'], false);
    try {
      let ms = Infinity;
      let cpu = Infinity;
      while (performance.now() - exporter.spawnedAt < 30_000) {
        const res = await rawRequest(exporter.url).catch(() => undefined);
        if (res && diffTotals(expected, totalsOfText(res.text)).length === 0) {
          ms = performance.now() - exporter.spawnedAt;
          cpu = cpuTicks(exporter.pid) * 10;
          break;
        }
        await sleep(5);
      }
      times.push({ ms, cpuMs: cpu });
    } finally {
      await exporter.stop();
    }
  }
  return times;
}
