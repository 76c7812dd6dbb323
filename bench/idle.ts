// What a `serve` costs doing nothing: CPU ticks (utime + stime from /proc/<pid>/stat, 1/100 s)
// over a window after its first scan, with the process scan on, beside a baseline measured over
// the same window: a plain Node process with an HTTP server listening and nothing else, so that
// what the machine's other load costs a process that only waits shows in the same run. Then the
// same with three agents alive and idle (sleeping Node scripts named `claude`, which the process
// scan finds, and whose processes it then reads every second).

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listeningNode } from './exporter.js';

export interface IdleFigures {
  seconds: number;
  /** The exporter's ticks over the window, with no agent running, and with three. */
  none: number;
  three: number;
  /** The baseline's over the same windows. */
  baseNone: number;
  baseThree: number;
}

/** utime + stime of a live process, in clock ticks. */
function ticks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** Ticks each process used over `seconds`. */
async function window(pids: number[], seconds: number): Promise<number[]> {
  const before = pids.map(ticks);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return pids.map((pid, i) => ticks(pid) - before[i]!);
}

const stopped = (child: ChildProcess) => new Promise((r) => {
  child.once('exit', r);
  child.kill('SIGTERM');
});

/**
 * `exporter`: a running `serve` (its pid) over some home. `settleSeconds`: waited before each window,
 * for start-up work (the JIT, GC, the watcher's first look, a new agent's first reads) to end.
 */
export async function idleFigures(exporter: number, work: string, seconds: number, settleSeconds = 15): Promise<IdleFigures> {
  const baseline = listeningNode();
  const bin = join(work, 'idle-agents', 'bin');
  mkdirSync(bin, { recursive: true });
  const claude = join(bin, 'claude');
  writeFileSync(claude, `#!${process.execPath}\nsetInterval(() => {}, 1 << 30);\n`);
  chmodSync(claude, 0o755);
  const agents: ChildProcess[] = [];
  try {
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    const [none, baseNone] = await window([exporter, baseline.pid!], seconds);
    for (let i = 0; i < 3; i++) agents.push(spawn(claude, [], { stdio: 'ignore', cwd: work }));
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    const [three, baseThree] = await window([exporter, baseline.pid!], seconds);
    return { seconds, none: none!, three: three!, baseNone: baseNone!, baseThree: baseThree! };
  } finally {
    await Promise.all([baseline, ...agents].map(stopped));
  }
}
