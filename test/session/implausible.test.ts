// Counts no record can mean: skipped and counted as `implausible_value`, never added (one 1e308
// held tokens_total and cost_usd_total at +Inf for ever, also after a restart).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { codex } from '../../src/readers/codex/reader.js';
import { countGrowth, skipTotals, tokenCounts, type Marks } from '../../src/readers/cumulative.js';
import { secondsToMs } from '../../src/readers/sqlite.js';
import { ZERO_USAGE } from '../../src/session/types.js';
import { SessionStore } from '../../src/store/store.js';
import { StateDb } from '../../src/state/db.js';
import { recorder } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const ts = (s: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, s)).toISOString();

function setup(name: 'claude-code' | 'codex', stateDir = tempDir()) {
  const root = tempDir();
  const db = new StateDb(stateDir);
  const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
  const collector = new Collector<unknown>(
    name,
    name === 'codex' ? codex : claudeCode,
    [root],
    store,
    db,
    createLogger('error'),
  );
  const sum = (metric: string, type?: string) =>
    [...store.counters.values()]
      .filter((c) => c.metric === metric && (type === undefined || c.labels.token_type === type))
      .reduce((a, c) => a + c.value, 0);
  return { root, db, store, collector, sum, stateDir };
}

const answer = (id: string, usage: Record<string, unknown>, s = 1) =>
  `${JSON.stringify({
    type: 'assistant',
    timestamp: ts(s),
    cwd: '/src/app',
    message: { id, model: 'claude-sonnet-4-5', content: [], stop_reason: 'end_turn', usage },
  })}\n`;

