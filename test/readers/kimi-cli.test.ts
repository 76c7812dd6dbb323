import { createHash } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { kimiCli, workDirs } from '../../src/readers/kimi-cli/reader.js';
import { StateDb } from '../../src/state/db.js';
import { SessionStore } from '../../src/store/store.js';
import { harnessOf } from '../../src/process/harnesses.js';
import { eventsNamed, recorder } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';

const file = { path: join(FIXTURES, 'homes/vscode-extensions-and-clis/.kimi/sessions/x/s/wire.jsonl'), sessionId: 's' };
const line = (type: string, payload: object, ts = 1) =>
  Buffer.from(JSON.stringify({ timestamp: ts, message: { type, payload } }));

describe('Kimi CLI reader', () => {
  it('waits for approval from a request until its response', () => {
    const r = recorder();
    const state = kimiCli.initialState(file);
    kimiCli.readLine(
      line('ToolCall', { id: 't1', function: { name: 'Shell', arguments: '{}' } }),
      state,
      file,
      r.events,
    );
    kimiCli.readLine(line('ApprovalRequest', { id: 'a1', tool_call_id: 't1' }), state, file, r.events);
    expect(eventsNamed(r.log, 'toolWaits')).toEqual([['toolWaits', 't1', 'approval']]);
    // The state persisted between the two (a restart).
    const restored = JSON.parse(JSON.stringify(state)) as typeof state;
    kimiCli.readLine(line('ApprovalResponse', { request_id: 'a1', response: 'approve' }), restored, file, r.events);
    expect(eventsNamed(r.log, 'toolWaits').at(-1)).toEqual(['toolWaits', 't1', undefined]);
  });

  it("counts a subagent log's tokens for its parent session, not its prompts or turns", () => {
    const sub = {
      path: join(FIXTURES, 'homes/vscode-extensions-and-clis/.kimi/sessions/x/s/subagents/a1/wire.jsonl'),
      sessionId: 's',
    };
    const r = recorder();
    const state = kimiCli.initialState(sub);
    for (const l of [
      line('TurnBegin', { user_input: 'x' }),
      line('StatusUpdate', {
        token_usage: { input_other: 5, output: 2, input_cache_read: 1, input_cache_creation: 0 },
      }),
      line('TurnEnd', {}),
    ]) {
      kimiCli.readLine(l, state, sub, r.events);
    }
    expect(eventsNamed(r.log, 'usage').map(([, , u]) => u)).toEqual([
      { input: 5, output: 2, cacheRead: 1, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
    ]);
    expect(r.log.filter(([e]) => ['prompt', 'turnStarted', 'turnEnded'].includes(e))).toEqual([]);
  });

  it('finds the sessions where KIMI_SHARE_DIR says, and recognises the kimi process', () => {
    expect(kimiCli.defaultRoots({ KIMI_SHARE_DIR: '/k' }, '/h')).toEqual(['/k/sessions']);
    expect(kimiCli.defaultRoots({}, '/h')).toEqual(['/h/.kimi/sessions']);
    expect(harnessOf(['kimi'])).toBe('kimi-cli');
    expect(harnessOf(['/usr/bin/python3', '/home/u/.local/bin/kimi'])).toBe('kimi-cli');
  });
});

describe('Kimi CLI folders', () => {
  it('reads kimi.json once for all the sessions of a scan, and again only when it changed', async () => {
    const share = tempDir();
    const md5 = (path: string) => createHash('md5').update(path).digest('hex');
    const index = (paths: string[]) => {
      const path = join(share, 'kimi.json');
      writeFileSync(
        path,
        JSON.stringify({ work_dirs: paths.map((p) => ({ path: p, kaos: 'local', last_session_id: null })) }),
      );
      // Written a while ago: a file changed within the last seconds may change again unseen, and is read every time.
      const at = new Date(Date.now() - 60_000 + paths.length * 1000);
      utimesSync(path, at, at);
    };
    const session = (cwd: string, id: string) => {
      const dir = join(share, 'sessions', md5(cwd), id);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'wire.jsonl'), `${JSON.stringify({ type: 'metadata', protocol_version: '1.10' })}\n`);
    };
    ['a', 'b', 'c'].forEach((id) => session('/src/app', id));
    session('/src/lib', 'd');
    index(['/src/app', '/src/lib']);
    const db = new StateDb(':memory:');
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('kimi-cli', kimiCli, [join(share, 'sessions')], store, db, createLogger('error'));
    const cwds = () => [...store.sessions.values()].map((s) => s.cwd).sort();
    const before = workDirs.parses;
    await collector.scan();
    expect(cwds()).toEqual(['/src/app', '/src/app', '/src/app', '/src/lib']);
    expect(workDirs.parses - before).toBe(1);
    session('/src/new', 'e');
    index(['/src/app', '/src/lib', '/src/new']);
    await collector.scan();
    expect(cwds()).toEqual(['/src/app', '/src/app', '/src/app', '/src/lib', '/src/new']);
    expect(workDirs.parses - before).toBe(2);
  });
});
