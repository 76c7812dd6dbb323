import { Database } from '../helpers/sqlite.js';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cline } from '../../src/readers/cline/reader.js';
import { harnessOf } from '../../src/process/harnesses.js';
import { countedTurns, eventsNamed, recorder } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readAtOnce } from '../../src/readers/reader.js';

const ID = '1796151860100_363jx';
const DIR = join(FIXTURES, `captures/cline/tool/.cline/data/sessions/${ID}`);
const messagesFile = { path: join(DIR, `${ID}.messages.json`), sessionId: ID, document: true as const };
const manifestFile = { path: join(DIR, `${ID}.json`), sessionId: ID, document: true as const };
const captured = JSON.parse(readFileSync(messagesFile.path, 'utf8')) as { messages: object[] };
const manifest = JSON.parse(readFileSync(manifestFile.path, 'utf8')) as Record<string, unknown>;
const doc = (messages: object[]) => Buffer.from(JSON.stringify({ ...captured, messages }));
const prompt = (id: string, ts: number) => ({
  id,
  role: 'user',
  content: [{ type: 'text', text: '<user_input mode="act">x</user_input>' }],
  ts,
});

describe('Cline reader', () => {
  it('counts each answer, tool call, result and prompt once as the messages are rewritten', () => {
    const r = recorder();
    const state = cline.initialState(messagesFile);
    const all = captured.messages;
    for (const n of [2, 3, 4, 4]) readAtOnce(cline.readDocument(doc(all.slice(0, n)), state, messagesFile, r.events));
    expect(eventsNamed(r.log, 'usage').map(([, model, u]) => [model, u])).toEqual([
      ['fake-model', { input: 445, output: 56, cacheRead: 789, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }],
      ['fake-model', { input: 400, output: 60, cacheRead: 900, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }],
    ]);
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
    expect(eventsNamed(r.log, 'toolCall').map(([, id, call]) => [id, call])).toEqual([
      ['call_3ceba38d9abd37676b330d9a', { tool: 'run_commands', kind: 'execute' }],
    ]);
    expect(eventsNamed(r.log, 'toolResult').map(([, id, failed]) => [id, failed])).toEqual([
      ['call_3ceba38d9abd37676b330d9a', false],
    ]);
    expect(countedTurns(r.log)).toEqual(['completed']);
  });

  it('fails a call one of whose commands failed', () => {
    const r = recorder();
    const result = {
      id: 'r1',
      role: 'user',
      ts: 3,
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            { query: 'a', success: true },
            { query: 'b', success: false },
          ],
        },
      ],
    };
    readAtOnce(
      cline.readDocument(doc([prompt('p1', 1), result]), cline.initialState(messagesFile), messagesFile, r.events),
    );
    expect(eventsNamed(r.log, 'toolResult').map(([, id, failed]) => [id, failed])).toEqual([['c1', true]]);
    // Tool results are no prompt.
    expect(eventsNamed(r.log, 'prompt')).toHaveLength(1);
  });

  it('ends a turn its messages leave open as the manifest says, once, and reads its folder, branch and model', () => {
    const r = recorder();
    readAtOnce(
      cline.readDocument(
        doc([prompt('p1', Date.parse('2026-12-01T19:04:20.415Z'))]),
        cline.initialState(messagesFile),
        messagesFile,
        r.events,
      ),
    );
    const state = cline.initialState(manifestFile);
    const cancelled = Buffer.from(JSON.stringify({ ...manifest, status: 'cancelled' }));
    readAtOnce(cline.readDocument(cancelled, state, manifestFile, r.events));
    readAtOnce(cline.readDocument(cancelled, state, manifestFile, r.events));
    expect(countedTurns(r.log)).toEqual(['interrupted']);
    expect(eventsNamed(r.log, 'meta')).toContainEqual([
      'meta',
      { cwd: '/home/dev/src/demo-app', gitBranch: 'main', model: 'fake-model' },
    ]);
  });

  it('registers the pid of each session not ended in db/sessions.db', () => {
    const data = tempDir();
    cpSync(join(FIXTURES, 'captures/cline/tool/.cline/data'), data, { recursive: true });
    const root = join(data, 'sessions');
    // The capture's session ended: no live process.
    expect(cline.registry!(root)).toEqual([]);
    const db = new Database(join(data, 'db', 'sessions.db'));
    db.prepare('UPDATE sessions SET ended_at = NULL, exit_code = NULL, status = ?').run('running');
    db.close();
    expect(cline.registry!(root)).toEqual([{ sessionId: ID, pid: 31746 }]);
    expect(cline.registry!(join(tempDir(), 'sessions'))).toEqual([]);
  });

  it('finds the sessions where CLINE_DATA_DIR says', () => {
    // The CLI's sessions first, then the VS Code extension's tasks in every editor.
    expect(cline.defaultRoots({ CLINE_DATA_DIR: '/d/cline' }, '/home/u')[0]).toBe('/d/cline/sessions');
    expect(cline.defaultRoots({}, '/home/u')[0]).toBe('/home/u/.cline/data/sessions');
    expect(cline.defaultRoots({}, '/home/u')).toContain(
      '/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks',
    );
  });

  it('recognises the cline process', () => {
    expect(harnessOf(['cline', 'Say hello'])).toBe('cline');
    expect(harnessOf(['node', '/usr/lib/node_modules/cline/dist/cli.mjs'])).toBe('cline');
  });
});
