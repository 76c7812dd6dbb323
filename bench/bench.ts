// `npm run bench`: generates (or reuses) a corpus and measures, in one run, the exporter against a
// plain Node baseline that JSON.parses every line. Absolute times on shared machines are noise;
// the ratios against the baseline measured in the same run are the figures to compare.
//
//   BENCH_SIZE_MB        corpus size (default 200; 1024 for the 1 GB run)
//   BENCH_PEER_SIZES_MB  corpus sizes the peer (ccusage) is raced on, `once` against `ccusage claude daily` and
//                        each `report` kind on a warm state and cold against ccusage's same (default 200,1024; empty: none)
//   BENCH_SEED           generator seed (default 1)
//   BENCH_DIR            where the corpus is kept and reused (default: a folder per size and seed under the temp dir)
//   BENCH_IDLE_SECONDS   the window an idle `serve`'s CPU is measured over (default 60; 0: not measured)
//   BENCH_SETTLE_SECONDS how long a `serve` is left before its resident memory is read (default 30)
//   BENCH_INSTALL_NODE   the Node.js version the install rows run on, from the npm registry (default 24.22.3; empty: none)
//   BENCH_USER_NODE      a Node.js users run, from the npm registry, the cold report against ccusage is raced on
//                        too (default 24.22.3; empty: none)
//   BENCH_ONLY           the sections to run, comma-separated (default: all): cold, inprocess, scrape, memory,
//                        restart, status, idle, droidpi, startup, install, peer, report (`report daily`, weekly,
//                        monthly, session and blocks against ccusage's same, which `peer` also runs on each of its sizes)
//
// Exits non-zero only when the exporter's token totals differ; timings are reported, not asserted.

import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusFiles, ensureCorpus } from './corpus.js';
import { sleep, startExporter } from './exporter.js';
import { benchDroidAndPi } from './droid-pi.js';
import { check, finishRun, mb, median, printTable, row, sec } from './report.js';
import {
  canTime,
  fillState,
  installPeer,
  PEER,
  runOnce,
  runOnceEmpty,
  runPeer,
  runPeerReport,
  runReport,
  REPORT_KINDS,
  type DailyRun,
  type ProcessRun,
} from './peer.js';
import {
  COLD_RUNS,
  coldScans,
  fastest,
  gc,
  newExporter,
  noChangeRescan,
  peakRss,
  work,
  type ChildRun,
} from './runs.js';
import { rawGet, rawRequest } from './raw-get.js';
import { bytesServer } from './bytes-server.js';
import { diffTotals, totalsOf, zeroTotals } from './totals.js';
import { developerHome, idleAlone, idleFigures, type Cpu } from './idle.js';
import { installFigures } from './install.js';
import { installRuns, packTarball } from './install-run.js';
import { PACKAGE_ROOT } from '../src/files/package-root.js';
import { memoryFigures, type Resident } from './memory.js';
import { warmRestarts } from './restart.js';
import { statusLatencies } from './status.js';

const sizeMb = Number(process.env.BENCH_SIZE_MB ?? 200);
const peerSizes = (process.env.BENCH_PEER_SIZES_MB ?? '200,1024').split(',').filter(Boolean).map(Number);
const seed = Number(process.env.BENCH_SEED ?? 1);
const dirFor = (mb: number) => join(tmpdir(), 'coding-agent-exporter-bench', `${mb}mb-seed${seed}`);
const dir = process.env.BENCH_DIR ?? dirFor(sizeMb);
const APPEND_TRIALS = 5;
// Live sessions the scrape is timed with, and scrapes of each kind (plain, gzip).
const LIVE_SESSIONS = 1000;
const SCRAPES = 100;
const START_RUNS = 8;
// Concurrent requests of the live page's JSON, with the LIVE_SESSIONS sessions.
const API_REQUESTS = 300;
// Bursts of them counted, after one that is not.
const API_BURSTS = 4;
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 30);
const RESTARTS = 9;
const STATUS_TRIALS = 20;
const only = new Set((process.env.BENCH_ONLY ?? '').split(',').filter(Boolean));
const wanted = (section: string) => only.size === 0 || only.has(section);

