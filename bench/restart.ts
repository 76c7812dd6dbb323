// A warm restart as a person meets it: the real binary spawned over a state database that holds the
// corpus, timed from the spawn until its /metrics has every token counter at its full total (the
// process's start-up, the modules it loads, the state database read and the scan that finds nothing
// new), polled every 5 ms.

import { sleep, startExporter } from './exporter.js';
import { diffTotals, totalsOfText, type Totals } from './totals.js';

/** Milliseconds of each of `runs` restarts; Infinity where the totals were not reached within 30 s. */
export async function warmRestarts(stateDir: string, home: string, expected: Totals, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const exporter = await startExporter(stateDir, home, ['--rescan-seconds', '3600'], false);
    try {
      let ms = Infinity;
      while (performance.now() - exporter.spawnedAt < 30_000) {
        const res = await fetch(exporter.url).catch(() => undefined);
        if (res?.ok && diffTotals(expected, totalsOfText(await res.text())).length === 0) {
          ms = performance.now() - exporter.spawnedAt;
          break;
        }
        await sleep(5);
      }
      times.push(ms);
    } finally {
      await exporter.stop();
    }
  }
  return times;
}