describe('implausible token counts', () => {
  it('skips a record whose count is huge, negative or not whole, counts it, and keeps counting the others', async () => {
    const t = setup('claude-code');
    const dir = join(t.root, 'projects', '-src-app');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 's1.jsonl'),
      answer('m1', { input_tokens: 1e308, output_tokens: 1 }) +
        answer('m2', { input_tokens: 1.23e29, output_tokens: 1 }, 2) +
        answer('m3', { input_tokens: 2 ** 40, output_tokens: 1 }, 3) +
        answer('m4', { input_tokens: 1.5, output_tokens: 1 }, 4) +
        answer('m5', { input_tokens: 10, output_tokens: 2 }, 5) +
        answer('m6', { input_tokens: '20', output_tokens: '3' }, 6) +
        answer('m7', { input_tokens: -5, output_tokens: 1 }, 7),
    );
    await t.collector.scan();
    expect(t.collector.stats.skipped.get('implausible_value')).toBe(5);
    expect(t.sum('tokens', 'input')).toBe(30); // strings of digits are read as numbers
    expect(t.sum('tokens', 'output')).toBe(5);
    for (const c of t.store.counters.values()) expect(Number.isFinite(c.value)).toBe(true);
    expect(t.sum('cost')).toBeGreaterThan(0);
    expect(t.sum('cost')).toBeLessThan(1);
  });

  it('skips and counts a record with a token field that is no count, never reading it as 0', async () => {
    const t = setup('claude-code');
    const dir = join(t.root, 'projects', '-src-app');
    mkdirSync(dir, { recursive: true });
    const bad: unknown[] = ['-5', '12a', true, {}, 'NaN', '', [], '1e3'];
    writeFileSync(
      join(dir, 's1.jsonl'),
      bad.map((v, i) => answer(`m${i}`, { input_tokens: v, output_tokens: 1 }, i)).join('') +
        answer(
          'c1',
          {
            input_tokens: 1,
            output_tokens: 1,
            cache_creation_input_tokens: '-5',
            cache_creation: { ephemeral_5m_input_tokens: 4 },
          },
          20,
        ) +
        answer('ok', { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: null }, 21),
    );
    await t.collector.scan();
    expect(t.collector.stats.skipped.get('implausible_value')).toBe(bad.length + 1);
    expect(t.sum('tokens', 'input')).toBe(10);
    expect(t.sum('tokens', 'output')).toBe(2);
  });

  it('counts a record with NaN, Infinity or 0x10 (no JSON) as parse_error and 1e400 (Infinity) as implausible_value', async () => {
    const t = setup('claude-code');
    const dir = join(t.root, 'projects', '-src-app');
    mkdirSync(dir, { recursive: true });
    const raw = (id: string, literal: string, s: number) =>
      answer(id, { input_tokens: '@', output_tokens: 1 }, s).replace('"@"', literal);
    writeFileSync(
      join(dir, 's1.jsonl'),
      raw('m1', 'NaN', 1) +
        raw('m2', 'Infinity', 2) +
        raw('m3', '-Infinity', 3) +
        raw('m4', '0x10', 4) +
        raw('m5', '1e400', 5) +
        raw('m6', '01', 6) +
        answer('ok', { input_tokens: 10, output_tokens: 2 }, 7),
    );
    await t.collector.scan();
    expect(Object.fromEntries(t.collector.stats.skipped)).toEqual({ parse_error: 5, implausible_value: 1 });
    expect(t.sum('tokens', 'input')).toBe(10);
  });

  it('a Codex cumulative total of 1e308 does not stop later counting in its thread', async () => {
    const t = setup('codex');
    const day = join(t.root, 'sessions', '2026', '11', '30');
    mkdirSync(day, { recursive: true });
    const line = (s: number, o: object) => `${JSON.stringify({ timestamp: ts(s), ...o })}\n`;
    const total = (s: number, input: number, output: number) =>
      line(s, {
        type: 'event_msg',
        payload: { type: 'token_count', info: { total_token_usage: { input_tokens: input, output_tokens: output } } },
      });
    writeFileSync(
      join(day, 'rollout-2026-11-30T10-00-00-01a22a3d-05e6-72a3-9eaf-d395a9e9befd.jsonl'),
      line(0, { type: 'session_meta', payload: { id: 'x', cwd: '/src/app' } }) +
        total(1, 100, 10) +
        total(2, 1e308, 20) +
        total(3, 300, 30),
    );
    await t.collector.scan();
    expect(t.collector.stats.skipped.get('implausible_value')).toBe(1);
    expect(t.sum('tokens', 'input')).toBe(300);
    expect(t.sum('tokens', 'output')).toBe(30);
  });

  it("a database row's running total that is no count is skipped once and does not stop later counting", () => {
    const r = recorder();
    const marks: Marks = {};
    // Hermes, Kodelet, goose and Crush read a row's totals again while they grow.
    for (const row of [
      [100, 10],
      [1e308, 20],
      [1e308, 20],
      [-5, 20],
      [2 ** 40, 1],
      [1.5, 1],
      [300, 30],
    ]) {
      const tokens = tokenCounts(row);
      if (!tokens) skipTotals(r.events, 's1', row);
      else
        countGrowth(r.events, marks, 's1', 'm', { ...ZERO_USAGE, input: tokens[0]!, output: tokens[1]! }, undefined, 0);
    }
    expect(r.log.filter(([e]) => e === 'skipped')).toEqual([
      ['skipped', 'implausible_value'],
      ['skipped', 'implausible_value'],
      ['skipped', 'implausible_value'],
      ['skipped', 'implausible_value'],
    ]);
    expect(
      r.log
        .filter(([e]) => e === 'usage')
        .map(([, , u]) => [(u as typeof ZERO_USAGE).input, (u as typeof ZERO_USAGE).output]),
    ).toEqual([
      [100, 10],
      [200, 20],
    ]);
    expect(tokenCounts([null, 7n, 2 ** 40 - 1])).toEqual([0, 7, 2 ** 40 - 1]);
  });

  it("a time in a database past any date is no time (it would hold a session's activity at +Inf)", () => {
    expect([1e308, 2 ** 53, -1, 0, 'x'].map(secondsToMs)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(secondsToMs(1796040000.5)).toBe(1796040000500);
  });

  it('a counter stored as +Inf by an older version starts over instead of staying +Inf', () => {
    const stateDir = tempDir();
    const db = new StateDb(stateDir);
    db.commit({
      files: [],
      removedFiles: [],
      sessions: [],
      kv: [],
      seen: [],
      counters: [
        {
          key: 'tokens\0claude-code\0app\0m\0input',
          metric: 'tokens',
          labels: JSON.stringify({ harness: 'claude-code', project: 'app', model: 'm', token_type: 'input' }),
          value: Infinity,
        },
      ],
    });
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    expect([...store.counters.values()].map((c) => c.value)).toEqual([0]);
  });
});