// --- corpus ----------------------------------------------------------------------------------
let t = performance.now();
const { corpus, reused } = ensureCorpus(dir, seed, sizeMb);
const files = corpusFiles(corpus.home);
const bytes = files.reduce((a, f) => a + f.size, 0);
const subagents = files.filter((f) => f.path.includes('/subagents/')).length;
process.stdout.write(`corpus ${corpus.home} (${reused ? 'reused' : `generated in ${sec(performance.now() - t)}`})\n`);
row(
  'corpus',
  `${files.length} files, ${mb(bytes)}: Claude ${corpus.files['claude-code']} (${subagents} subagent) ` +
    `${mb(corpus.bytes['claude-code'])}, Codex ${corpus.files.codex} ${mb(corpus.bytes.codex)}`,
);

// Reading every byte once also brings the corpus into the page cache for every contender.
t = performance.now();
warm(files);
row('read the bytes alone (1 MB reused buffer)', sec(performance.now() - t));
t = performance.now();
for (const f of files) statSync(f.path);
row(`fs.stat of ${files.length} files`, `${(performance.now() - t).toFixed(1)} ms`);

// --- cold scans in fresh processes: time and peak RSS ----------------------------------------
let baseMs: number | undefined;
if (wanted('cold')) {
  const { baseRuns, coldRuns } = coldScans(['baseline', corpus.home], corpus.home);
  check('baseline = generator', corpus.expected, ...baseRuns.map((r) => r.totals));
  check('exporter = generator', corpus.expected, ...coldRuns.map((r) => r.totals));
  baseMs = fastest(baseRuns);
  const coldMs = fastest(coldRuns);
  const speed = (runs: ChildRun[]) =>
    `${sec(fastest(runs))}, ${(bytes / 1024 / 1024 / (fastest(runs) / 1000)).toFixed(0)} MB/s ` +
    `(runs: ${runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')})`;
  row('baseline cold scan: readFileSync+split, JSON.parse every line', speed(baseRuns));
  row('exporter cold scan, fresh process', speed(coldRuns));
  row('  ratio baseline / exporter', `${(baseMs / coldMs).toFixed(1)}x`, '>= 4x', baseMs / coldMs >= 4);
  row('peak RSS, exporter cold scan', `${peakRss(coldRuns).toFixed(0)} MB`, '< 150 MB', peakRss(coldRuns) < 150);
  row('peak RSS, baseline', `${peakRss(baseRuns).toFixed(0)} MB`);
}

// --- in-process: cold scan, no-change rescans, warm restart ----------------------------------
const state = join(work, 'state');
// A state database that holds the corpus and nothing else, for the restarts through the real binary
// (not the in-process one: the appends below are counted in it, then cut from the files).
let readState: string | undefined;
if (wanted('inprocess')) {
  gc();
  t = performance.now();
  let agent = newExporter(state, corpus.home);
  await agent.scanAll();
  const coldIn = performance.now() - t;
  check('exporter in-process', corpus.expected, totalsOf(agent.families()));
  if (baseMs !== undefined)
    row(
      'exporter cold scan, in-process (once)',
      `${sec(coldIn)}, ratio ${(baseMs / coldIn).toFixed(1)}x`,
      '>= 4x',
      baseMs / coldIn >= 4,
    );

  const rescan = await noChangeRescan(agent);
  const perThousand = (ms: number) => (ms / files.length) * 1000;
  row(
    'no-change rescan (median of 11, collector_duration_seconds summed)',
    `${rescan.ms.toFixed(1)} ms = ${perThousand(rescan.ms).toFixed(1)} ms per 1,000 files ` +
      `(CPU ${perThousand(rescan.cpuMs).toFixed(1)} ms per 1,000)`,
    '<= 10 ms / 1,000',
    perThousand(rescan.ms) <= 10,
  );
  await agent.stop();

  gc();
  t = performance.now();
  agent = newExporter(state, corpus.home);
  await agent.scanAll();
  const restart = performance.now() - t;
  check('after warm restart', corpus.expected, totalsOf(agent.families()));
  row(
    'warm restart from the state database, in-process (construct + scan)',
    `${restart.toFixed(0)} ms`,
    '<= 250 ms',
    restart <= 250,
  );
  await agent.stop();

  // --- append latency through the real binary -------------------------------------------------
  const latencies = await appendLatencies(state, corpus.home);
  const ok = latencies.filter((l) => Number.isFinite(l));
  const allSeen = ok.length === latencies.length;
  row(
    `append visible in /metrics (${latencies.length} appends)`,
    allSeen
      ? `median ${median(ok).toFixed(0)} ms, max ${Math.max(...ok).toFixed(0)} ms`
      : `${latencies.length - ok.length} not seen within 10 s`,
    'median <= 40 ms',
    allSeen && median(ok) <= 40,
  );
}

