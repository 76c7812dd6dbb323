// What a `serve` costs doing nothing: CPU ticks (utime + stime from /proc/<pid>/stat, 1/100 s),
// and the CPU time the scheduler counted (/proc/<pid>/task/*/schedstat, in ns: ticks are charged
// to whoever runs when the clock ticks, a sample), over a window after its first scan, with the
// process scan on, beside a baseline measured over the same window: a plain Node process with an HTTP server listening and nothing else, so that
// what the machine's other load costs a process that only waits shows in the same run. Then the
// same with three agents alive and idle (sleeping Node scripts named `claude`, which the process
// scan finds, and whose processes it then reads every second). And on a developer's home of
// thousands of folders, no session in it: what Aider's search of the home folder walks.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuTicks, listeningNode } from './exporter.js';

/** CPU a process used: clock ticks (1/100 s), and ms as the scheduler counted them. */
export interface Cpu {
  ticks: number;
  ms: number;
}

export interface IdleFigures {
  /** The exporter's CPU over the window, with no agent running, and with three. */
  none: Cpu;
  three: Cpu;
  /** The baseline's over the same windows. */
  baseNone: Cpu;
  baseThree: Cpu;
}

/** A live process's CPU so far: utime + stime, and every thread's run time. */
function cpu(pid: number): Cpu {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`))
    ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'latin1').split(' ')[0]);
  return { ticks: cpuTicks(pid), ms: ns / 1e6 };
}

/** The CPU each process used over `seconds`. */
async function window(pids: number[], seconds: number): Promise<Cpu[]> {
  const before = pids.map(cpu);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return pids.map((pid, i) => {
    const after = cpu(pid);
    return { ticks: after.ticks - before[i]!.ticks, ms: after.ms - before[i]!.ms };
  });
}

const stopped = (child: ChildProcess) =>
  new Promise((r) => {
    child.once('exit', r);
    child.kill('SIGTERM');
  });

/**
 * A developer's home: `repositories` repositories under `code/`, each 8 folders of 12 (a tree
 * like this project's, down to the 4 levels Aider's search walks), and a `Library` of 300
 * applications' folders. Returns the number of folders.
 */
export function developerHome(home: string, repositories = 60): number {
  const tops = ['src', 'test', 'docs', 'scripts', 'bench', 'deploy', 'web', 'vendor'];
  const parts = 12;
  const apps = 300;
  for (let r = 0; r < repositories; r++) {
    for (const top of tops)
      for (let p = 0; p < parts; p++) mkdirSync(join(home, 'code', `repo-${r}`, top, `part-${p}`), { recursive: true });
  }
  for (let a = 0; a < apps; a++)
    for (const sub of ['Caches', 'Data'])
      mkdirSync(join(home, 'Library', 'Application Support', `app-${a}`, sub), { recursive: true });
  // code, Library, Application Support; each repository, its tops and their parts; each application and its two.
  return 3 + repositories * (1 + tops.length * (1 + parts)) + apps * 3;
}

/** The CPU of a running `serve` over `seconds`, `settleSeconds` after now, beside a plain Node process only listening. */
export async function idleAlone(
  exporter: number,
  seconds: number,
  settleSeconds = 15,
): Promise<{ cpu: Cpu; base: Cpu }> {
  const baseline = listeningNode();
  try {
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    const [cpu, base] = await window([exporter, baseline.pid!], seconds);
    return { cpu: cpu!, base: base! };
  } finally {
    await stopped(baseline);
  }
}

/**
 * `exporter`: a running `serve` (its pid) over some home, with no agent running and then with three.
 * `settleSeconds`: waited before each window, for start-up work (the JIT, GC, the watcher's first
 * look, a new agent's first reads) to end.
 */
export async function idleFigures(
  exporter: number,
  work: string,
  seconds: number,
  settleSeconds = 15,
): Promise<IdleFigures> {
  const bin = join(work, 'idle-agents', 'bin');
  mkdirSync(bin, { recursive: true });
  const claude = join(bin, 'claude');
  writeFileSync(claude, `#!${process.execPath}\nsetInterval(() => {}, 1 << 30);\n`);
  chmodSync(claude, 0o755);
  const agents: ChildProcess[] = [];
  try {
    const none = await idleAlone(exporter, seconds, settleSeconds);
    for (let i = 0; i < 3; i++) agents.push(spawn(claude, [], { stdio: 'ignore', cwd: work }));
    const three = await idleAlone(exporter, seconds, settleSeconds);
    return { none: none.cpu, three: three.cpu, baseNone: none.base, baseThree: three.base };
  } finally {
    await Promise.all(agents.map(stopped));
  }
}
