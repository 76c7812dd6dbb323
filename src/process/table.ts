// The process table of the user the exporter runs as: Linux from /proc (or a folder laid out like
// it), macOS from `ps` (and `lsof` for a working directory). Other users' processes are never
// looked at: their environment and open files are not ours to read.

import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isFile, readText } from '../files/dir.js';
import { join } from 'node:path';
import { isDemoStandIn } from './harnesses.js';

export interface Proc {
  pid: number;
  ppid: number;
  argv: string[];
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22): with the pid, a process's identity. */
  startTicks: number;
  /**
   * The program the process runs (its command name and executable): exec changes it, not the pid
   * or start. A shim or wrapper (pyenv, mise, volta, a shell script) becomes the agent it starts.
   */
  image: string;
  /** Start time as Unix ms. */
  startedAt: number;
  /** CPU time used so far, in seconds. */
  cpuSeconds: number;
}

export interface ProcessTable {
  list(): Proc[];
  /**
   * The pids of every process, and no more (a folder listing on Linux): how a scan that finds no
   * agent running watches cheaply for new processes. Absent where listing costs what `list` does.
   */
  pids?(): number[];
  /** Only these processes, as `list` would give them (those gone or not the user's left out). */
  procs?(pids: readonly number[]): Proc[];
  /** A process's working directory, asked only of the few agent processes. */
  cwd(pid: number): string | undefined;
  /** Resident memory, asked only of agent processes and their children. */
  residentBytes(pid: number): number;
  /** Paths of the files a process holds open (none if unknown). */
  openFiles(pid: number): string[];
  /** Only the named variables of a process's environment; nothing else is kept. */
  environ(pid: number, names: readonly string[]): Record<string, string>;
  /** Whether `environ` can tell anything (not on macOS): without it, a tool child cannot be told from other children. */
  readonly environment: boolean;
  /** Whether `startTicks` is Linux's (`/proc/<pid>/stat` field 22), the unit registries record a pid's start in. */
  readonly linuxTicks: boolean;
}

// Linux's USER_HZ: 100 on every architecture Node runs on.
const TICKS = 100;

// One buffer for the small /proc files read at every scan (`stat`, `status`, a new process's
// `cmdline`): an open, a read and a close each, not readFileSync's fstat and read to the end into
// a new buffer. A file that fills it is read again whole.
const small = Buffer.alloc(8192);
function readSmall(path: string, encoding: BufferEncoding = 'latin1'): string {
  const fd = openSync(path, 'r');
  let n: number;
  try {
    n = readSync(fd, small, 0, small.length, null);
  } finally {
    closeSync(fd);
  }
  return n < small.length ? small.toString(encoding, 0, n) : readFileSync(path, encoding);
}

