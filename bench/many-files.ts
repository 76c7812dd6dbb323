// `npm run bench:files`: the first read of many small session files.
// `once` (a fresh process, a fresh state folder) on homes of 5,000 and 50,000 one-record Claude
// Code transcripts, 100 a project: reading ten times the files should take about ten times as long.
// A first read that compared every new file with every file read before took 19x here.
//
//   BENCH_FILES  the file counts, comma-separated (default 5000,50000); the ratio is last / first
//   BENCH_DIR    where the homes are kept and reused (default: a folder under the temp dir)
//
// Exits non-zero only when the tokens counted are not one per file; timings are reported, not asserted.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printTable, row, sec } from './report.js';
import { MAIN } from './root.js';
import { work } from './runs.js';

const counts = (process.env.BENCH_FILES ?? '5000,50000').split(',').map(Number);
const dir = process.env.BENCH_DIR ?? join(tmpdir(), 'coding-agent-exporter-bench', 'many-files');
const PER_PROJECT = 100;

/** A home of `n` transcripts of one answer each (1 input token), kept for the next run. */
function home(n: number): string {
  const home = join(dir, `home-${n}`);
  const done = join(home, 'done');
  if (existsSync(done)) return home;
  for (let i = 0; i < n; i++) {
    const project = join(home, '.claude', 'projects', `-src-p${Math.floor(i / PER_PROJECT)}`);
    if (i % PER_PROJECT === 0) mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, `s${i}.jsonl`),
      `${JSON.stringify({
        type: 'assistant',
        timestamp: '2026-11-30T10:00:01.000Z',
        cwd: '/src/app',
        sessionId: `s${i}`,
        message: {
          id: `msg_${i}`,
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      })}\n`,
    );
  }
  writeFileSync(done, '');
  return home;
}

const times: number[] = [];
let exact = true;
for (const n of counts) {
  const h = home(n);
  const started = performance.now();
  const r = spawnSync(process.execPath, [MAIN, 'once', '--state-dir', join(work, `state-${n}`)], {
    env: { PATH: process.env.PATH, HOME: h },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const ms = performance.now() - started;
  const input = [...r.stdout.matchAll(/^coding_agent_tokens_total\{[^}]*token_type="input"[^}]*\} (\S+)$/gm)].reduce(
    (a, m) => a + Number(m[1]),
    0,
  );
  exact &&= r.status === 0 && input === n;
  times.push(ms);
  row(`once, ${n} one-record files, first read`, sec(ms), `${n} input tokens`, input === n);
}
const ratio = times.at(-1)! / times[0]!;
const linear = counts.at(-1)! / counts[0]!;
row(
  `  ratio ${counts.at(-1)} / ${counts[0]} files`,
  `${ratio.toFixed(1)}x`,
  `<= ${(linear * 1.4).toFixed(0)}x (linear: ${linear}x)`,
  ratio <= linear * 1.4,
);
printTable('Start-up (Node, modules, state database) is in every run: it weighs on the smallest most.');
process.exitCode = exact ? 0 : 1;
