// Kiro CLI's session bundle as it grows: the log's prompt opens the turn running now, the sidecar
// Kiro rewrites after the turn ends it, and each prompt and turn counts once whichever file is
// read first.

import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kiro } from '../../src/readers/kiro/reader.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';
import { denseJson } from '../helpers/json.js';

const ID = '108eb117-333e-48c8-b241-3603ae8b688b';
const line = (kind: string, data: object) => `${JSON.stringify({ version: 'v1', kind, data })}\n`;

/** The sidecar with `turns` as its `user_turn_metadatas` (`[first message id, result, end in s]`). */
function sidecar(dir: string, turns: [string, 'Ok' | 'Err', number][]): void {
  const path = join(dir, `${ID}.json`);
  const side = JSON.parse(readFileSync(path, 'utf8')) as {
    session_state: { conversation_metadata: { user_turn_metadatas: object[] } };
  };
  side.session_state.conversation_metadata.user_turn_metadatas = turns.map(([first, result, end]) => ({
    result: { [result]: {} },
    message_ids: [first],
    end_timestamp: end,
    turn_duration: 5,
    input_token_count: 0,
    output_token_count: 0,
    metering_usage: [{ value: 0.1, unit: 'credit' }],
  }));
  writeFileSync(path, JSON.stringify(side));
}

describe('kiro', () => {
  it('opens the running turn from the log and ends it from the sidecar, each once', async () => {
    const dir = tempDir();
    for (const ext of ['jsonl', 'json'])
      cpSync(join(FIXTURES, `homes/editor-stores-and-clis/.kiro/sessions/cli/${ID}.${ext}`), join(dir, `${ID}.${ext}`));
    const { store, collector } = await readHome(kiro, dir);
    const tally = () => store.bySession.get(`kiro/${ID}`)!;
    const session = () => store.sessions.get(`kiro/${ID}`)!;
    expect(tally().get('prompts')).toBe(1);
    expect(session().turnStartedAt).toBeDefined();

    appendFileSync(
      join(dir, `${ID}.jsonl`),
      line('ToolResults', {
        message_id: 'm3',
        content: [{ kind: 'toolResult', data: { toolUseId: 'tooluse_834a42bf3cd557a68a7caa', status: 'error' } }],
      }) + line('AssistantMessage', { message_id: 'm4', content: [{ kind: 'text', data: 'The tests fail.' }] }),
    );
    sidecar(dir, [['m1', 'Ok', 1796644470]]);
    await collector.scan();
    expect(session().turnStartedAt).toBeUndefined();
    expect([tally().get('prompts'), tally().get('turns:completed'), tally().get('toolErrors')]).toEqual([1, 1, 1]);

    // The next prompt: open until the sidecar holds its turn, which failed.
    appendFileSync(
      join(dir, `${ID}.jsonl`),
      line('Prompt', {
        message_id: 'm5',
        content: [{ kind: 'text', data: 'Fix them' }],
        meta: { timestamp: 1796644500 },
      }),
    );
    await collector.scan();
    expect(session().turnStartedAt).toBe(1796644500_000);
    sidecar(dir, [
      ['m1', 'Ok', 1796644470],
      ['m5', 'Err', 1796644530],
    ]);
    await collector.scan();
    expect(session().turnStartedAt).toBeUndefined();
    expect([tally().get('prompts'), tally().get('turns:completed'), tally().get('turns:failed')]).toEqual([2, 1, 1]);
    expect(collector.stats.skipped).toEqual(new Map());
  });

  it("gives a log its sidecar's folder and parent, but none of a sidecar too dense to parse (counted once as the document it is)", async () => {
    const child = 'c62fd4b7-e883-42e8-953f-d348b9f08b6c';
    const dir = tempDir();
    const at = (ext: string) => join(dir, `${child}.${ext}`);
    cpSync(join(FIXTURES, `homes/editor-stores-and-clis/.kiro/sessions/cli/${child}.jsonl`), at('jsonl'));
    const side = readFileSync(join(FIXTURES, `homes/editor-stores-and-clis/.kiro/sessions/cli/${child}.json`), 'utf8');
    const log = { path: at('jsonl'), sessionId: child };
    // Padded, not too dense: read.
    writeFileSync(at('json'), side.replace(/}$/, `,"padding":${denseJson(1000)}}`));
    expect(kiro.initialState(log)).toEqual({ cwd: '/home/ada/src/demo-app', child: true });
    writeFileSync(at('json'), side.replace(/}$/, `,"padding":${denseJson(100_000)}}`));
    expect(kiro.initialState(log)).toEqual({});
    const { collector } = await readHome(kiro, dir);
    expect(collector.stats.skipped).toEqual(new Map([['file_too_large', 1]]));
  });
});
