// Hermes, Kodelet, goose and Crush against the ground truth of a HOME that holds their stores
// (test/fixtures/homes/aider-cursor-antigravity-sqlite, from the shared longtail fixture generator,
// seed 1; Crush's database is written by test/helpers/crush-db.ts). Each harness's stores are read
// once, whole, by the real agent; every session is compared on every field the harness records
// (`null` in the truth: not recorded, which must show as no series, never as 0).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { READERS } from '../helpers/readers.js';
import { statusOf } from '../../src/session/status.js';
import type { HarnessId } from '../../src/session/types.js';
import { countedTurns, recorder, type Recorded } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { crushHome, CRUSH_TRUTH } from '../helpers/crush-db.js';
import type { Truth } from '../helpers/ground-truth.js';

const HOME = join(FIXTURES, 'homes/aider-cursor-antigravity-sqlite');

const truth = JSON.parse(readFileSync(join(HOME, 'ground-truth.sqlite.json'), 'utf8')) as {
  now: string;
  sessions: Truth[];
};
const NOW = Date.parse(truth.now);
const STATUS = { doneForMs: 1800_000, staleAfterMs: 7200_000 };

/**
 * The truth per exported session: a compression chain is one conversation under its first row's
 * id; a subagent's session (its own entry in the truth) folds into its parent's tokens, cost and
 * tools (its prompts and turns are not the person's).
 */
function exported(sessions: Truth[]): Map<string, Truth> {
  const out = new Map<string, Truth>();
  for (const t of sessions.filter((s) => !s.parent_session_id))
    out.set(t.chain?.[0] ?? t.session_id, structuredClone(t));
  for (const c of sessions.filter((s) => s.parent_session_id)) {
    const p = [...out.values()].find((t) => t.session_id === c.parent_session_id)!;
    for (const k of Object.keys(p.tokens) as (keyof Truth['tokens'])[])
      if (p.tokens[k] !== null) p.tokens[k] = p.tokens[k] + c.tokens[k]!;
    p.cost_usd += c.cost_usd;
    if (p.tool_calls !== null) p.tool_calls += c.tool_calls ?? 0;
    if (p.tool_errors !== null) p.tool_errors += c.tool_errors ?? 0;
  }
  return out;
}

/** Events per exported session, from the harness's reader over the HOME's default roots. */
function readEvents(harness: HarnessId, home: string): Map<string, Recorded[]> {
  const reader = READERS[harness];
  if (reader.kind !== 'store') throw new Error(`${harness} does not read a store`);
  const sinks = new Map<string, ReturnType<typeof recorder>>();
  const seen = new Set<string>();
  const eventsOf = (id: string) => {
    let r = sinks.get(id);
    if (!r) {
      sinks.set(id, (r = recorder()));
      // One collector's dedupe keys, as the store scopes them: across all its stores.
      r.events.firstTime = (k) => !seen.has(k) && Boolean(seen.add(k));
    }
    return r.events;
  };
  for (const root of reader.defaultRoots({}, home)) {
    for (const file of reader.listFiles(root)) reader.readStore(file, reader.initialState(file), eventsOf);
  }
  return new Map([...sinks].map(([id, r]) => [id, r.log]));
}

const count = (log: Recorded[], name: string, match?: (e: Recorded) => boolean) =>
  log.filter((e) => e[0] === name && (!match || match(e))).length;

const cases: { harness: HarnessId; home: () => string; sessions: () => Truth[] }[] = [
  { harness: 'hermes', home: () => HOME, sessions: () => truth.sessions.filter((s) => s.harness === 'hermes') },
  { harness: 'kodelet', home: () => HOME, sessions: () => truth.sessions.filter((s) => s.harness === 'kodelet') },
  { harness: 'goose', home: () => HOME, sessions: () => truth.sessions.filter((s) => s.harness === 'goose') },
  { harness: 'crush', home: () => crushHome(), sessions: () => CRUSH_TRUTH },
];