// --- a scrape with 1,000 live sessions through the real binary ---------------------------------
if (wanted('scrape')) {
  const scrapes = await scrapeTimes(liveHome(LIVE_SESSIONS));
  row(
    `scrape of /metrics with ${LIVE_SESSIONS.toLocaleString('en-US')} live sessions (${SCRAPES} each way, ${(scrapes.bytes / 1024).toFixed(0)} KB plain)`,
    `median ${median(scrapes.plain).toFixed(2)} ms plain, ${median(scrapes.gzip).toFixed(2)} ms gzip`,
    'median <= 2 ms',
    Math.max(median(scrapes.plain), median(scrapes.gzip)) <= 2,
  );
  for (const [path, { times, plainNode }] of Object.entries(scrapes.api)) {
    row(
      `${API_REQUESTS} concurrent ${path} with ${LIVE_SESSIONS.toLocaleString('en-US')} live sessions`,
      `median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`,
      'median <= 50 ms',
      median(times) <= 50,
    );
    row(
      '  the same bytes from a plain Node HTTP server with nothing else to do',
      `median ${median(plainNode).toFixed(0)} ms: the exporter takes ${(median(times) / median(plainNode)).toFixed(2)}x`,
    );
  }
}

// --- resident memory of a settled serve: 1,000 live sessions, and after a first read of the corpus --
if (wanted('memory')) {
  const m = await memoryFigures(work, liveHome(LIVE_SESSIONS), corpus.home, settleSeconds);
  const parts = (r: Resident) =>
    `${r.rss.toFixed(0)} MB: ${r.file.toFixed(0)} MB mapped from files (the Node binary, libraries), ${r.anon.toFixed(0)} MB anonymous` +
    (r.heapUsed === undefined ? '' : `, of which V8 heap in use ${r.heapUsed.toFixed(0)} MB`);
  row(
    `RSS of serve with ${LIVE_SESSIONS.toLocaleString('en-US')} live sessions, ${settleSeconds} s after its first scan`,
    parts(m.live),
    '<= 60 MB',
    m.live.rss <= 60,
  );
  row(
    `RSS of serve after its first read of the corpus (${mb(bytes)}), ${settleSeconds} s later`,
    parts(m.firstRead),
    '<= 60 MB',
    m.firstRead.rss <= 60,
  );
  row('  RSS of a Node process only listening (what Node itself costs)', parts(m.node));
  row(
    '  the same with better-sqlite3 loaded and a database open (the state database where Node has no SQLite)',
    m.nodeSqlite ? parts(m.nodeSqlite) : `not run: better-sqlite3 is not installed for Node.js ${process.version}`,
  );
  readState = m.stateDir;
}

// --- warm restart through the real binary: spawn to a /metrics with every counter ----------------
if (wanted('restart')) {
  // Read by the binary, not in this process: a bench holding a first read's heap slowed the restarts it timed by a quarter.
  if (!readState) fillState(corpus.home, (readState = join(work, 'restart-state')));
  const restarts = await warmRestarts(readState, corpus.home, corpus.expected, RESTARTS);
  const wall = restarts.map((r) => r.ms);
  const seen = wall.every((ms) => Number.isFinite(ms));
  row(
    `warm restart of the binary, spawn to a /metrics with every total (median of ${RESTARTS})`,
    seen
      ? `median ${median(wall).toFixed(0)} ms wall, ${median(restarts.map((r) => r.cpuMs)).toFixed(0)} ms CPU (runs: ${wall.map((ms) => ms.toFixed(0)).join(', ')})`
      : 'totals not reached within 30 s',
    '<= 250 ms',
    seen && median(wall) <= 250,
  );
}

// --- status latency: a permission prompt, a question, a kill --------------------------------------
if (wanted('status')) {
  const st = await statusLatencies(work, STATUS_TRIALS);
  for (const [what, label] of [
    ['permission', 'a permission prompt (the registry rewritten)'],
    ['question', 'a question (a transcript line)'],
    ['kill', "a kill (from the process's death)"],
  ] as const) {
    const times = st[what];
    const seen = times.every((ms) => Number.isFinite(ms));
    row(
      `status in /metrics after ${label}, median of ${times.length}`,
      seen
        ? `median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`
        : `${times.filter((ms) => !Number.isFinite(ms)).length} not seen within 10 s`,
      'median <= 1000 ms',
      seen && median(times) <= 1000,
    );
  }
}

