// `coding-agent-exporter hook <harness> [event]`: what a harness runs on each lifecycle event. It
// reads the event's JSON (stdin; Codex's `notify` passes it as the last argument), appends one
// line to the spool in the state folder, prints what the harness expects, and exits 0 whatever
// happens: a hook that fails or hangs would stop or slow the agent. It runs before anything else
// of the exporter is loaded (see main.ts), so the state folder is resolved here, from the same
// flag, variable, --config key and default the configuration uses (the whole configuration loader
// costs more start-up than the hook's work).

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { schema } from '../config/schema.js';
import { appendToSpool } from './append.js';
import { HOOK_HARNESSES, hookRecord, type HookHarness } from './spool.js';

// A payload carries the tool's input (a file written whole): read this much at most.
const MAX_PAYLOAD_BYTES = 16 << 20;
// Where stdin is never closed, the hook gives up rather than hold the agent.
const STDIN_WAIT_MS = 2000;

/** Runs the hook for `args` (the words and flags after `hook`); the exit code is always 0. */
export async function runHook(args: string[], env: NodeJS.ProcessEnv, stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): Promise<number> {
  const { words, stateDir } = hookArgs(args, env);
  const [harness, event, inline] = words;
  // Codex's notify ignores what is printed; every other harness reads JSON.
  if (event !== 'notify') process.stdout.write('{}\n');
  try {
    if (!HOOK_HARNESSES.includes(harness as HookHarness)) throw new Error(`unknown harness "${harness ?? ''}"; hooks: ${HOOK_HARNESSES.join(', ')}`);
    const raw = inline ?? (await readStdin(stdin));
    const payload = parse(raw);
    const record = hookRecord(harness as HookHarness, payload, Date.now(), event, process.ppid);
    // Never creates the state folder: a missing one is an error to report.
    if (record) appendToSpool(stateDir, `${JSON.stringify(record)}\n`);
  } catch (e) {
    process.stderr.write(`coding-agent-exporter hook: ${(e as Error).message}\n`);
  }
  return 0;
}

/** The words after `hook`, and the state folder from `--state-dir`, the environment, `--config`'s stateDir or the default. */
export function hookArgs(args: string[], env: NodeJS.ProcessEnv): { words: string[]; stateDir: string } {
  const words: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) words.push(a);
    else if (a.includes('=')) flags.set(a.slice(2, a.indexOf('=')), a.slice(a.indexOf('=') + 1));
    else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith('--')) flags.set(a.slice(2), args[++i]!);
  }
  const key = schema().stateDir;
  let dir = flags.get(key.arg) ?? env[key.env];
  const file = flags.get('config');
  if (dir === undefined && file) {
    try {
      const v = (JSON.parse(readFileSync(file, 'utf8')) as { stateDir?: unknown }).stateDir;
      if (typeof v === 'string') dir = v;
    } catch {
      // An unreadable --config leaves the default: the serving exporter reports it.
    }
  }
  dir ??= key.default;
  const home = env.HOME ?? homedir();
  return { words, stateDir: dir === '~' || dir.startsWith('~/') ? join(home, dir.slice(1)) : dir };
}

/** The event's JSON object; the error never quotes it (it holds the prompt or the tool's input). */
function parse(raw: string): Record<string, unknown> {
  let payload: unknown;
  try {
    payload = JSON.parse(raw);
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new Error('the event is not a JSON object');
  return payload as Record<string, unknown>;
}

function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  if (stdin.isTTY) return Promise.reject(new Error('no event on stdin'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (e?: Error) => {
      clearTimeout(timer);
      stdin.removeAllListeners();
      (stdin as NodeJS.ReadStream).destroy?.();
      if (e) reject(e);
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(() => done(new Error('stdin was not closed')), STDIN_WAIT_MS);
    stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_PAYLOAD_BYTES) done(new Error('the event is too large'));
      else chunks.push(c);
    });
    stdin.on('end', () => done());
    stdin.on('error', (e: Error) => done(e));
  });
}

