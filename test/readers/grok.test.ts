// Grok Build's plan approval, the only wait on the person it persists: `plan_mode.json`'s
// `awaiting_plan_approval`, set while the call that exits plan mode asks, cleared once answered
// or cancelled, and kept when the client quits so that a resume asks again (tool_calls.rs).

import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grok } from '../../src/readers/grok/reader.js';
import { statusOf } from '../../src/session/status.js';
import { tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';

const ID = '01a25059-0993-7e1c-b8ec-667e166af746';
const T = 1796644342;
const NOW = (T + 120) * 1000;
const OPTS = { doneForMs: 1800_000, staleAfterMs: 7200_000 };

const acp = (seconds: number, update: object) =>
  `${JSON.stringify({ timestamp: seconds, method: 'session/update', params: { sessionId: ID, update } })}\n`;
const xai = (seconds: number, update: object) =>
  `${JSON.stringify({ timestamp: seconds, method: '_x.ai/session/update', params: { sessionId: ID, update } })}\n`;

/** A session planning in `/w`, its prompt's turn open, as Grok writes it. */
async function planning() {
  const root = tempDir();
  const dir = join(root, 'sessions', encodeURIComponent('/w'), ID);
  mkdirSync(dir, { recursive: true });
  const updates = join(dir, 'updates.jsonl');
  writeFileSync(
    updates,
    acp(T, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Plan the rename' } }) +
      acp(T + 1, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Read first.' } }),
  );
  const { store, collector } = await readHome(grok, root);
  const planPath = join(dir, 'plan_mode.json');
  return {
    collector,
    append: (text: string) => appendFileSync(updates, text),
    /** `plan_mode.json` rewritten at `seconds`, as Grok does on every change. */
    plan: (text: string, seconds: number) => {
      writeFileSync(planPath, text);
      utimesSync(planPath, seconds, seconds);
    },
    status: (live?: Parameters<typeof statusOf>[1]) => {
      const { status, reason } = statusOf(store.sessions.get(`grok/${ID}`)!, live, NOW, OPTS, grok.facts);
      return `${status}/${reason}`;
    },
  };
}

describe('grok: plan approval', () => {
  it('asks for approval while the call that exits plan mode waits, and goes back once answered', async () => {
    const s = await planning();
    s.append(acp(T + 5, { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'exit_plan_mode', status: 'pending' }));
    await s.collector.scan();
    expect(s.status()).toBe('working/turn-open');

    s.plan('{"state":"Active","awaiting_plan_approval":true}', T + 6);
    await s.collector.scan();
    expect(s.status()).toBe('asking/approval');

    // Answered: the flag is cleared first, then the call's end follows.
    s.plan('{"state":"Active","awaiting_plan_approval":false}', T + 30);
    await s.collector.scan();
    expect(s.status()).toBe('working/turn-open');
    expect(s.collector.stats.skipped).toEqual(new Map());
  });

  it('keeps no wait once a turn ends after the flag was written (the client quit), asks again when a resume rewrites it', async () => {
    const s = await planning();
    s.append(acp(T + 5, { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'exit_plan_mode', status: 'pending' }));
    s.plan('{"awaiting_plan_approval":true}', T + 6);
    await s.collector.scan();
    expect(s.status()).toBe('asking/approval');
    // No live process owns the session, where processes are seen: nobody is asked.
    expect(s.status({ visible: true })).toBe('done/recent');

    // The client quits: Grok closes the call and cancels the turn, and keeps the flag on disk.
    s.append(
      acp(T + 40, { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'failed' }) +
        xai(T + 40, { sessionUpdate: 'turn_completed', prompt_id: 'p1', stop_reason: 'cancelled' }),
    );
    await s.collector.scan();
    expect(s.status()).toBe('done/recent');

    // The resume asks again, from no call of its own: it rewrites the flag.
    s.plan('{"awaiting_plan_approval":true}', T + 90);
    await s.collector.scan();
    expect(s.status()).toBe('asking/waiting');
    expect(s.collector.stats.skipped).toEqual(new Map());
  });

  it('asks with no call open when the flag is all the files say (the sample store)', async () => {
    const s = await planning();
    s.plan('{"awaiting_plan_approval":true}', T + 2);
    await s.collector.scan();
    expect(s.status()).toBe('asking/waiting');
  });

  it('skips a damaged file, counted by reason, and keeps the status it had', async () => {
    const s = await planning();
    s.plan('{"awaiting_plan_approval":true}', T + 2);
    await s.collector.scan();
    s.plan('{"awaiting_plan_appro', T + 3);
    await s.collector.scan();
    s.plan('{"awaiting_plan_approval":"yes"}', T + 4);
    await s.collector.scan();
    s.plan('[false]', T + 5);
    await s.collector.scan();
    expect(s.status()).toBe('asking/waiting');
    expect(s.collector.stats.skipped).toEqual(
      new Map([
        ['parse_error', 2],
        ['unknown_shape', 1],
      ]),
    );
  });
});