// --- an idle serve: CPU ticks over a window, beside a process that only waits ---------------------
if (idleSeconds > 0 && wanted('idle')) {
  const perMinute = (n: number) => (n * 60) / idleSeconds;
  const share = (n: number) => `${((n / 100 / idleSeconds) * 100).toFixed(2)} % of a core`;
  const shown = (c: Cpu, base: Cpu) =>
    `${c.ticks} ticks = ${perMinute(c.ticks).toFixed(1)} a minute = ${share(c.ticks)}; ` +
    `${perMinute(c.ms).toFixed(0)} ms a minute by the scheduler's count (a Node process only listening: ${base.ticks} ticks, ${perMinute(base.ms).toFixed(0)} ms a minute)`;
  const exporter = await startExporter(join(work, 'idle-state'), corpus.home, []);
  try {
    const idle = await idleFigures(exporter.pid, work, idleSeconds);
    row(
      `idle serve, no agent running (${idleSeconds} s after its first scan, process scan on)`,
      shown(idle.none, idle.baseNone),
      '<= 6 ticks a minute (0.1 %)',
      perMinute(idle.none.ticks) <= 6,
    );
    row(
      'idle serve, three agents alive and idle',
      shown(idle.three, idle.baseThree),
      '<= 30 ticks a minute (0.5 %)',
      perMinute(idle.three.ticks) <= 30,
    );
  } finally {
    await exporter.stop();
  }
  const home = join(work, 'developer-home');
  const folders = developerHome(home);
  const developer = await startExporter(join(work, 'idle-developer-state'), home, []);
  try {
    const { cpu, base } = await idleAlone(developer.pid, idleSeconds);
    row(
      `idle serve, no agent running, a developer's home of ${folders.toLocaleString('en-US')} folders (Aider's search walks them)`,
      shown(cpu, base),
      '<= 6 ticks a minute (0.1 %)',
      perMinute(cpu.ticks) <= 6,
    );
  } finally {
    await developer.stop();
  }
}

// --- Droid and pi: a cold read of each against a plain parse-everything baseline ---------------
if (wanted('droidpi')) await benchDroidAndPi(seed);

// --- start-up: `once` on an empty home, fresh processes ----------------------------------------
if (canTime() && wanted('startup')) {
  const empty = mkdtempSync(join(work, 'empty-home-'));
  const startRuns = Array.from({ length: START_RUNS }, (_, i) => runOnceEmpty(empty, join(work, `empty-${i}`)));
  const wall = Math.min(...startRuns.map((r) => r.wallMs));
  row(
    `once on an empty home (fastest of ${START_RUNS})`,
    `${sec(wall)} wall, ${sec(Math.min(...startRuns.map((r) => r.cpuMs)))} CPU, ` +
      `peak RSS ${Math.max(...startRuns.map((r) => r.maxRssMb)).toFixed(0)} MB`,
    '<= 0.2 s wall',
    wall <= 200,
  );
}

// --- what an install weighs: the package, its dependencies, and the gRPC exporter installed apart --
if (wanted('install')) {
  const w = installFigures();
  const mb1 = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  row(
    'what an install weighs: the package (npm pack), the dependencies npm installs beside it',
    `${w.pack.files} files, ${mb1(w.pack.bytes)} unpacked; ${w.dependencies.packages} packages, ${mb1(w.dependencies.bytes)}; ` +
      `OpenTelemetry's gRPC exporter, installed apart by those who push over gRPC, adds ${w.grpc.packages} packages, ${mb1(w.grpc.bytes)}`,
    'gRPC installed apart',
    w.grpcApart,
  );
  // The install a user runs, timed, on a Node.js with `node:sqlite` (the npm registry's build).
  const node = registryNode('BENCH_INSTALL_NODE');
  if (node) {
    for (const r of installRuns(node.path, packTarball(work))) {
      row(
        `npm install --omit=dev on Node ${node.version}, ${r.label}`,
        `${r.ok ? 'succeeded' : 'FAILED'} in ${r.seconds.toFixed(0)} s: ${r.packages} packages, ${mb1(r.bytes)}; ` +
          `better-sqlite3 ${r.betterSqlite3 ? 'built and installed' : 'not installed'}; SQLite through ${r.sqlite}`,
        'succeeds, node:sqlite',
        r.ok && r.sqlite === 'node:sqlite',
      );
    }
  }
}

// --- the peer: ccusage and the exporter's `once`, Claude Code only, fresh processes -------------
if (wanted('peer') && peerSizes.length > 0 && !canTime())
  row('peer (ccusage)', `not run: ${'/usr/bin/time'} (GNU time) is needed to measure it`);