for (const c of cases) {
  describe(`${c.harness}: every session of the ground truth`, () => {
    let agent: Exporter;
    let home: string;
    let logs: Map<string, Recorded[]>;
    let want: Map<string, Truth>;
    beforeAll(async () => {
      home = c.home();
      const config = loadConfig(['--state-dir', tempDir()], { HOME: home });
      agent = new Exporter(config, createLogger('error'), { env: { HOME: home }, home });
      await agent.scanAll();
      logs = readEvents(c.harness, home);
      want = exported(c.sessions());
    });
    afterAll(() => agent.stop());

    it('finds exactly the conversations of the truth', () => {
      const got = [...agent.store.sessions.values()]
        .filter((s) => s.harness === c.harness)
        .map((s) => s.id)
        .sort();
      expect(got).toEqual([...want.keys()].sort());
      expect(agent.collectors.get(c.harness)!.stats.success).toBe(true);
      expect([...agent.collectors.get(c.harness)!.stats.skipped]).toEqual([]);
    });

    it("has each session's project, model, tokens, cost, context and status", () => {
      for (const [id, t] of want) {
        const s = agent.store.sessions.get(`${c.harness}/${id}`)!;
        expect(s, id).toBeDefined();
        expect({ id, project: s.project, model: s.model }).toEqual({ id, project: t.project, model: t.model });
        const tokens = {
          input: s.tokens.input,
          output: s.tokens.output,
          cache_read: s.tokens.cacheRead,
          cache_write: s.tokens.cacheWrite,
          reasoning: s.tokens.reasoning,
        };
        const recorded = Object.fromEntries(Object.entries(t.tokens).filter(([, v]) => v !== null));
        expect({
          id,
          ...Object.fromEntries(Object.keys(recorded).map((k) => [k, tokens[k as keyof typeof tokens]])),
        }).toEqual({ id, ...recorded });
        expect(s.costUsd, id).toBeCloseTo(t.cost_usd, 9);
        if (t.context) expect({ id, used: s.contextTokens, limit: s.contextLimit }).toEqual({ id, ...t.context });
        const st = statusOf(s, undefined, NOW, STATUS, agent.store.harnessFacts.get(c.harness));
        expect({ id, status: st.status, reason: st.reason }).toEqual({ id, status: t.status, reason: t.status_reason });
      }
    });

    it("counts each session's prompts, turns, tool calls and errors, compactions and subagents", () => {
      for (const [id, t] of want) {
        const log = logs.get(id) ?? [];
        const got = {
          id,
          prompts: t.prompts === null ? null : count(log, 'prompt'),
          turns:
            t.turns === null
              ? null
              : Object.fromEntries(
                  (['completed', 'failed', 'interrupted'] as const).map((o) => [
                    o,
                    countedTurns(log).filter((c) => c === o).length,
                  ]),
                ),
          // A call reported again while pending (goose's approval request) is one call.
          tool_calls:
            t.tool_calls === null ? null : new Set(log.filter((e) => e[0] === 'toolCall').map((e) => e[1])).size,
          tool_errors: t.tool_errors === null ? null : count(log, 'toolResult', (e) => e[2] === true),
          compactions: t.compactions == null ? t.compactions : count(log, 'compaction'),
          subagents: [...agent.store.sessions.get(`${c.harness}/${id}`)!.pendingTools.values()].filter(
            (p) => p.waits === 'subagents',
          ).length,
        };
        expect(got).toEqual({
          id,
          prompts: t.prompts,
          turns: t.turns,
          tool_calls: t.tool_calls,
          tool_errors: t.tool_errors,
          compactions: t.compactions,
          subagents: t.subagents,
        });
      }
    });

    it('makes no series for what the harness does not record', () => {
      const series = [...agent.store.counters.values()].filter((k) => k.labels.harness === c.harness);
      const sessions = [...want.values()];
      for (const type of ['input', 'output', 'cache_read', 'cache_write'] as const) {
        const unrecorded = sessions.every((t) => t.tokens[type] === null);
        expect(
          series.some((k) => k.metric === 'tokens' && k.labels.token_type === type),
          `${type} series`,
        ).toBe(!unrecorded);
      }
      if (sessions.every((t) => t.tool_errors === null))
        expect(series.filter((k) => k.metric === 'toolErrors')).toEqual([]);
    });
  });
}
