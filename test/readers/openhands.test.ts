import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openhands, type OpenHandsState } from '../../src/readers/openhands/reader.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { harnessOf } from '../../src/process/harnesses.js';
import { eventsNamed, recorder } from '../helpers/events.js';
import { tempDir } from '../helpers/run.js';

const MODEL = 'litellm_proxy/claude-sonnet-4-5-20250929';
const call = (prompt: number, completion: number, cacheRead: number) => ({
  model: MODEL,
  prompt_tokens: prompt,
  completion_tokens: completion,
  cache_read_tokens: cacheRead,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  context_window: 200_000,
  response_id: `r${prompt}`,
});

/** A conversation folder as OpenHands writes it, and the state file as the collector hands it over. */
function conversation() {
  const dir = join(tempDir(), 'conversations', '0123456789abcdef0123456789abcdef');
  mkdirSync(join(dir, 'events'), { recursive: true });
  const file: SessionFile = {
    path: join(dir, 'base_state.json'),
    sessionId: '01234567-89ab-cdef-0123-456789abcdef',
    document: true,
  };
  let n = 0;
  return {
    file,
    event: (e: object, text?: string) =>
      writeFileSync(
        join(dir, 'events', `event-${String(n++).padStart(5, '0')}-e${n}.json`),
        text ?? JSON.stringify({ id: `e${n}`, ...e }),
      ),
    state: (status: string, calls: ReturnType<typeof call>[], costs: number[]) => {
      writeFileSync(
        file.path,
        JSON.stringify({
          id: file.sessionId,
          agent: { kind: 'Agent', llm: { model: MODEL, usage_id: 'agent' } },
          workspace: { working_dir: '/w' },
          execution_status: status,
          stats: {
            usage_to_metrics: {
              agent: {
                model_name: MODEL,
                accumulated_cost: costs.reduce((a, b) => a + b, 0),
                token_usages: calls,
                costs: costs.map((cost) => ({ model: MODEL, cost, timestamp: 1 })),
              },
            },
          },
        }),
      );
      return readFileSync(file.path);
    },
  };
}

const user = (ts: string) => ({
  kind: 'MessageEvent',
  source: 'user',
  timestamp: ts,
  llm_message: { role: 'user', content: [] },
});
const action = (ts: string, id: string) => ({
  kind: 'ActionEvent',
  source: 'agent',
  timestamp: ts,
  tool_name: 'terminal',
  tool_call_id: id,
  action: { kind: 'TerminalAction' },
});
const observation = (ts: string, id: string) => ({
  kind: 'ObservationEvent',
  source: 'environment',
  timestamp: ts,
  tool_call_id: id,
  observation: { is_error: false, exit_code: 1 },
});

describe('OpenHands reader', () => {
  it('counts what the running totals grew by, and the events written since the last read, across a restart', () => {
    const c = conversation();
    const r = recorder();
    const state = openhands.initialState(c.file);
    c.event(user('2026-12-07T11:00:00'));
    c.event(action('2026-12-07T11:00:05', 't1'));
    openhands.readDocument(c.state('running', [call(100, 10, 40)], [0.01]), state, c.file, r.events);
    // The state persisted between the two reads (a restart).
    const restored = JSON.parse(JSON.stringify(state)) as OpenHandsState;
    c.event(observation('2026-12-07T11:00:06', 't1'));
    c.event({
      kind: 'MessageEvent',
      source: 'agent',
      timestamp: '2026-12-07T11:00:09',
      llm_message: { role: 'assistant', content: [] },
    });
    openhands.readDocument(
      c.state('finished', [call(100, 10, 40), call(200, 20, 150)], [0.01, 0.02]),
      restored,
      c.file,
      r.events,
    );
    expect(eventsNamed(r.log, 'usage').map(([, model, u, , , cost]) => [model, u, cost])).toEqual([
      [MODEL, { input: 60, output: 10, cacheRead: 40, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }, 0.01],
      [
        MODEL,
        { input: 50, output: 20, cacheRead: 150, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
        expect.closeTo(0.02, 12),
      ],
    ]);
    // The context is the main model's last call's prompt, of the window it names.
    expect(eventsNamed(r.log, 'context').at(-1)).toEqual(['context', MODEL, 200, 200_000]);
    // A reasoning count of 0 is the SDK's default: not recorded.
    expect(eventsNamed(r.log, 'usage').map((e) => e[6])).toEqual([['reasoning'], ['reasoning']]);
    expect(
      r.log
        .filter(([e]) => ['prompt', 'turnStarted', 'turnEnded', 'toolCall', 'toolResult'].includes(e))
        .map(([e, a, b]) => [e, e === 'toolCall' ? a : e === 'turnEnded' || e === 'toolResult' ? [a, b] : undefined]),
    ).toEqual([
      ['prompt', undefined],
      ['turnStarted', undefined],
      ['toolCall', 't1'],
      ['toolResult', ['t1', false]],
      ['turnEnded', ['completed', Date.parse('2026-12-07T11:00:09')]],
    ]);
  });

  it('asks for approval of the last call not returned while confirmation is awaited, and no longer after', () => {
    const c = conversation();
    const r = recorder();
    const state = openhands.initialState(c.file);
    c.event(user('2026-12-07T11:00:00'));
    c.event(action('2026-12-07T11:00:05', 't1'));
    openhands.readDocument(c.state('waiting_for_confirmation', [], []), state, c.file, r.events);
    expect(eventsNamed(r.log, 'toolWaits')).toEqual([['toolWaits', 't1', 'approval']]);
    c.event(observation('2026-12-07T11:00:30', 't1'));
    openhands.readDocument(c.state('running', [], []), state, c.file, r.events);
    expect(eventsNamed(r.log, 'toolWaits').at(-1)).toEqual(['toolWaits', 't1', undefined]);
  });

  it('reads an event file that does not parse yet (being written) at the next change, and those after it then', () => {
    const c = conversation();
    const r = recorder();
    const state = openhands.initialState(c.file);
    c.event(user('2026-12-07T11:00:00'));
    c.event({}, '{"kind":"ActionEvent","id":"e2","timest');
    c.event(observation('2026-12-07T11:00:06', 't1'));
    openhands.readDocument(c.state('running', [], []), state, c.file, r.events);
    expect(r.log.filter(([e]) => e === 'toolCall' || e === 'toolResult')).toEqual([]);
    writeFileSync(
      join(c.file.path, '..', 'events', 'event-00001-e2.json'),
      JSON.stringify({ id: 'e2', ...action('2026-12-07T11:00:05', 't1') }),
    );
    openhands.readDocument(c.state('running', [], []), state, c.file, r.events);
    expect(r.log.filter(([e]) => e === 'toolCall' || e === 'toolResult').map(([e, id]) => [e, id])).toEqual([
      ['toolCall', 't1'],
      ['toolResult', 't1'],
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
  });

  it("finds the conversations where OpenHands' variables say, and recognises the openhands process", () => {
    expect(openhands.defaultRoots({}, '/h')).toEqual(['/h/.openhands/conversations']);
    expect(openhands.defaultRoots({ OPENHANDS_PERSISTENCE_DIR: '/p' }, '/h')).toEqual(['/p/conversations']);
    expect(
      openhands.defaultRoots({ OPENHANDS_CONVERSATIONS_DIR: '/c', OPENHANDS_PERSISTENCE_DIR: '/p' }, '/h'),
    ).toEqual(['/c']);
    expect(harnessOf(['/usr/bin/python3', '/home/u/.local/bin/openhands'])).toBe('openhands');
  });
});