/** /proc, or a folder laid out like it (tests; a host's /proc mounted into a container). */
export function procTable(root: string): ProcessTable {
  const uid = process.getuid?.();
  // The boot time, read once: /proc/stat's other lines (a count per interrupt) made reading it
  // most of what a scan of three agents' processes cost.
  let boot: number | undefined;
  const bootMs = (): number => {
    if (boot !== undefined) return boot;
    const m = /^btime (\d+)$/m.exec(readText(join(root, 'stat')) ?? '');
    if (m) boot = exactBoot(Number(m[1]) * 1000, readText(join(root, 'uptime')));
    return boot ?? 0;
  };
  const link = (path: string): string | undefined => {
    try {
      return readlinkSync(path);
    } catch {
      return undefined;
    }
  };
  // A link (/proc), or a file holding its target (a copy of /proc taken as a snapshot).
  const target = (path: string): string | undefined => link(path) ?? (readText(path)?.trim() || undefined);
  // What does not change while a process runs one program (its command line, mostly), by pid,
  // start and program: a scan every second reads only `stat` and `exe` of a process it knows.
  let known = new Map<string, string[] | null>();
  let seen = new Map<string, string[] | null>();
  // The start of each pid found to be the user's, so that its owner is asked once, not every scan.
  let ownKnown = new Map<number, number>();
  let ownSeen = new Map<number, number>();
  const ours = (dir: string) => uid === undefined || statSync(dir).uid === uid;
  const read = (pid: number, boot: number): Proc | undefined => {
    const dir = join(root, String(pid));
    try {
      // Another user's process is not looked into at all (but for the `stat` of a pid that was the
      // user's, to tell it was reused).
      const ownStart = ownKnown.get(pid) ?? ownSeen.get(pid);
      if (ownStart === undefined && !ours(dir)) return undefined;
      const stat = readSmall(join(dir, 'stat'));
      // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A zombie (or a process being torn down) has exited: it is gone, though its parent has not
      // reaped it yet. Its command line, known from before, must not keep it alive.
      if (f[0] === 'Z' || f[0] === 'X') return undefined;
      const startTicks = Number(f[19]);
      if (ownStart !== undefined && ownStart !== startTicks && !ours(dir)) return undefined;
      ownSeen.set(pid, startTicks);
      // Either alone may stay across an exec: the command name (the file exec'd) when a script
      // named like the harness execs it, the executable when one script execs another of the same
      // interpreter (pyenv's). `exe` only as a link: a copy of /proc may hold the program itself.
      const image = `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}\0${link(join(dir, 'exe')) ?? ''}`;
      const key = `${pid}@${startTicks}\0${image}`;
      let argv = known.get(key);
      if (argv === undefined) {
        argv = readSmall(join(dir, 'cmdline'), 'utf8').split('\0');
        if (argv.at(-1) === '') argv.pop();
        // A kernel thread has no command line.
        if (argv.length === 0) argv = null;
      }
      seen.set(key, argv);
      if (!argv) return undefined;
      return {
        pid,
        ppid: Number(f[1]),
        argv,
        startTicks,
        image,
        startedAt: boot + (startTicks * 1000) / TICKS,
        cpuSeconds: (Number(f[11]) + Number(f[12])) / TICKS,
      };
    } catch {
      return undefined; // exited while being read
    }
  };
  const pids = () =>
    readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  return {
    environment: true,
    linuxTicks: true,
    list() {
      const boot = bootMs();
      const procs: Proc[] = [];
      seen = new Map();
      ownSeen = new Map();
      for (const pid of pids()) {
        const p = read(pid, boot);
        if (p) procs.push(p);
      }
      // Processes gone since are forgotten.
      known = seen;
      ownKnown = ownSeen;
      return procs;
    },
    pids,
    procs(some) {
      const boot = bootMs();
      return some.flatMap((pid) => read(pid, boot) ?? []);
    },
    residentBytes(pid) {
      try {
        const rss = /^VmRSS:\s+(\d+) kB$/m.exec(readSmall(join(root, String(pid), 'status')));
        return rss ? Number(rss[1]) * 1024 : 0;
      } catch {
        return 0;
      }
    },
    cwd: (pid) => target(join(root, String(pid), 'cwd')),
    openFiles(pid) {
      // Not the readers' cached listing: a /proc folder's mtime says nothing of its entries.
      const fd = join(root, String(pid), 'fd');
      try {
        return readdirSync(fd).flatMap((n) => target(join(fd, n)) ?? []);
      } catch {
        return [];
      }
    },
    environ(pid, names) {
      const out: Record<string, string> = {};
      let raw: string;
      try {
        raw = readFileSync(join(root, String(pid), 'environ'), 'utf8');
      } catch {
        return out;
      }
      for (const pair of raw.split('\0')) {
        const i = pair.indexOf('=');
        const name = pair.slice(0, i);
        if (i > 0 && names.includes(name)) out[name] = pair.slice(i + 1);
      }
      return out;
    },
  };
}

/**
 * The boot time to the hundredth of a second: `btime` is whole seconds, which put every start up
 * to a second early (a tool started just after a hook's event, before it). The uptime (in
 * hundredths) places it, where it agrees with `btime` (a copy of /proc holds an uptime of then).
 */
function exactBoot(btimeMs: number, uptime: string | undefined, now = Date.now()): number {
  const up = Number(/^(\d+(?:\.\d+)?)\s/.exec(uptime ?? '')?.[1]);
  const exact = Math.round(now - up * 1000);
  return exact > btimeMs - 50 && exact < btimeMs + 1050 ? exact : btimeMs;
}

/** Runs a program and gives its output ('' when it fails): how `psTable` asks `ps` and `lsof`. */
export type Run = (cmd: string, args: string[]) => string;

// The columns asked of `ps`, the same options on macOS (BSD) and Linux (procps): `state` to leave
// out zombies, `time` (CPU: BSD's `m:ss.hh`, procps's `[dd-]hh:mm:ss`) and `lstart` (a fixed-width
// date, the same at every scan: a start computed from the elapsed time would drift by a second).
export const PS_ARGS = ['-x', '-o', 'pid=,ppid=,state=,rss=,time=,lstart=,command='];
const PS_LINE = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\s+(.*)$/;

/** A CPU time as `ps` prints it, `[dd-][hh:]mm:ss[.hh]` (BSD's minutes may pass 59), in seconds. */
export function cpuSeconds(t: string): number {
  return t
    .split(/[-:]/)
    .map(Number)
    .reduceRight((acc, v, i, a) => acc + v * [1, 60, 3600, 86400][a.length - 1 - i]!, 0);
}

/**
 * A command line as `ps` shows it, its arguments joined with spaces, split back at spaces: but an
 * absolute program path that holds spaces (`~/Library/Application Support/…`, `… .app/Contents/…`)
 * is one argument, the shortest run of words that is a file. Asked once per process.
 */