else if (wanted('peer') && peerSizes.length > 0) {
  const peer = installPeer();
  for (const size of peerSizes)
    racePeer(peer, size === sizeMb ? corpus : ensureCorpus(dirFor(size), seed, size).corpus);
} else if (wanted('report')) raceReport(installPeer(), corpus);

printTable(
  `Node ${process.version}, ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}, ${sizeMb} MB corpus (seed ${seed}); ` +
    'every contender ran in this run on the same page-cached files.',
);
finishRun();

/**
 * The Node.js an environment variable names (default 24.22.3), from the npm registry (kept after
 * the first time: scripts/node-from-npm.sh); none when it is set empty.
 */
function registryNode(
  variable: 'BENCH_INSTALL_NODE' | 'BENCH_USER_NODE',
): { version: string; path: string } | undefined {
  const version = process.env[variable] ?? '24.22.3';
  if (!version) return undefined;
  const path = execFileSync(join(PACKAGE_ROOT, 'scripts/node-from-npm.sh'), [version], { encoding: 'utf8' }).trim();
  return { version, path };
}

/**
 * ccusage and the exporter's cold `once` on a corpus's Claude Code files, alternating, the fastest
 * run of each counting (for wall and CPU time alike): ratios are the exporter's over ccusage's. The
 * exporter runs as configured by default (read threads where the backlog is large enough) and with
 * the main thread alone (`--read-threads 0`), to show what the threads bring. The cold report runs
 * again on a Node.js users run (BENCH_USER_NODE).
 */
function racePeer(peer: string, c: typeof corpus): void {
  const userNode = registryNode('BENCH_USER_NODE');
  const claude = corpusFiles(c.home).filter((f) => f.path.includes('/.claude/'));
  warm(claude);
  const peerRuns: ProcessRun[] = [];
  const onceRuns: ProcessRun[] = [];
  const aloneRuns: ProcessRun[] = [];
  const reportRuns: DailyRun[] = [];
  const userRuns: DailyRun[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    peerRuns.push(runPeer(peer, c.home));
    onceRuns.push(runOnce(c.home, join(work, `peer-${c.sizeMb}-${i}`)));
    aloneRuns.push(runOnce(c.home, join(work, `peer-${c.sizeMb}-${i}-alone`), ['--read-threads', '0']));
    // ccusage's command line, no state database: the report reads Claude Code's files itself.
    reportRuns.push(runReport(c.home, join(work, `peer-${c.sizeMb}-${i}-report`), 'claude'));
    if (userNode)
      userRuns.push(runReport(c.home, join(work, `peer-${c.sizeMb}-${i}-user`), 'claude', 'daily', userNode.path));
  }
  const label = `${c.sizeMb} MB corpus`;
  const expected = { ...zeroTotals(), 'claude-code': c.expected['claude-code'] };
  const only = (r: ProcessRun) => ({ ...zeroTotals(), 'claude-code': r.claude });
  check(`once, Claude Code only, ${label} = generator`, expected, ...onceRuns.map(only), ...aloneRuns.map(only));
  check(
    `report claude daily, cold, ${label} = generator`,
    expected,
    ...reportRuns.map((r) => ({ ...zeroTotals(), 'claude-code': r.tokens })),
  );
  const peerDiff = diffTotals(expected, only(peerRuns[0]!));
  row(`totals: ${PEER} = generator`, peerDiff.length === 0 ? 'equal' : peerDiff.join('; '));
  const best = (runs: Omit<ProcessRun, 'claude'>[], k: 'wallMs' | 'cpuMs') => Math.min(...runs.map((r) => r[k]));
  const runs = (rs: Omit<ProcessRun, 'claude'>[]) => rs.map((r) => (r.wallMs / 1000).toFixed(2)).join(', ');
  row(`${label}: Claude Code files`, `${claude.length} files, ${mb(claude.reduce((a, f) => a + f.size, 0))}`);
  row(
    `  ${PEER} claude daily --json --offline`,
    `${sec(best(peerRuns, 'wallMs'))} wall, ${sec(best(peerRuns, 'cpuMs'))} CPU (runs: ${runs(peerRuns)})`,
  );
  row(
    '  exporter once (Claude Code collector only), cold',
    `${sec(best(onceRuns, 'wallMs'))} wall, ${sec(best(onceRuns, 'cpuMs'))} CPU (runs: ${runs(onceRuns)})`,
  );
  row(
    '  the same, main thread alone (--read-threads 0)',
    `${sec(best(aloneRuns, 'wallMs'))} wall, ${sec(best(aloneRuns, 'cpuMs'))} CPU, ` +
      `peak RSS ${Math.max(...aloneRuns.map((r) => r.maxRssMb)).toFixed(0)} MB (runs: ${runs(aloneRuns)})`,
  );
  const wall = best(onceRuns, 'wallMs') / best(peerRuns, 'wallMs');
  const cpu = best(onceRuns, 'cpuMs') / best(peerRuns, 'cpuMs');
  const wallTarget = c.sizeMb >= 1024 ? 0.7 : 0.8;
  row('  wall, exporter / ccusage', `${wall.toFixed(2)}x`, `<= ${wallTarget}x`, wall <= wallTarget);
  row('  CPU, exporter / ccusage', `${cpu.toFixed(2)}x`, '<= 1.0x', cpu <= 1);
  row(
    '  exporter report claude daily --json, cold (no state database)',
    `${sec(best(reportRuns, 'wallMs'))} wall, ${sec(best(reportRuns, 'cpuMs'))} CPU (runs: ${runs(reportRuns)})`,
  );
  const cold = best(reportRuns, 'wallMs') / best(peerRuns, 'wallMs');
  row(
    `  wall, cold report claude daily / ccusage claude daily (Node ${process.versions.node})`,
    `${cold.toFixed(2)}x`,
    c.sizeMb >= 1024 ? '<= 1.5x' : '',
    c.sizeMb >= 1024 ? cold <= 1.5 : undefined,
  );
  if (userNode) {
    check(
      `report claude daily, cold, on Node ${userNode.version}, ${label} = generator`,
      expected,
      ...userRuns.map((r) => ({ ...zeroTotals(), 'claude-code': r.tokens })),
    );
    const onUser = best(userRuns, 'wallMs') / best(peerRuns, 'wallMs');
    row(
      `  the same on Node ${userNode.version}`,
      `${sec(best(userRuns, 'wallMs'))} wall, ${sec(best(userRuns, 'cpuMs'))} CPU (runs: ${runs(userRuns)})`,
    );
    row(
      `  wall, cold report claude daily / ccusage claude daily (Node ${userNode.version})`,
      `${onUser.toFixed(2)}x`,
      c.sizeMb >= 1024 ? '<= 1.5x' : '',
      c.sizeMb >= 1024 ? onUser <= 1.5 : undefined,
    );
  }
  const rss = Math.max(...onceRuns.map((r) => r.maxRssMb));
  row(
    '  peak RSS, exporter / ccusage',
    `${rss.toFixed(0)} MB / ${Math.max(...peerRuns.map((r) => r.maxRssMb)).toFixed(0)} MB`,
    '<= 150 MB',
    rss <= 150,
  );
  raceReport(peer, c);
}

