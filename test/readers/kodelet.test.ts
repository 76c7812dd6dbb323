// Kodelet's conversation row as it is rewritten over a session: saved after each model call (a
// trailing tool call dropped), after each tool round, at the turn's end, and compacted.

import { Database } from '../helpers/sqlite.js';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goTime, type KodeletState } from '../../src/readers/kodelet/database.js';
import { kodelet } from '../../src/readers/kodelet/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { recorder, type Recorded } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const ID = '20261130T120000-0123456789abcdef';
const prompt = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const toolUse = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'bash', input: {} }] });
const toolResult = (id: string) => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content: [], is_error: false }],
});
const answer = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });

function conversationDb() {
  const path = join(tempDir(), 'storage.db');
  copyFileSync(join(FIXTURES, 'homes/aider-cursor-antigravity-sqlite/.kodelet/storage.db'), path);
  const db = new Database(path);
  db.exec('DELETE FROM conversations; DELETE FROM conversation_summaries');
  let second = 0;
  const file: SessionFile = { path, sessionId: 'storage.db' };
  let state: KodeletState = kodelet.initialState(file);
  const r = recorder();
  return {
    /** Kodelet's save: the whole row, with the running usage. */
    save(messages: object[], output: number, results: Record<string, object> = {}) {
      const t = `2026-11-30 12:00:${String(++second).padStart(2, '0')}.123456789 +0000 UTC m=+${second}.5`;
      const usage = {
        inputTokens: 100 * second,
        outputTokens: output,
        cacheCreationInputTokens: 0,
        cacheReadInputTokens: 0,
        inputCost: 0,
        outputCost: output / 1e6,
        cacheCreationCost: 0,
        cacheReadCost: 0,
        currentContextWindow: 500,
        maxContextWindow: 200000,
      };
      db.prepare(
        `INSERT INTO conversations (id, raw_messages, provider, usage, created_at, updated_at, metadata, tool_results, cwd)
        VALUES (?, ?, 'anthropic', ?, ?, ?, '{"model":"claude-sonnet-4-5"}', ?, '/src/app')
        ON CONFLICT(id) DO UPDATE SET raw_messages = excluded.raw_messages, usage = excluded.usage, updated_at = excluded.updated_at, tool_results = excluded.tool_results`,
      ).run(
        ID,
        JSON.stringify(messages),
        JSON.stringify(usage),
        '2026-11-30 12:00:00.1 +0000 UTC m=+0.1',
        t,
        JSON.stringify(results),
      );
    },
    read(): Recorded[] {
      state = JSON.parse(JSON.stringify(state)) as KodeletState;
      state.sig = undefined; // the rows change within the same second here
      const before = r.log.length;
      kodelet.readStore(file, state, () => r.events);
      return r.log.slice(before);
    },
  };
}

const names = (log: Recorded[]) =>
  log
    .map((e) => e[0])
    .filter((n) => ['prompt', 'turnStarted', 'turnEnded', 'toolCall', 'toolResult', 'compaction'].includes(n));
const output = (log: Recorded[]) =>
  log.filter((e) => e[0] === 'usage').reduce((a, e) => a + (e[2] as { output: number }).output, 0);

describe('Kodelet conversations', () => {
  it('parses Go time strings in any zone, with the monotonic clock suffix', () => {
    expect(goTime('2026-11-30 11:41:00.123456789 +0000 UTC m=+35.1')).toBe(Date.parse('2026-11-30T11:41:00.123Z'));
    expect(goTime('2026-11-30 12:41:00 +0100 CET')).toBe(Date.parse('2026-11-30T11:41:00Z'));
    expect(goTime('yesterday')).toBeUndefined();
  });

  it('count each prompt, turn, call and token once while the row is rewritten, and restart after a compaction', () => {
    const c = conversationDb();
    // The first call answered with a tool call, dropped from the save while it runs: the turn is open.
    c.save([prompt('fix it')], 40);
    let log = c.read();
    expect(names(log)).toEqual(['turnStarted', 'prompt']);
    expect(output(log)).toBe(40);
    c.save([prompt('fix it'), toolUse('t1'), toolResult('t1')], 40, { t1: { toolName: 'bash', success: true } });
    expect(names(c.read())).toEqual(['toolCall', 'toolResult']);
    c.save([prompt('fix it'), toolUse('t1'), toolResult('t1'), answer('fixed')], 90, {
      t1: { toolName: 'bash', success: true },
    });
    log = c.read();
    expect(names(log)).toEqual(['turnEnded']);
    expect(output(log)).toBe(50);
    // Compacted to a summary, then a new prompt answered: one compaction, one more prompt and turn.
    c.save([prompt('Summary of the conversation so far')], 120, { t1: { toolName: 'bash', success: true } });
    log = c.read();
    expect(names(log)).toEqual(['compaction']);
    expect(output(log)).toBe(30);
    c.save([prompt('Summary of the conversation so far'), prompt('now the docs'), answer('done')], 150, {
      t1: { toolName: 'bash', success: true },
    });
    expect(names(c.read())).toEqual(['turnStarted', 'prompt', 'turnEnded']);
    // Read again unchanged: nothing.
    expect(names(c.read())).toEqual([]);
  });

  it('count an unanswered prompt with no output since as an interrupted turn', () => {
    const c = conversationDb();
    c.save([prompt('a'), answer('b')], 10);
    c.read();
    c.save([prompt('a'), answer('b'), prompt('c')], 10);
    expect(names(c.read())).toEqual(['turnStarted', 'prompt', 'turnEnded']);
  });
});