function argvOf(command: string): string[] {
  const words = command.split(' ');
  if (!words[0]!.startsWith('/') || words.length === 1 || isFile(words[0]!)) return words;
  for (let k = 2; k <= words.length; k++) {
    if (isFile(words.slice(0, k).join(' '))) return [words.slice(0, k).join(' '), ...words.slice(k)];
  }
  return words;
}

export const runInCLocale = (): Run => {
  // Loaded here: Linux never runs a command, and each module loaded is start-up time.
  const { execFileSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  // The C locale: `lstart` is a date in the user's language otherwise, and BSD's `time` has the
  // locale's decimal comma (`0:01,23`), neither of which would parse.
  const env = { ...process.env, LC_ALL: 'C' };
  return (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    } catch {
      return '';
    }
  };
};

/**
 * macOS: `ps` for the user's own processes, `lsof` for the working directory and open files of
 * the few processes asked about. No environment (macOS does not show it to `ps` reliably).
 */
export function psTable(run: Run = runInCLocale()): ProcessTable {
  const rss = new Map<number, number>();
  const cwds = new Map<number, string | undefined>();
  // Each process's arguments, by pid, start and command line (a file is looked for only once).
  let known = new Map<string, string[]>();
  const lsof = (pid: number, what: string[]) =>
    run('lsof', ['-a', '-p', String(pid), ...what, '-Fn'])
      .split('\n')
      .filter((l) => l.startsWith('n'))
      .map((l) => l.slice(1));
  return {
    environment: false,
    linuxTicks: false,
    list() {
      const procs: Proc[] = [];
      rss.clear();
      const seen = new Map<string, string[]>();
      for (const line of run('ps', PS_ARGS).split('\n')) {
        const m = PS_LINE.exec(line);
        const startedAt = m ? Date.parse(m[6]!) : NaN;
        // A zombie has exited (its parent has not reaped it yet): gone, as on Linux.
        if (!m || Number.isNaN(startedAt) || m[3]!.startsWith('Z')) continue;
        const pid = Number(m[1]);
        const key = `${pid}@${startedAt}\0${m[7]}`;
        const argv = known.get(key) ?? argvOf(m[7]!);
        seen.set(key, argv);
        rss.set(pid, Number(m[4]) * 1024);
        procs.push({
          pid,
          ppid: Number(m[2]),
          argv,
          startTicks: startedAt / 1000,
          image: m[7]!,
          startedAt,
          cpuSeconds: cpuSeconds(m[5]!),
        });
      }
      known = seen;
      for (const pid of cwds.keys()) if (!rss.has(pid)) cwds.delete(pid);
      return procs;
    },
    residentBytes: (pid) => rss.get(pid) ?? 0,
    // One lsof per process, not per scan: an agent stays in the folder it was started in.
    cwd(pid) {
      if (!cwds.has(pid)) cwds.set(pid, lsof(pid, ['-d', 'cwd'])[0]);
      return cwds.get(pid);
    },
    openFiles: (pid) => lsof(pid, []),
    environ: () => ({}),
  };
}

/** The process table of this platform, or undefined where there is none we can read. */
export function platformTable(
  procRoot: string,
  platform: NodeJS.Platform = process.platform,
): ProcessTable | undefined {
  // Windows has neither /proc nor ps (a `/proc` there is a folder of drive C:).
  if (platform === 'win32') return undefined;
  try {
    if (readdirSync(procRoot).some((n) => /^\d+$/.test(n))) return procTable(procRoot);
  } catch {
    // no /proc here
  }
  return platform === 'darwin' ? psTable() : undefined;
}

/** What `sessions` and the page say where the process table is on but this platform has none. */
export function noTableNote(platform: NodeJS.Platform = process.platform): string {
  return `no process table on this platform (${platform}): statuses come from session files and hooks alone`;
}

/**
 * Only the processes `pid` started, directly or through others (the demo's own agents): the rest
 * of the machine's processes are not listed.
 */
export function descendantsOf(table: ProcessTable, pid: number): ProcessTable {
  return {
    ...table,
    // No cheap watch: whose descendant a process is, only the whole table tells.
    pids: undefined,
    procs: undefined,
    list() {
      const all = table.list();
      const children = new Map<number, Proc[]>();
      for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
      const out: Proc[] = [];
      for (let next = children.get(pid) ?? []; next.length > 0; next = next.flatMap((p) => children.get(p.pid) ?? []))
        out.push(...next);
      return out;
    },
  };
}

/**
 * The table without a running `demo`'s stand-in agents (isDemoStandIn): an exporter beside the demo
 * counts none of them as the user's agents (each demo's sample home would be a new project).
 */
export function withoutDemos(table: ProcessTable): ProcessTable {
  const real = (p: Proc) => !isDemoStandIn(p.argv);
  const { procs } = table;
  return {
    ...table,
    list: () => table.list().filter(real),
    ...(procs ? { procs: (pids: readonly number[]) => procs(pids).filter(real) } : {}),
  };
}