/**
 * Each kind of report as `report <kind> --json` on a warm state (a `once` of every collector ran
 * before) against ccusage's same command on the same files (Claude Code and Codex; blocks are Claude
 * Code's in both), alternating, the fastest of each; and cold (no state database), every kind where
 * that is cheap (under 1 GB), else daily alone: a cold report's time is its reading, whatever the kind.
 * The cold daily report runs again on a Node.js users run (BENCH_USER_NODE).
 */
function raceReport(peer: string, c: typeof corpus): void {
  const state = join(work, `report-${c.sizeMb}`);
  fillState(c.home, state);
  const userNode = registryNode('BENCH_USER_NODE');
  for (const kind of REPORT_KINDS) {
    const withCold = kind === 'daily' || c.sizeMb < 1024;
    const onUserNode = kind === 'daily' && userNode !== undefined;
    const peerRuns: DailyRun[] = [];
    const reportRuns: DailyRun[] = [];
    const coldRuns: DailyRun[] = [];
    const userRuns: DailyRun[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      peerRuns.push(runPeerReport(peer, c.home, kind));
      reportRuns.push(runReport(c.home, state, undefined, kind));
      // No state database (a folder that is not there): the report reads the files itself.
      if (withCold)
        coldRuns.push(runReport(c.home, join(work, `report-${c.sizeMb}-${kind}-cold-${i}`), undefined, kind));
      if (onUserNode)
        userRuns.push(
          runReport(c.home, join(work, `report-${c.sizeMb}-${kind}-user-${i}`), undefined, kind, userNode.path),
        );
    }
    const peerKind = kind === 'blocks' ? 'claude blocks' : kind;
    // Both harnesses' tokens summed (blocks: Claude Code's), as both reports' totals give them.
    const tokens = (r: DailyRun) => ({ ...zeroTotals(), 'claude-code': r.tokens });
    check(
      `report ${kind} = ${PEER} ${peerKind}, ${c.sizeMb} MB corpus`,
      tokens(peerRuns[0]!),
      ...reportRuns.map(tokens),
      ...coldRuns.map(tokens),
      ...userRuns.map(tokens),
    );
    const best = (runs: DailyRun[], k: 'wallMs' | 'cpuMs' = 'wallMs') => Math.min(...runs.map((r) => r[k]));
    const runs = (rs: DailyRun[]) => rs.map((r) => (r.wallMs / 1000).toFixed(2)).join(', ');
    const times = (rs: DailyRun[]) => `${sec(best(rs))} wall, ${sec(best(rs, 'cpuMs'))} CPU (runs: ${runs(rs)})`;
    row(
      `  ${PEER} ${peerKind} --json --offline (${kind === 'blocks' ? 'Claude Code' : 'every agent'})`,
      times(peerRuns),
    );
    row(`  exporter report ${kind} --json, warm state`, times(reportRuns));
    const ratio = best(reportRuns) / best(peerRuns);
    // The targets are the 1 GB corpus's: on less, both are more start-up than reading.
    const target = c.sizeMb >= 1024;
    row(
      `  wall, report ${kind} / ccusage ${peerKind}`,
      `${ratio.toFixed(2)}x`,
      target ? '<= 0.2x' : '',
      target ? ratio <= 0.2 : undefined,
    );
    if (!withCold) continue;
    row(
      `  exporter report ${kind} --json, cold (no state database: it reads the files)`,
      `${times(coldRuns)}, peak RSS ${Math.max(...coldRuns.map((r) => r.maxRssMb)).toFixed(0)} MB`,
    );
    const coldRatio = (rs: DailyRun[]) =>
      `${(best(rs) / best(peerRuns)).toFixed(2)}x (CPU ${(best(rs, 'cpuMs') / best(peerRuns, 'cpuMs')).toFixed(2)}x)`;
    const cold = best(coldRuns) / best(peerRuns);
    row(
      `  wall, cold report ${kind} / ccusage ${peerKind} (Node ${process.versions.node})`,
      coldRatio(coldRuns),
      target ? '<= 1.5x' : '',
      target ? cold <= 1.5 : undefined,
    );
    if (!onUserNode) continue;
    row(`  the same on Node ${userNode.version}`, times(userRuns));
    const onUser = best(userRuns) / best(peerRuns);
    row(
      `  wall, cold report ${kind} / ccusage ${peerKind} (Node ${userNode.version})`,
      coldRatio(userRuns),
      target ? '<= 1.5x' : '',
      target ? onUser <= 1.5 : undefined,
    );
  }
}

