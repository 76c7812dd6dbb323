// The VS Code extensions' and CLIs' sample HOME (written to the formats of OpenClaw's JSONL
// sessions, Amp's threads, Auggie's sessions and Junie's events, which do not run here, with a
// ground truth of every session): each reader run through a real collector and store, and every
// session checked on what its harness records. `null` in the ground truth means the harness does
// not record it: no series at all, never 0.

import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { amp } from '../../src/readers/amp/reader.js';
import { auggie } from '../../src/readers/auggie/reader.js';
import { junie } from '../../src/readers/junie/reader.js';
import { openclaw } from '../../src/readers/openclaw/reader.js';
import { statusOf } from '../../src/session/status.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';

// A copy outside this repository: a project is named after the git repository a cwd is in.
const HOME = tempDir();
cpSync(join(FIXTURES, 'homes/vscode-extensions-and-clis'), HOME, { recursive: true });

interface Truth {
  harness: string;
  session_id: string;
  project: string | null;
  model: string;
  tokens: { input: number; output: number; cache_read: number; cache_write: number; reasoning: number | null };
  cost_usd: number | null;
  tool_calls: number | null;
  tool_errors: number | null;
  prompts: number | null;
  turns: { completed: number; failed: number; interrupted: number };
  compactions: number | null;
  status: string;
  status_reason: string;
}

const truth = JSON.parse(readFileSync(join(HOME, 'ground-truth.json'), 'utf8')) as { now: string; sessions: Truth[] };
const NOW = Date.parse(truth.now);
const OPTS = { doneForMs: 1800_000, staleAfterMs: 7200_000 };
// The ground truth names Augment's CLI by its company.
const HARNESS: Record<string, string> = { augment: 'auggie' };

describe.each([
  { reader: openclaw, root: join(HOME, '.openclaw') },
  { reader: amp, root: join(HOME, '.local/share/amp/threads') },
  { reader: auggie, root: join(HOME, '.augment/sessions') },
  { reader: junie, root: join(HOME, '.junie/sessions') },
])('$reader.harness on the sample HOME of VS Code extensions and CLIs', ({ reader, root }) => {
  const sessions = truth.sessions.filter((s) => (HARNESS[s.harness] ?? s.harness) === reader.harness);
  let read: Awaited<ReturnType<typeof readHome>>;
  beforeAll(async () => {
    read = await readHome(reader, root);
  });

  it('reads every file without skipping anything', () => {
    expect(sessions.length).toBeGreaterThan(0);
    expect(read.collector.stats.success).toBe(true);
    expect(read.collector.stats.skipped).toEqual(new Map());
  });

  // Not a series of 0: none at all (OpenClaw before 2026.9, Amp, Auggie, Junie write no reasoning).
  it('makes no reasoning series where the harness records none', () => {
    expect(sessions.every((s) => s.tokens.reasoning === null)).toBe(true);
    expect([...read.store.counters.values()].filter((c) => c.metric === 'reasoningTokens')).toEqual([]);
  });

  it.each(sessions.map((s) => [s.session_id, s] as const))('session %s', (_, t) => {
    const s = read.store.sessions.get(`${reader.harness}/${t.session_id}`);
    expect(s, 'the session is found').toBeDefined();
    const tally = read.store.bySession.get(`${reader.harness}/${t.session_id}`) ?? new Map<string, number>();
    const n = (k: string) => tally.get(k) ?? 0;
    if (t.project) expect(s!.project).toBe(t.project);
    expect(s!.model).toBe(t.model);
    expect({ ...s!.tokens, cacheWrite1h: undefined }).toEqual({
      input: t.tokens.input,
      output: t.tokens.output,
      cacheRead: t.tokens.cache_read,
      cacheWrite: t.tokens.cache_write,
      reasoning: t.tokens.reasoning ?? 0,
      cacheWrite1h: undefined,
    });
    // The harness's own cost where it records one (in dollars).
    if (t.cost_usd) expect(s!.costUsd).toBeCloseTo(t.cost_usd, 10);
    expect(tally.has('prompts')).toBe(t.prompts !== null && t.prompts > 0);
    expect(n('prompts')).toBe(t.prompts ?? 0);
    expect(n('toolCalls')).toBe(t.tool_calls ?? 0);
    expect(n('toolErrors')).toBe(t.tool_errors ?? 0);
    expect(n('compactions')).toBe(t.compactions ?? 0);
    expect({ completed: n('turns:completed'), failed: n('turns:failed'), interrupted: n('turns:interrupted') }).toEqual(
      t.turns,
    );
    const status = statusOf(s!, undefined, NOW, OPTS, reader.facts);
    expect({ status: status.status, reason: status.reason }).toEqual({ status: t.status, reason: t.status_reason });
  });
});
