// One cold scan in a fresh process, so that its time and peak RSS are its own:
//   node dist-bench/bench/child.js baseline <home>
//   node dist-bench/bench/child.js store-baseline <database>
//   node dist-bench/bench/child.js exporter <home> <state dir>
// Prints {"ms", "totals", "maxRssMb"} on stdout.

import { Exporter } from '../src/exporter.js';
import { loadConfig } from '../src/config/load.js';
import { compileLightly } from '../src/jit.js';
import { createLogger } from '../src/log.js';
import { baselineScan, storeBaselineScan } from './baseline.js';
import { totalsOf, type Totals } from './totals.js';

const [mode, home, stateDir] = process.argv.slice(2);
if (!home || (mode !== 'baseline' && mode !== 'store-baseline' && (mode !== 'exporter' || !stateDir))) {
  process.stderr.write('usage: child.js baseline <home> | store-baseline <database> | exporter <home> <state dir>\n');
  process.exit(2);
}

const started = performance.now();
let ms: number;
let totals: Totals;
if (mode === 'baseline' || mode === 'store-baseline') {
  totals = mode === 'baseline' ? baselineScan(home) : storeBaselineScan(home);
  ms = performance.now() - started;
} else {
  // The exporter as `once` runs it (main.ts sets V8's flags), with HOME pointing at the corpus and no other root.
  compileLightly();
  const agent = new Exporter(loadConfig(['--state-dir', stateDir!], {}), createLogger('warn'), { env: {}, home });
  await agent.scanAll();
  ms = performance.now() - started;
  totals = totalsOf(agent.families());
  await agent.stop();
}
process.stdout.write(JSON.stringify({ ms, totals, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
