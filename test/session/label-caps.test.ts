// The model and tool labels are capped per harness, as project is: 20,000 model names and MCP
// servers in one transcript made 140,038 series and a 14 MB /metrics.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { snapshot } from '../../src/metrics/snapshot.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { tempDir } from '../helpers/run.js';

const N = 20_000;

function transcript(): string {
  let text = '';
  for (let i = 0; i < N; i++) {
    text += `${JSON.stringify({
      type: 'assistant',
      timestamp: new Date(Date.UTC(2026, 10, 30, 10, 0, 0, i)).toISOString(),
      cwd: '/src/app',
      message: {
        id: `m${i}`,
        model: `model-${i}`,
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 1 },
        content: [{ type: 'tool_use', id: `t${i}`, name: `mcp__server${i}__run`, input: {} }],
      },
    })}\n`;
  }
  return text;
}

function read(stateDir: string, root: string, caps?: { model: number; tool: number }) {
  const db = new StateDb(stateDir);
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 }, caps);
  const collector = new Collector('claude-code', claudeCode, [root], store, db, createLogger('error'));
  return { db, store, collector };
}

describe('label caps', () => {
  it('fold models and tools past the cap into "other", count the folds, and keep every count', async () => {
    const root = tempDir();
    const dir = join(root, 'projects', '-src-app');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 's1.jsonl'), transcript());
    const stateDir = tempDir();
    const { db, store, collector } = read(stateDir, root, { model: 50, tool: 30 });
    await collector.scan();
    const families = snapshot(store, new Map([['claude-code', collector.stats]]), {
      status: { doneForMs: 1, staleAfterMs: 1 },
      activeWindowMs: 0,
      perSessionMax: 0,
      version: 'test',
    });
    const values = (metric: string, label: string) =>
      new Set(families.find((f) => f.def.name === metric)!.points.map((p) => p.labels[label]));
    expect(values('coding_agent_tokens', 'model').size).toBe(51);
    expect(values('coding_agent_tokens', 'model')).toContain('other');
    expect(values('coding_agent_tool_calls', 'tool').size).toBe(31);
    const series = families.reduce((a, f) => a + f.points.length, 0);
    expect(series).toBeLessThan(500);
    const folds = families.find((f) => f.def.name === 'coding_agent_exporter_label_folds')!.points;
    expect(folds).toEqual([
      { labels: { harness: 'claude-code', label: 'model' }, value: N - 50 },
      { labels: { harness: 'claude-code', label: 'tool' }, value: N - 30 },
    ]);
    // The OTLP view's per-request histograms are held to the same cap.
    expect(new Set([...store.requestTokens.values()].map((h) => h.model)).size).toBe(51);
    // Nothing is lost: the counts are all there, some under "other".
    const input = [...store.counters.values()]
      .filter((c) => c.metric === 'tokens' && c.labels.token_type === 'input')
      .reduce((a, c) => a + c.value, 0);
    expect(input).toBe(N);
    const calls = [...store.counters.values()].filter((c) => c.metric === 'toolCalls').reduce((a, c) => a + c.value, 0);
    expect(calls).toBe(N);
    // After a restart, the values admitted keep their place; a new one still folds.
    store.commit();
    db.close();
    const again = read(stateDir, root, { model: 50, tool: 30 });
    expect(again.store.models.label('claude-code', 'model-7')).toBe('model-7');
    expect(again.store.models.label('claude-code', 'model-new')).toBe('other');
    expect(again.store.models.label('codex', 'model-new')).toBe('model-new');
  }, 60_000);
});

describe('label value lengths', () => {
  // A 200 KB folder name and 100 KB model and tool names made a 68 MB /metrics and a 295 MB state database.
  it('are capped at 128 characters, with a hash that keeps two long values apart', async () => {
    const root = tempDir();
    const dir = join(root, 'projects', '-src-app');
    mkdirSync(dir, { recursive: true });
    const long = (c: string, n: number, tail: string) => c.repeat(n) + tail;
    const at = (i: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, i)).toISOString();
    const record = (i: number, cwd: string, model: string, tool: string) =>
      `${JSON.stringify({ type: 'user', timestamp: at(i), cwd, message: { role: 'user', content: 'go' } })}\n${JSON.stringify(
        {
          type: 'assistant',
          timestamp: new Date(Date.UTC(2026, 10, 30, 10, 0, i)).toISOString(),
          cwd,
          message: {
            id: `m${i}`,
            model,
            stop_reason: 'tool_use',
            usage: { input_tokens: 1, output_tokens: 1 },
            content: [{ type: 'tool_use', id: `t${i}`, name: tool, input: {} }],
          },
        },
      )}\n`;
    // A session id as long as a file name can be.
    writeFileSync(
      join(dir, `${long('s', 240, 'a')}.jsonl`),
      record(1, `/src/${long('p', 200_000, 'a')}`, long('m', 100_000, 'a'), long('t', 100_000, 'a')),
    );
    writeFileSync(
      join(dir, `${long('s', 240, 'b')}.jsonl`),
      record(2, `/src/${long('p', 200_000, 'b')}`, long('m', 100_000, 'b'), `mcp__${long('x', 100_000, 'b')}__run`),
    );
    const { store, collector } = read(tempDir(), root);
    await collector.scan();
    const families = snapshot(
      store,
      new Map([['claude-code', collector.stats]]),
      {
        status: { doneForMs: 1e15, staleAfterMs: 1e15 },
        activeWindowMs: 1e15,
        perSessionMax: 50,
        version: 'test',
      },
      Date.UTC(2026, 10, 30, 10, 1),
    );
    const values = families.flatMap((f) => f.points.flatMap((p) => Object.values(p.labels)));
    expect(values.filter((v) => v.length > 128)).toEqual([]);
    const tokens = families.find((f) => f.def.name === 'coding_agent_tokens')!.points;
    expect(new Set(tokens.map((p) => p.labels.project)).size).toBe(2);
    expect(new Set(tokens.map((p) => p.labels.model)).size).toBe(2);
    expect(tokens[0]!.labels.project).toMatch(/^p{119}~[0-9a-f]{8}$/);
    expect(
      new Set(
        families
          .find((f) => f.def.name === 'coding_agent_session_last_activity_timestamp_seconds')!
          .points.map((p) => p.labels.session_id),
      ).size,
    ).toBe(2);
    for (const c of store.counters.values()) expect(c.key.length).toBeLessThan(1000);
  });
});
