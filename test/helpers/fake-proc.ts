// A folder laid out like Linux's /proc, for process-table tests that must not depend on what
// runs on the machine.

import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tempDir } from './run.js';

export const BOOT_SECONDS = 1_796_000_000;

export interface FakeProcess {
  ppid?: number;
  argv: string[];
  /**
   * `stat`'s command name: the name of the file exec'd (a script's own, not its interpreter's).
   * The first argument's by default.
   */
  comm?: string;
  /** The executable (`exe`): the first argument by default. */
  exe?: string;
  cwd?: string;
  /** Start, in clock ticks (1/100 s) after boot. */
  startTicks?: number;
  /** CPU used so far, in clock ticks. */
  cpuTicks?: number;
  rssKb?: number;
  env?: Record<string, string>;
  /** Paths the process holds open. */
  open?: string[];
}

/**
 * `snapshot`: laid out as a copy of /proc is (links written as files holding their target, no
 * `stat` with the boot time).
 */
export function fakeProc({ snapshot = false } = {}): {
  root: string;
  /** A new process; over a live pid (same start), an exec: another program in the same process. */
  add(pid: number, p: FakeProcess): void;
  cpu(pid: number, p: FakeProcess): void;
  exit(pid: number): void;
} {
  const root = tempDir('cae-proc-');
  if (!snapshot) writeFileSync(join(root, 'stat'), `cpu 1 2 3\nbtime ${BOOT_SECONDS}\n`);
  const link = (to: string, at: string) => (snapshot ? writeFileSync(at, `${to}\n`) : symlinkSync(to, at));
  const stat = (pid: number, p: FakeProcess, state = 'S') =>
    writeFileSync(
      join(root, String(pid), 'stat'),
      `${pid} (${p.comm ?? basename(p.argv[0] ?? '')}) ${state} ${p.ppid ?? 1} ${pid} ${pid} 0 -1 0 0 0 0 0 ${p.cpuTicks ?? 0} 0 0 0 20 0 1 0 ${p.startTicks ?? 1000} 0 0\n`,
    );
  const procs = new Map<number, FakeProcess>();
  return {
    root,
    add(pid, p) {
      const dir = join(root, String(pid));
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(join(dir, 'fd'), { recursive: true });
      procs.set(pid, p);
      stat(pid, p);
      writeFileSync(join(dir, 'cmdline'), `${p.argv.join('\0')}\0`);
      writeFileSync(join(dir, 'status'), `Name:\t${basename(p.argv[0] ?? '')}\nVmRSS:\t ${p.rssKb ?? 1000} kB\n`);
      writeFileSync(
        join(dir, 'environ'),
        Object.entries(p.env ?? {})
          .map(([k, v]) => `${k}=${v}\0`)
          .join(''),
      );
      if (p.argv[0]) link(p.exe ?? p.argv[0], join(dir, 'exe'));
      if (p.cwd) link(p.cwd, join(dir, 'cwd'));
      (p.open ?? []).forEach((path, i) => link(path, join(dir, 'fd', String(i + 3))));
    },
    /** Rewrites a process's stat (its CPU ticks). */
    cpu: (pid, p) => stat(pid, p),
    /**
     * The process exits: a zombie until its parent reaps it. Its `stat` stays (state Z); its
     * command line is empty, and its executable, folder, open files and environment are gone.
     */
    exit(pid) {
      const dir = join(root, String(pid));
      stat(pid, procs.get(pid)!, 'Z');
      writeFileSync(join(dir, 'cmdline'), '');
      writeFileSync(join(dir, 'environ'), '');
      writeFileSync(join(dir, 'status'), `Name:\t${basename(procs.get(pid)!.argv[0] ?? '')}\n`);
      for (const gone of ['exe', 'cwd', 'fd']) rmSync(join(dir, gone), { recursive: true, force: true });
    },
  };
}
