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
import { readStdin } from '../files/stdin.js';
import { appendToSpool } from './append.js';
import { HOOK_HARNESSES, hookRecord, type HookHarness } from './spool.js';

// A payload carries the tool's input (a file written whole): read this much at most. Where stdin
// is never closed, the hook gives up rather than hold the agent.
const STDIN = { maxBytes: 16 << 20, waitMs: 2000 };

/** Runs the hook for `args` (the words and flags after `hook`); the exit code is always 0. */
export async function runHook(
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<number> {
  const { words, stateDir } = hookArgs(args, env);
  const [harness, event, inline] = words;
  // Codex's notify ignores what is printed; every other harness reads JSON.
  if (event !== 'notify') process.stdout.write('{}\n');
  try {
    if (!HOOK_HARNESSES.includes(harness as HookHarness))
      throw new Error(`unknown harness "${harness ?? ''}"; hooks: ${HOOK_HARNESSES.join(', ')}`);
    const raw = inline ?? (await readStdin(stdin, STDIN));
    const payload = parse(raw);
    const record = titleThread(harness, payload)
      ? undefined
      : hookRecord(harness as HookHarness, payload, Date.now(), event, process.ppid);
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

// Codex's notify also reports the turn of the hidden thread that writes a session's title, a
// session that does not exist. That thread is made for its one turn: its turn id (a UUIDv7, which
// begins with its time in ms) follows its thread id by 0.09 s (as recorded), where a session's
// thread is made before its first prompt is typed (43 s). A session started with its prompt
// (`codex exec`) may look the same: its Stop hook has said the turn ended already.
const TITLE_TURN_MS = 1000;

function titleThread(harness: string | undefined, p: Record<string, unknown>): boolean {
  if (harness !== 'codex' || p.type !== 'agent-turn-complete') return false;
  const thread = uuid7Ms(p['thread-id']);
  const turn = uuid7Ms(p['turn-id']);
  return thread !== undefined && turn !== undefined && turn >= thread && turn - thread < TITLE_TURN_MS;
}

function uuid7Ms(id: unknown): number | undefined {
  return typeof id === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(id)
    ? parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
    : undefined;
}

/** The event's JSON object; the error never quotes it (it holds the prompt or the tool's input). */
function parse(raw: string): Record<string, unknown> {
  let payload: unknown;
  try {
    payload = JSON.parse(raw);
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw new Error('the event is not a JSON object');
  return payload as Record<string, unknown>;
}
