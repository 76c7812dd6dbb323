// A reader that fell behind its harness's format: sessions that did work (finished turns, records
// of an unknown shape) with no tokens counted
// raise coding_agent_exporter_drift_sessions, are marked in `sessions`, and are logged once.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { liveSessions } from '../../src/store/live.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { codex } from '../../src/readers/codex/reader.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { tempDir } from '../helpers/run.js';

const now = Date.UTC(2026, 10, 30, 10, 5);
const ts = (s: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, s)).toISOString();
const opts = {
  status: { doneForMs: 1_800_000, staleAfterMs: 7_200_000 },
  activeWindowMs: 86_400_000,
  perSessionMax: 50,
  version: 'x',
};

function setup() {
  const db = new StateDb(tempDir());
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const logs: string[] = [];
  const log = createLogger('warn', (l) => void logs.push(l));
  const claudeRoot = tempDir();
  const codexRoot = tempDir();
  const collectors = new Map<string, Collector<unknown>>([
    ['claude-code', new Collector('claude-code', claudeCode, [claudeRoot], store, db, log)],
    ['codex', new Collector('codex', codex, [codexRoot], store, db, log)],
  ]);
  const drift = () =>
    Object.fromEntries(
      snapshot(store, new Map([...collectors].map(([n, c]) => [n, c.stats])), opts, now)
        .find((f) => f.def.name === 'coding_agent_exporter_drift_sessions')!
        .points.map((p) => [p.labels.collector, p.value]),
    );
  return { store, logs, claudeRoot, codexRoot, collectors, drift };
}

describe('drift', () => {
  it('a Claude Code session made only of records of an unknown shape drifts', async () => {
    const t = setup();
    const dir = join(t.claudeRoot, 'projects', '-src-app');
    mkdirSync(dir, { recursive: true });
    // Answers whose message moved somewhere the reader does not look.
    const line = (s: number) =>
      `${JSON.stringify({ type: 'assistant', timestamp: ts(s), cwd: '/src/app', reply: { model: 'claude-x', usage: { input_tokens: 5 } } })}\n`;
    writeFileSync(join(dir, 's1.jsonl'), line(1) + line(2));
    writeFileSync(join(dir, 's2.jsonl'), line(3));
    for (const c of t.collectors.values()) await c.scan();
    expect(t.drift()).toEqual({ 'claude-code': 2, codex: 0 });
    expect(t.collectors.get('claude-code')!.stats.skipped.get('unknown_shape')).toBe(3);
    const warnings = t.logs
      .map((l) => JSON.parse(l) as { msg: string })
      .filter((l) => l.msg.startsWith('reader drift'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ collector: 'claude-code', path: join(dir, 's1.jsonl'), session: 's1' });
    expect(liveSessions(t.store, now, opts).map((l) => l.drift)).toEqual([true, true]);
  });

  it('a Codex session whose turns finish while its token counts are not read drifts; one that failed or was cut off before any usage does not', async () => {
    const t = setup();
    const day = join(t.codexRoot, 'sessions', '2026', '11', '30');
    mkdirSync(day, { recursive: true });
    const line = (s: number, type: string, payload: object) =>
      `${JSON.stringify({ timestamp: ts(s), type, payload })}\n`;
    const rollout = (id: string, body: string) =>
      writeFileSync(
        join(day, `rollout-2026-11-30T10-00-00-${id}.jsonl`),
        line(0, 'session_meta', { id, cwd: '/src/app' }) + body,
      );
    rollout(
      '01a22a3d-0000-7000-8000-000000000001',
      line(1, 'event_msg', { type: 'task_started' }) +
        line(2, 'response_item', { type: 'function_call', name: 'exec_command', call_id: 'c1', arguments: '{}' }) +
        line(3, 'response_item', { type: 'function_call_output', call_id: 'c1', output: 'ok' }) +
        // A renamed usage object: nothing the reader knows.
        line(4, 'event_msg', { type: 'token_count', usage_v2: { input: 10 } }) +
        line(5, 'event_msg', { type: 'task_complete' }),
    );
    rollout(
      '01a22a3d-0000-7000-8000-000000000002',
      line(1, 'event_msg', { type: 'task_started' }) + line(2, 'event_msg', { type: 'error', message: 'quota' }),
    );
    // A first step cut off after its tool call, before its usage was written.
    rollout(
      '01a22a3d-0000-7000-8000-000000000003',
      line(1, 'event_msg', { type: 'task_started' }) +
        line(2, 'response_item', { type: 'function_call', name: 'exec_command', call_id: 'c1', arguments: '{}' }) +
        line(3, 'event_msg', { type: 'turn_aborted', reason: 'interrupted' }),
    );
    for (const c of t.collectors.values()) await c.scan();
    expect(t.drift()).toEqual({ 'claude-code': 0, codex: 1 });
  });
});