/** Reads files once, so every contender finds them in the page cache. */
function warm(list: { path: string }[]): void {
  const b = Buffer.allocUnsafe(1 << 20);
  for (const f of list) {
    const fd = openSync(f.path, 'r');
    while (readSync(fd, b, 0, b.length, null) > 0);
    closeSync(fd);
  }
}

/** Sum of the output tokens the endpoint reports. */
async function outputTokens(url: string): Promise<number> {
  const text = await (await fetch(url)).text();
  let sum = 0;
  for (const m of text.matchAll(/^coding_agent_tokens_total\{[^}]*token_type="output"[^}]*\} (\S+)$/gm))
    sum += Number(m[1]);
  return sum;
}

/**
 * Appends an answer to transcripts of the corpus, one at a time, and times until /metrics counts
 * it; the appends are truncated away afterwards so the corpus stays reusable.
 */
async function appendLatencies(stateDir: string, home: string): Promise<number[]> {
  const exporter = await startExporter(stateDir, home);
  const targets = files
    .filter((f) => f.path.includes('/.claude/') && !f.path.includes('/subagents/'))
    .slice(0, APPEND_TRIALS);
  try {
    const latencies: number[] = [];
    await sleep(2000); // let the watcher finish setting up
    for (const [i, f] of targets.entries()) {
      const before = await outputTokens(exporter.url);
      const tokens = 1000 + i;
      appendFileSync(
        f.path,
        `${JSON.stringify({
          parentUuid: null,
          isSidechain: false,
          type: 'assistant',
          uuid: `bench-${i}`,
          timestamp: new Date().toISOString(),
          requestId: `req_bench_${i}`,
          message: {
            id: `msg_bench_${i}_${Date.now()}`,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [{ type: 'text', text: 'bench' }],
            stop_reason: 'end_turn',
            usage: {
              input_tokens: 1,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              output_tokens: tokens,
            },
          },
        })}\n`,
      );
      const appended = performance.now();
      let latency = Infinity;
      while (performance.now() - appended < 10_000) {
        if ((await outputTokens(exporter.url)) >= before + tokens) {
          latency = performance.now() - appended;
          break;
        }
        await sleep(5);
      }
      latencies.push(latency);
      await sleep(300);
    }
    return latencies;
  } finally {
    await exporter.stop();
    for (const f of targets) truncateSync(f.path, f.size);
  }
}

