// `npm run bench:store`: generates (or reuses) an OpenCode database and measures, in one run, the
// exporter's store reader against a plain baseline that JSON.parses every part row in Node.
//
//   BENCH_STORE_MB  database size (default 200)
//   BENCH_SEED      generator seed (default 1)
//   BENCH_DIR       where the database is kept and reused (default: a folder per size and seed under the temp dir)
//
// Exits non-zero only when token totals differ; timings are reported, not asserted.

import { Database } from '../test/helpers/sqlite.js';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, finishRun, mb, median, printTable, row, sec } from './report.js';
import { coldScans, fastest, gc, newExporter, noChangeRescan, peakRss, work, type ChildRun } from './runs.js';
import { ensureStoreCorpus } from './store-corpus.js';
import { longtailSection } from './longtail.js';
import { benchSqliteStores } from './store-sqlite.js';
import { benchCursorEditor } from './store-cursor.js';
import { benchWave3Readers } from './store-wave3.js';
import { totalsOf } from './totals.js';

const sizeMb = Number(process.env.BENCH_STORE_MB ?? 200);
const seed = Number(process.env.BENCH_SEED ?? 1);
const dir = process.env.BENCH_DIR ?? join(tmpdir(), 'coding-agent-exporter-bench', `opencode-${sizeMb}mb-seed${seed}`);
const APPENDS = 5;

let t = performance.now();
const { corpus, reused } = ensureStoreCorpus(dir, seed, sizeMb);
const bytes = statSync(corpus.db).size;
process.stdout.write(`database ${corpus.db} (${reused ? 'reused' : `generated in ${sec(performance.now() - t)}`})\n`);
row('database', `${mb(bytes)}: ${corpus.sessions} sessions, ${corpus.messages} messages, ${corpus.parts} parts`);
readFileSync(corpus.db); // into the page cache for every contender

// --- cold reads in fresh processes ----------------------------------------------------------
const { baseRuns, coldRuns } = coldScans(['store-baseline', corpus.db], corpus.home);
check('baseline = generator', corpus.expected, ...baseRuns.map((r) => r.totals));
check('exporter = generator', corpus.expected, ...coldRuns.map((r) => r.totals));
const runs = (rs: ChildRun[]) => `${sec(fastest(rs))} (runs: ${rs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')})`;
row('baseline cold read: every part row JSON.parsed in Node', runs(baseRuns));
row('exporter cold read, fresh process', runs(coldRuns));
const ratio = fastest(baseRuns) / fastest(coldRuns);
// Both parse every part's JSON once (the exporter inside SQLite, leaving tool outputs there): the
// cold read is not where a store reader wins, the reads after it are.
row('  ratio baseline / exporter', `${ratio.toFixed(1)}x`);
row('peak RSS, exporter cold read', `${peakRss(coldRuns).toFixed(0)} MB`, '< 150 MB', peakRss(coldRuns) < 150);
row('peak RSS, baseline', `${peakRss(baseRuns).toFixed(0)} MB`);

// --- in-process: no-change rescans, then appends while a writer has the database open ----------
const state = join(work, 'state');
const agent = newExporter(state, corpus.home);
await agent.scanAll();
const rescan = await noChangeRescan(agent);
row('no-change rescan (median of 11)', `${rescan.ms.toFixed(2)} ms`, '< 5 ms', rescan.ms < 5);

// OpenCode running: WAL mode, a new model call in the session with the most recent rows.
const writer = new Database(corpus.db);
writer.pragma('journal_mode = WAL');
const session = writer
  .prepare('SELECT id, time_updated FROM session WHERE parent_id IS NULL ORDER BY time_updated DESC LIMIT 1')
  .get() as { id: string; time_updated: number };
const reads: number[] = [];
const before = totalsOf(agent.families()).opencode.output;
let added = 0;
try {
  for (let i = 0; i < APPENDS; i++) {
    const at = session.time_updated + 1000 * (i + 1);
    const output = 1000 + i;
    writer.transaction(() => {
      writer
        .prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)')
        .run(
          `msg_bench_${i}`,
          session.id,
          at,
          at,
          JSON.stringify({ role: 'assistant', modelID: 'claude-sonnet-4-5', time: { created: at } }),
        );
      writer
        .prepare(
          'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(
          `prt_bench_${i}`,
          `msg_bench_${i}`,
          session.id,
          at,
          at,
          JSON.stringify({
            type: 'step-finish',
            cost: 0,
            tokens: { input: 1, output, reasoning: 0, cache: { read: 0, write: 0 } },
          }),
        );
      writer.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(at, session.id);
    })();
    added += output;
    gc();
    t = performance.now();
    await agent.scanAll();
    reads.push(performance.now() - t);
  }
  const seen = totalsOf(agent.families()).opencode.output - before;
  row(
    `read after a new model call (median of ${APPENDS}), a writer attached`,
    `${median(reads).toFixed(1)} ms, ${(fastest(coldRuns) / median(reads)).toFixed(0)}x less than a cold read`,
    'exact',
    seen === added,
  );
} finally {
  writer.prepare("DELETE FROM part WHERE id LIKE 'prt_bench_%'").run();
  writer.prepare("DELETE FROM message WHERE id LIKE 'msg_bench_%'").run();
  writer.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(session.time_updated, session.id);
  writer.pragma('journal_mode = DELETE');
  writer.close();
  await agent.stop();
}

await longtailSection();

// The stores of Hermes, Kodelet, goose and Crush, small ones, each against its own baseline.
await benchSqliteStores(seed);

// The readers of Cline, Roo Code, Kilo's extension, Continue CLI, Kimi CLI, OpenClaw, Amp, Auggie,
// Junie, TRAE CLI, Grok Build, OpenHands and Copilot Chat in VS Code, each on a small HOME of its own against its own baseline.
await benchWave3Readers(seed);

// Cursor's editor: its global state.vscdb, against its own baseline.
await benchCursorEditor(seed);

printTable(
  `Node ${process.version}, ${sizeMb} MB OpenCode database (seed ${seed}), the long-tail HOME and the SQLite stores of Hermes, Kodelet, goose and Crush, and the HOMEs of Cline, Roo Code, Kilo (extension), Continue CLI, Kimi CLI, OpenClaw, Amp, Auggie, Junie, TRAE CLI, Grok Build, OpenHands, Copilot Chat in VS Code and Cursor's editor; baselines and exporter ran in this run on the same page-cached files.`,
);
finishRun();
