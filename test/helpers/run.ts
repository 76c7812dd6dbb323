// Runs the built binary (dist/main.js) the way a user does.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect } from 'node:util';

export const MAIN = resolve(__dirname, '../../dist/main.js');
export const FIXTURES = resolve(__dirname, '../fixtures');

export function tempDir(prefix = 'cae-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Environment for the binary with HOME pointing at a fixture home and nothing inherited that
 * points elsewhere. Recorded files have no processes: the process table is off unless asked for
 * (the agents running on this machine are not the fixtures').
 */
export function envFor(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false',
    ...extra,
  };
  return env;
}

export function run(args: string[], env: NodeJS.ProcessEnv): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Parses Prometheus text into samples. */
export function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const out: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) throw new Error(`bad exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** Sum of the samples of `name` whose labels include `match`. */
export function sum(text: string, name: string, match: Record<string, string> = {}): number {
  return samples(text)
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

/**
 * Starts the binary with `args` (which should include `--listen-address 127.0.0.1:0`); resolves
 * with its base URL once it logs where it listens. The caller kills the child.
 */
export function listening(
  args: string[],
  env: NodeJS.ProcessEnv,
  bin?: string,
): { child: ChildProcess; url: Promise<string> } {
  // `bin`: an installed coding-agent-exporter instead of this checkout's build.
  const child = bin ? spawn(bin, args, { env }) : spawn(process.execPath, [MAIN, ...args], { env });
  const url = new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /"msg":"listening","address":"([^"]+)"/.exec(err);
      if (m) resolve(`http://${m[1]}`);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err.slice(-2000)}`)));
  });
  return { child, url };
}

/**
 * Polls `f` every `everyMs` until it returns a value (errors count as none); fails after `ms`,
 * saying what it waited for and what its last try saw: the value `f` handed to `saw` (the count
 * short of the one waited for, say), else what it threw, else that it returned nothing.
 */
export async function until<T>(
  f: (saw: <V>(v: V) => V) => Promise<T | undefined>,
  ms: number,
  what = 'a condition',
  everyMs = 20,
): Promise<T> {
  const end = Date.now() + ms;
  let last = '';
  const saw = <V>(v: V): V => {
    last = `saw ${inspect(v, { breakLength: Infinity, maxStringLength: 2000 })}`;
    return v;
  };
  for (;;) {
    last = 'returned undefined';
    const v = await f(saw).catch((e: unknown) => {
      last = `threw ${String(e)}`;
      return undefined;
    });
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}: the last try ${last}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Resolves once the exporter at `base` has done its first scan (`/-/ready` answers 200): it listens before. */
export async function ready(base: string): Promise<void> {
  await until(
    async (saw) => (saw((await fetch(`${base}/-/ready`)).status) === 200 ? true : undefined),
    20_000,
    'the first scan',
  );
}