/**
 * The time a scraper waits for /metrics (plain and gzip, as Prometheus asks) over a home of live
 * sessions (`liveHome`): `SCRAPES` scrapes one after another. Then
 * the live page's JSON: `API_REQUESTS` at once, `API_BURSTS` times after a first burst, each timed;
 * and the same of a Node server answering the same bytes (bytes-server.ts), alternating.
 */
async function scrapeTimes(home: string): Promise<{
  plain: number[];
  gzip: number[];
  bytes: number;
  api: Record<string, { times: number[]; plainNode: number[] }>;
}> {
  const exporter = await startExporter(join(work, 'live-state'), home);
  try {
    const scrape = async (headers: Record<string, string>) => {
      const t0 = performance.now();
      const res = await fetch(exporter.url, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      return { ms: performance.now() - t0, bytes: body.length };
    };
    const plain: number[] = [];
    const gzip: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SCRAPES; i++) {
      const p = await scrape({ 'accept-encoding': 'identity' });
      plain.push(p.ms);
      bytes = p.bytes;
      gzip.push((await scrape({ 'accept-encoding': 'gzip' })).ms);
    }
    // A connection each, asking for gzip as a browser does; the body read whole, not unzipped. Beside
    // it, the same bytes from a Node server that does nothing else, its bursts alternating with the
    // exporter's so that both meet the machine alike. The first burst of each is the one after a
    // start, the JIT of both ends still cold (4x slower here): not counted.
    const gzipped = { 'accept-encoding': 'gzip' };
    const burst = (url: string) => Promise.all(Array.from({ length: API_REQUESTS }, () => rawGet(url, gzipped)));
    const api: Record<string, { times: number[]; plainNode: number[] }> = {};
    for (const path of ['/api/v1/sessions', '/api/v1/summary']) {
      const url = exporter.url.replace(/\/metrics$/, path);
      const { text } = await rawRequest(url, gzipped);
      const plainNode = await bytesServer(Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1'));
      try {
        await burst(url);
        await burst(plainNode.url);
        const times: number[] = [];
        const plainTimes: number[] = [];
        for (let i = 0; i < API_BURSTS; i++) {
          times.push(...(await burst(url)));
          plainTimes.push(...(await burst(plainNode.url)));
        }
        api[path] = { times, plainNode: plainTimes };
      } finally {
        plainNode.stop();
      }
    }
    return { plain, gzip, bytes, api };
  } finally {
    await exporter.stop();
  }
}

/** A home of `sessions` live Claude Code sessions, each in a project of its own (made once a run). */
function liveHome(sessions: number): string {
  const home = join(work, 'live-home');
  if (existsSync(home)) return home;
  const now = Date.now();
  for (let i = 0; i < sessions; i++) {
    const dir = join(home, '.claude', 'projects', `-home-dev-src-app${i}`);
    mkdirSync(dir, { recursive: true });
    const at = (s: number) => new Date(now - 60_000 + s * 1000).toISOString();
    const cwd = `/home/dev/src/app${i}`;
    writeFileSync(
      join(dir, `${randomUUID()}.jsonl`),
      [
        { type: 'user', uuid: `u${i}`, timestamp: at(0), cwd, message: { role: 'user', content: 'go' } },
        {
          type: 'assistant',
          uuid: `a${i}`,
          timestamp: at(1),
          cwd,
          requestId: `r${i}`,
          message: {
            id: `m${i}`,
            model: 'claude-sonnet-4-5',
            content: [{ type: 'text', text: 'ok' }],
            stop_reason: 'end_turn',
            usage: {
              input_tokens: 10 + i,
              output_tokens: 5,
              cache_read_input_tokens: 100,
              cache_creation_input_tokens: 0,
            },
          },
        },
      ]
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(''),
    );
  }
  return home;
}
