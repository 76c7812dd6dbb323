// Running the contenders: a cold scan in a fresh process (its own time and peak RSS), or the
// exporter in this process.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent } from '../agent.js';
import { loadConfig } from '../config/load.js';
import { createLogger } from '../log.js';
import type { Totals } from './totals.js';

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

export interface ChildRun {
  ms: number;
  totals: Totals;
  maxRssMb: number;
}

/** `child.js` with these arguments (see there). */
export function runChild(args: string[]): ChildRun {
  const r = spawnSync(process.execPath, [CHILD, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child ${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildRun;
}

export const fastest = (runs: ChildRun[]): number => Math.min(...runs.map((r) => r.ms));
export const peakRss = (runs: ChildRun[]): number => Math.max(...runs.map((r) => r.maxRssMb));

/** The exporter as `once` runs it, with HOME pointing at a corpus and no other root. */
export function newAgent(stateDir: string, home: string): Agent {
  return new Agent(loadConfig(['--state-dir', stateDir], {}), createLogger('warn'), { env: {}, home });
}

export const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
