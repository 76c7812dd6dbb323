// The Aider, Cursor agent and Antigravity sample HOME (written to the formats of Aider, Cursor
// agent and Antigravity CLI, which do not run here, with a ground truth of every session): each
// reader run through a real collector and store, and every session checked on what its harness
// records. `null` in the ground truth means the harness does not record it: no series at all, never
// 0.

import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../../src/metrics/snapshot.js';
import { liveSessions } from '../../src/store/live.js';
import { sessionsJson, viewRecords } from '../../src/view/records.js';
import { aider } from '../../src/readers/aider/reader.js';
import { antigravityCli } from '../../src/readers/antigravity-cli/reader.js';
import { cursorAgent } from '../../src/readers/cursor-agent/reader.js';
import { statusOf } from '../../src/session/status.js';
import type { HarnessId } from '../../src/session/types.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';

// A copy outside this repository: a project is named after the git repository a cwd is in.
const HOME = tempDir();
cpSync(join(FIXTURES, 'homes/aider-cursor-antigravity-sqlite'), HOME, { recursive: true });

interface Truth {
  harness: HarnessId;
  session_id: string;
  project: string;
  model: string;
  tokens: { input: number; output: number; cache_read: number; cache_write: number; reasoning: number | null } | null;
  cost_usd?: number | null;
  cost_usd_printed?: string | null;
  tool_calls: number | null;
  tool_errors: number | null;
  prompts: number;
  turns: { completed: number; failed: number; interrupted: number } | null;
  subagents: number;
  status: string;
  status_reason: string;
}

const truth = JSON.parse(readFileSync(join(HOME, 'ground-truth.aider-cursor-antigravity.json'), 'utf8')) as {
  now: string;
  sessions: Truth[];
};

// Aider's header times and Cursor's prompt stamps are local times without a zone; the ground
// truth wrote them for a clock at UTC: its "now" is taken in the same local time for them.
const localNow = Date.parse(truth.now.replace(/Z$/, ''));
const NOW: Record<string, number> = {
  aider: localNow,
  'cursor-agent': localNow,
  'antigravity-cli': Date.parse(truth.now),
};
const OPTS = { doneForMs: 1800_000, staleAfterMs: 7200_000 };

describe.each([
  { reader: aider, root: HOME },
  { reader: cursorAgent, root: join(HOME, '.cursor') },
  { reader: antigravityCli, root: join(HOME, '.gemini', 'antigravity-cli') },
])('$reader.harness on the Aider, Cursor agent and Antigravity sample HOME', ({ reader, root }) => {
  const sessions = truth.sessions.filter((s) => s.harness === reader.harness);
  let read: Awaited<ReturnType<typeof readHome>>;
  beforeAll(async () => {
    read = await readHome(reader, root);
  });

  it('reads every file without skipping anything', () => {
    expect(read.collector.stats.success).toBe(true);
    expect(read.collector.stats.skipped).toEqual(new Map());
  });

  it.each(sessions.map((s) => [s.session_id, s] as const))('session %s', (_, t) => {
    // The ground truth names Aider's sessions by their history's path, as releases before did (no id is a path now).
    const named = t.session_id.replace('$HOME', HOME);
    const id = reader.renamedSession?.(named) ?? named;
    const s = read.store.sessions.get(`${reader.harness}/${id}`);
    expect(s, 'the session is found').toBeDefined();
    const tally = read.store.bySession.get(`${reader.harness}/${id}`) ?? new Map<string, number>();
    const n = (k: string) => tally.get(k) ?? 0;
    expect(s!.project).toBe(t.project);
    expect(s!.model).toBe(t.model);
    if (t.tokens) {
      expect({ ...s!.tokens, cacheWrite1h: undefined }).toEqual({
        input: t.tokens.input,
        output: t.tokens.output,
        cacheRead: t.tokens.cache_read,
        cacheWrite: t.tokens.cache_write,
        reasoning: t.tokens.reasoning ?? 0,
        cacheWrite1h: undefined,
      });
    } else {
      expect(n('tokens') + n('cost')).toBe(0);
      expect(s!.usageUnrecorded).toBe(true);
    }
    // Aider's cost is the session total it printed last.
    if (t.cost_usd_printed !== undefined) expect(s!.costUsd).toBeCloseTo(Number(t.cost_usd_printed ?? 0), 10);
    expect(n('prompts')).toBe(t.prompts);
    // Cursor: a subagent's transcript belongs to its parent, and its calls count there (as Claude
    // Code's do); the ground truth counts the parent transcript's only.
    const subagentCalls = reader.harness === 'cursor-agent' ? t.subagents : 0;
    expect(n('toolCalls')).toBe((t.tool_calls ?? 0) + subagentCalls);
    expect(n('toolErrors')).toBe(t.tool_errors ?? 0);
    expect(n('subagents')).toBe(t.subagents);
    if (t.turns) {
      expect({
        completed: n('turns:completed'),
        failed: n('turns:failed'),
        interrupted: n('turns:interrupted'),
      }).toEqual(t.turns);
    }
    const status = statusOf(s!, undefined, NOW[reader.harness]!, OPTS, reader.facts);
    expect({ status: status.status, reason: status.reason }).toEqual({ status: t.status, reason: t.status_reason });
  });

  it('makes no series of what the harness does not record', () => {
    const metrics = new Set(
      [...read.store.counters.values()].filter((c) => c.labels.harness === reader.harness).map((c) => c.metric),
    );
    if (reader.harness === 'cursor-agent') {
      expect([...metrics].filter((m) => ['tokens', 'cost', 'unpricedTokens', 'toolErrors'].includes(m))).toEqual([]);
      const families = snapshot(
        read.store,
        new Map(),
        { version: 't', activeWindowMs: 1e12, perSessionMax: 50, status: OPTS },
        NOW['cursor-agent'],
      );
      expect(families.map((f) => f.def.name)).not.toContain('coding_agent_session_cost_usd');
      // nor does `coding-agent-exporter sessions` show a token count or a cost
      const listed = JSON.parse(
        sessionsJson(
          viewRecords(
            liveSessions(read.store, NOW['cursor-agent']!, { status: OPTS, activeWindowMs: 1e12 }),
            [],
            'name',
          ),
        ),
      ) as { tokens: unknown; cost_usd: unknown }[];
      expect(listed.length).toBe(sessions.length);
      for (const l of listed) expect([l.tokens, l.cost_usd]).toEqual([null, null]);
    }
    if (reader.harness === 'aider') expect(metrics.has('toolCalls')).toBe(false);
    if (reader.harness === 'antigravity-cli') {
      const types = [...read.store.counters.values()]
        .filter((c) => c.metric === 'tokens' && c.labels.harness === reader.harness)
        .map((c) => c.labels.token_type);
      expect([...new Set(types)].sort()).toEqual(['cache_read', 'input', 'output']);
    }
  });
});
