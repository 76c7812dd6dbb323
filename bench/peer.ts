// The peer: ccusage, what a person would run instead to read the same Claude Code files (a Rust
// binary published on npm, using every core). It is installed into a temporary folder for the
// benchmark, never a dependency of the project, and raced against the exporter's `once` with only
// the Claude Code collector enabled, so both do the same work: each a fresh process, timed whole
// (start-up included) by GNU time, which also gives CPU time and peak RSS. The exporter's start-up
// alone is timed the same way.

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HARNESSES } from '../src/collectors/registry.js';
import type { Tokens } from './totals.js';
import { PACKAGE_ROOT } from '../src/files/package-root.js';
import { MAIN } from './root.js';

export const PEER = 'ccusage@20.0.24';
const TIME = '/usr/bin/time';

/**
 * The peer's executable: the project's pinned dev dependency's native binary, else installed once
 * per machine under the temp folder (npm is asked only the first time).
 */
export function installPeer(): string {
  const pkg = join('node_modules', '@ccusage', `ccusage-${process.platform}-${process.arch}`, 'bin', 'ccusage');
  const pinned = join(PACKAGE_ROOT, pkg);
  const dir = join(tmpdir(), 'coding-agent-exporter-bench', PEER.replace('@', '-'));
  const native = existsSync(pinned) ? pinned : join(dir, pkg);
  if (native === pinned) return native;
  if (!existsSync(native)) {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync(
      'npm',
      ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', PEER],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (r.status !== 0 || !existsSync(native)) throw new Error(`npm install ${PEER} failed: ${r.stderr || r.error}`);
  }
  // npm unpacks it without its execute bit (ccusage's own launcher sets it before running it).
  chmodSync(native, 0o755);
  return native;
}

export interface ProcessRun {
  wallMs: number;
  /** User + system CPU time. */
  cpuMs: number;
  maxRssMb: number;
  claude: Tokens;
}

/** Whether GNU time is there to measure a whole process (CPU and peak RSS included). */
export const canTime = (): boolean => existsSync(TIME);

function timed(
  command: string,
  args: string[],
  home: string,
): { stdout: string; wallMs: number; cpuMs: number; maxRssMb: number } {
  const dir = mkdtempSync(join(tmpdir(), 'cae-peer-'));
  try {
    const out = join(dir, 'time');
    const r = spawnSync(TIME, ['-o', out, '-f', '%e %U %S %M', command, ...args], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
    const [wall, user, sys, rssKb] = readFileSync(out, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    return { stdout: r.stdout, wallMs: wall! * 1000, cpuMs: (user! + sys!) * 1000, maxRssMb: rssKb! / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `ccusage claude daily --json --offline` over a HOME: its totals are the whole history's. */
export function runPeer(peer: string, home: string): ProcessRun {
  const { stdout, ...t } = timed(peer, ['claude', 'daily', '--json', '--offline'], home);
  const totals = (JSON.parse(stdout) as { totals: Record<string, number> }).totals;
  return {
    ...t,
    claude: {
      input: totals.inputTokens ?? 0,
      output: totals.outputTokens ?? 0,
      cache_read: totals.cacheReadTokens ?? 0,
      cache_write: totals.cacheCreationTokens ?? 0,
    },
  };
}

/** The exporter's `once` over a HOME with nothing to read: its start-up and the exposition alone. */
export function runOnceEmpty(home: string, stateDir: string): Omit<ProcessRun, 'claude'> {
  const { stdout: _, ...t } = timed(process.execPath, [MAIN, 'once', '--state-dir', stateDir], home);
  return t;
}

/**
 * The exporter's `once` over a HOME with a new state folder (a cold read), the Claude Code collector
 * alone; `args`: more flags (`--read-threads 0`).
 */
export function runOnce(home: string, stateDir: string, args: string[] = []): ProcessRun {
  const only = Object.keys(HARNESSES)
    .filter((h) => h !== 'claude-code')
    .map((h) => `--collector.${h}=false`);
  const { stdout, ...t } = timed(process.execPath, [MAIN, 'once', '--state-dir', stateDir, ...only, ...args], home);
  const sum = (type: string) =>
    [...stdout.matchAll(/^coding_agent_tokens_total\{([^}]*)\} (\S+)$/gm)]
      .filter((m) => m[1]!.includes('harness="claude-code"') && m[1]!.includes(`token_type="${type}"`))
      .reduce((a, m) => a + Number(m[2]), 0);
  return {
    ...t,
    claude: {
      input: sum('input'),
      output: sum('output'),
      cache_read: sum('cache_read'),
      cache_write: sum('cache_write'),
    },
  };
}

/** A report's kinds, as both command lines name them. */
export const REPORT_KINDS = ['daily', 'weekly', 'monthly', 'session', 'blocks'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/**
 * The four token totals of a `--json` report (ccusage's or the exporter's: the same names): its
 * `totals`, or for blocks (which have none) the sum of every block's (a gap's are 0).
 */
const reportTokens = (stdout: string): Tokens => {
  const json = JSON.parse(stdout) as {
    totals?: Record<string, number>;
    blocks?: { tokenCounts: Record<string, number> }[];
  };
  if (json.totals) {
    const t = json.totals;
    return {
      input: t.inputTokens ?? 0,
      output: t.outputTokens ?? 0,
      cache_read: t.cacheReadTokens ?? 0,
      cache_write: t.cacheCreationTokens ?? 0,
    };
  }
  const sum = (k: string) => (json.blocks ?? []).reduce((a, b) => a + (b.tokenCounts[k] ?? 0), 0);
  return {
    input: sum('inputTokens'),
    output: sum('outputTokens'),
    cache_read: sum('cacheReadInputTokens'),
    cache_write: sum('cacheCreationInputTokens'),
  };
};

export type DailyRun = Omit<ProcessRun, 'claude'> & { tokens: Tokens };

/**
 * `ccusage <kind> --json --offline` over a HOME: every agent it finds (here Claude Code and Codex);
 * blocks are Claude Code's alone (`ccusage claude blocks`, as the exporter's `report blocks`).
 */
export function runPeerReport(peer: string, home: string, kind: ReportKind = 'daily'): DailyRun {
  const { stdout, ...t } = timed(peer, [...(kind === 'blocks' ? ['claude'] : []), kind, '--json', '--offline'], home);
  return { ...t, tokens: reportTokens(stdout) };
}

/**
 * The exporter's `report <kind> --json` from a state folder a `once` filled (a warm state), or from
 * none (cold: it reads the files); `agent`: ccusage's per-agent form (`report claude daily`).
 */
export function runReport(
  home: string,
  stateDir: string,
  agent?: string,
  kind: ReportKind = 'daily',
  node = process.execPath,
): DailyRun {
  const { stdout, ...t } = timed(
    node,
    [MAIN, 'report', ...(agent ? [agent] : []), kind, '--json', '--state-dir', stateDir],
    home,
  );
  return { ...t, tokens: reportTokens(stdout) };
}

/** `once` over a HOME into `stateDir`, every collector: the state `report` reads. */
export function fillState(home: string, stateDir: string): void {
  timed(process.execPath, [MAIN, 'once', '--state-dir', stateDir], home);
}
