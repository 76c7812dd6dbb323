import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kimiCli } from '../../src/readers/kimi-cli/reader.js';
import { harnessOf } from '../../src/process/harnesses.js';
import { eventsNamed, recorder } from '../helpers/events.js';
import { FIXTURES } from '../helpers/run.js';

const file = { path: join(FIXTURES, 'wave3-home/.kimi/sessions/x/s/wire.jsonl'), sessionId: 's' };
const line = (type: string, payload: object, ts = 1) => Buffer.from(JSON.stringify({ timestamp: ts, message: { type, payload } }));

describe('Kimi CLI reader', () => {
  it('waits for approval from a request until its response', () => {
    const r = recorder();
    const state = kimiCli.initialState(file);
    kimiCli.readLine(line('ToolCall', { id: 't1', function: { name: 'Shell', arguments: '{}' } }), state, file, r.events);
    kimiCli.readLine(line('ApprovalRequest', { id: 'a1', tool_call_id: 't1' }), state, file, r.events);
    expect(eventsNamed(r.log, 'toolWaits')).toEqual([['toolWaits', 't1', 'approval']]);
    // The state persisted between the two (a restart).
    const restored = JSON.parse(JSON.stringify(state)) as typeof state;
    kimiCli.readLine(line('ApprovalResponse', { request_id: 'a1', response: 'approve' }), restored, file, r.events);
    expect(eventsNamed(r.log, 'toolWaits').at(-1)).toEqual(['toolWaits', 't1', undefined]);
  });

  it('counts a subagent log\'s tokens for its parent session, not its prompts or turns', () => {
    const sub = { path: join(FIXTURES, 'wave3-home/.kimi/sessions/x/s/subagents/a1/wire.jsonl'), sessionId: 's' };
    const r = recorder();
    const state = kimiCli.initialState(sub);
    for (const l of [line('TurnBegin', { user_input: 'x' }), line('StatusUpdate', { token_usage: { input_other: 5, output: 2, input_cache_read: 1, input_cache_creation: 0 } }), line('TurnEnd', {})]) {
      kimiCli.readLine(l, state, sub, r.events);
    }
    expect(eventsNamed(r.log, 'usage').map(([, , u]) => u)).toEqual([{ input: 5, output: 2, cacheRead: 1, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }]);
    expect(r.log.filter(([e]) => ['prompt', 'turnStarted', 'turnEnded'].includes(e))).toEqual([]);
  });

  it('finds the sessions where KIMI_SHARE_DIR says, and recognises the kimi process', () => {
    expect(kimiCli.defaultRoots({ KIMI_SHARE_DIR: '/k' }, '/h')).toEqual(['/k/sessions']);
    expect(kimiCli.defaultRoots({}, '/h')).toEqual(['/h/.kimi/sessions']);
    expect(harnessOf(['kimi'])).toBe('kimi-cli');
    expect(harnessOf(['/usr/bin/python3', '/home/u/.local/bin/kimi'])).toBe('kimi-cli');
  });
});
