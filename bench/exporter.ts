// The real binary as the bench runs it: `serve` over a HOME on a free port, what it serves, and what
// CPU and memory it uses as the kernel counts them.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { MAIN } from './root.js';

export interface Exporter {
  /** Its /metrics URL. */
  url: string;
  pid: number;
  /** When it was spawned (performance.now()). */
  spawnedAt: number;
  stop: () => Promise<unknown>;
}

/**
 * Starts `coding-agent-exporter` over a HOME (watching, periodic rescans out of the way unless `args`
 * say otherwise); resolves once it listens, or (`untilFirstScan`) once its first scan is done.
 */
export async function startExporter(
  stateDir: string,
  home: string,
  args = ['--rescan-seconds', '3600'],
  untilFirstScan = true,
): Promise<Exporter> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [MAIN, '--listen-address', '127.0.0.1:0', '--state-dir', stateDir, ...args], {
    env: { PATH: process.env.PATH, HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let log = '';
      let bound = 0;
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        log += d;
        const listening = /"msg":"listening","address":"[^"]*:(\d+)"/.exec(log);
        if (listening) bound = Number(listening[1]);
        if (bound && (!untilFirstScan || log.includes('"msg":"first scan done"'))) resolve(bound);
      });
      child.once('exit', () => reject(new Error(`exporter exited: ${log}`)));
    });
    return { url: `http://127.0.0.1:${port}/metrics`, pid: child.pid!, spawnedAt, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The CPU time a live process used so far, in clock ticks (utime + stime from /proc/<pid>/stat, 1/100 s). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** A process's resident memory in MB: all of it, what is mapped from files (the Node binary, libraries), the rest (anonymous: heaps, buffers). */
export function residentMb(pid: number): { rss: number; file: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), file: kb('RssFile') + kb('RssShmem'), anon: kb('RssAnon') };
}

/** A plain Node process with an HTTP server listening and nothing else (what Node itself costs), `first` run before it listens. */
export function listeningNode(first = ''): ChildProcess {
  return spawn(process.execPath, ['-e', `${first}require('node:http').createServer().listen(0, '127.0.0.1');`], {
    stdio: 'ignore',
  });
}
