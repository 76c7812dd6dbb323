// Running the contenders: a cold scan in a fresh process (its own time and peak RSS), or the
// exporter in this process.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Exporter } from '../src/exporter.js';
import { loadConfig } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { median } from './report.js';
import type { Totals } from './totals.js';

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

export interface ChildRun {
  ms: number;
  totals: Totals;
  maxRssMb: number;
}

/** `child.js` with these arguments (see there). */
function runChild(args: string[]): ChildRun {
  const r = spawnSync(process.execPath, [CHILD, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child ${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildRun;
}

export const fastest = (runs: ChildRun[]): number => Math.min(...runs.map((r) => r.ms));
export const peakRss = (runs: ChildRun[]): number => Math.max(...runs.map((r) => r.maxRssMb));

/** The exporter as `once` runs it, with HOME pointing at a corpus and no other root. */
export function newExporter(stateDir: string, home: string): Exporter {
  return new Exporter(loadConfig(['--state-dir', stateDir], {}), createLogger('warn'), { env: {}, home });
}

export const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** A folder for state databases, removed when the process exits. */
export const work = mkdtempSync(join(tmpdir(), 'cae-bench-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));

// Shared machines are noisy: each cold scan runs this many times, alternating, and the fastest counts.
export const COLD_RUNS = 3;

/** The baseline (`child.js` arguments) and the exporter's cold scan of `home`, alternating. */
export function coldScans(baseline: string[], home: string): { baseRuns: ChildRun[]; coldRuns: ChildRun[] } {
  const baseRuns: ChildRun[] = [];
  const coldRuns: ChildRun[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    baseRuns.push(runChild(baseline));
    coldRuns.push(runChild(['exporter', home, join(work, `state-child-${i}`)]));
  }
  return { baseRuns, coldRuns };
}

/**
 * 11 scans in which nothing changed, as `serve` runs them (no forced GC between them): the median
 * of what the collectors report as `collector_duration_seconds`, summed, and of the CPU time they took.
 */
export async function noChangeRescan(agent: Exporter): Promise<{ ms: number; cpuMs: number }> {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 11; i++) {
    const before = process.cpuUsage();
    await agent.scanAll();
    const used = process.cpuUsage(before);
    times.push([...agent.collectors.values()].reduce((a, c) => a + c.stats.durationSeconds * 1000, 0));
    cpu.push((used.user + used.system) / 1000);
  }
  return { ms: median(times), cpuMs: median(cpu) };
}
