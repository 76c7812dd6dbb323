import { cpSync, mkdirSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../src/collectors/collector.js';
import { createLogger } from '../../src/log.js';
import { createPriceTable } from '../../src/pricing/prices.js';
import { rooCode } from '../../src/readers/roo-code/reader.js';
import { cline } from '../../src/readers/cline/reader.js';
import { taskHistories } from '../../src/readers/vscode-tasks/reader.js';
import { kilo } from '../../src/readers/kilo/reader.js';
import { eventsNamed, recorder } from '../helpers/events.js';
import { StateDb } from '../../src/state/db.js';
import { SessionStore } from '../../src/store/store.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';
import { statusOf } from '../../src/session/status.js';
import { readAtOnce } from '../../src/readers/reader.js';

const TASK = '5b70f775-a2cc-457f-9876-ac743c8eef90';
const req = (ts: number, counts: object) => ({
  ts,
  type: 'say',
  say: 'api_req_started',
  text: JSON.stringify({ apiProtocol: 'anthropic', ...counts }),
});

describe('VS Code extension tasks (Roo Code)', () => {
  it('counts a request once as the transcript is rewritten, from its placeholder to its counts, and skips a transcript too large or broken', async () => {
    const root = tempDir();
    cpSync(
      join(
        FIXTURES,
        'homes/vscode-extensions-and-clis/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      ),
      root,
      { recursive: true },
    );
    const path = join(root, TASK, 'ui_messages.json');
    const db = new StateDb(':memory:');
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('roo-code', rooCode, [root], store, db, createLogger('error'));
    const tokens = (type: string) =>
      [...store.counters.values()]
        .filter((c) => c.metric === 'tokens' && c.labels.token_type === type)
        .reduce((n, c) => n + c.value, 0);
    await collector.scan();
    const before = tokens('input');
    const first = { ts: 1, type: 'say', say: 'text', text: 'x' };
    // In flight: a placeholder counts nothing.
    writeFileSync(path, JSON.stringify([first, req(2, {})]));
    await collector.scan();
    expect(tokens('input')).toBe(before);
    // The stream ended: tokensIn holds the cache (Roo ≥ 3.29.5), counted once however often it is rewritten.
    const done = [first, req(2, { tokensIn: 1000, tokensOut: 10, cacheReads: 600, cacheWrites: 100, cost: 0.01 })];
    writeFileSync(path, JSON.stringify(done));
    await collector.scan();
    writeFileSync(path, JSON.stringify([...done, { ts: 3, type: 'ask', ask: 'completion_result', text: 'ok' }]));
    await collector.scan();
    expect(tokens('input') - before).toBe(300);
    expect(tokens('cache_read')).toBeGreaterThanOrEqual(600);
    writeFileSync(path, '[{"ts":');
    await collector.scan();
    expect(collector.stats.skipped.get('parse_error')).toBe(1);
    // A 200 MB transcript (sparse: nothing is written) is never read into memory.
    truncateSync(path, 200 << 20);
    await collector.scan();
    expect(collector.stats.skipped.get('file_too_large')).toBe(1);
    expect(collector.stats.success).toBe(true);
  });

  it("ends a subtask's turn with its result, which Roo says with no ask after it when it returns to its parent task", async () => {
    const root = tempDir();
    cpSync(
      join(
        FIXTURES,
        'homes/vscode-extensions-and-clis/.vscode-server/data/User/globalStorage/rooveterinaryinc.roo-cline/tasks',
      ),
      root,
      { recursive: true },
    );
    const child = '134d688c-9205-4a24-8aaf-cdf6d93f2822';
    const T = 1796039216088;
    writeFileSync(
      join(root, child, 'ui_messages.json'),
      JSON.stringify([
        { ts: T, type: 'say', say: 'text', text: 'Audit the test suite' },
        req(T + 10, { tokensIn: 100, tokensOut: 10, cacheReads: 0, cacheWrites: 0 }),
        { ts: T + 20, type: 'say', say: 'completion_result', text: 'Audited.' },
      ]),
    );
    const { store } = await readHome(rooCode, root);
    const s = store.sessions.get(`roo-code/${child}`)!;
    expect(s.lastTurn?.outcome).toBe('completed');
    expect(
      statusOf(s, undefined, T + 60_000, { doneForMs: 1800_000, staleAfterMs: 7200_000 }, rooCode.facts).status,
    ).toBe('done');
    // A top-level task's ask to accept the result after it is the same turn's end, counted once.
    writeFileSync(
      join(root, child, 'ui_messages.json'),
      JSON.stringify([
        { ts: T, type: 'say', say: 'text', text: 'x' },
        { ts: T + 20, type: 'say', say: 'completion_result', text: 'Done.' },
        { ts: T + 21, type: 'ask', ask: 'completion_result', text: '' },
      ]),
    );
    const again = await readHome(rooCode, root);
    expect(again.store.bySession.get(`roo-code/${child}`)?.get('turns:completed')).toBe(1);
  });

  it('finds the tasks in every editor user dir on Linux and macOS, and VS Code server', () => {
    const roots = rooCode.defaultRoots({ XDG_CONFIG_HOME: '/x' }, '/h');
    for (const dir of [
      '/x/Code',
      '/x/Code - Insiders',
      '/x/VSCodium',
      '/x/Cursor',
      '/x/Windsurf',
      '/h/Library/Application Support/Code',
      '/h/.vscode-server/data',
    ]) {
      expect(roots).toContain(`${dir}/User/globalStorage/rooveterinaryinc.roo-cline/tasks`);
    }
  });

  it("finds the tasks where the editor's settings move them (customStoragePath), and skips settings it cannot parse", () => {
    const config = tempDir();
    mkdirSync(join(config, 'Code', 'User'), { recursive: true });
    mkdirSync(join(config, 'Cursor', 'User'), { recursive: true });
    writeFileSync(
      join(config, 'Code', 'User', 'settings.json'),
      '{\n  // moved\n  "roo-cline.customStoragePath": "/data/roo",\n  "kilo-code.customStoragePath": "/data/kilo",\n}\n',
    );
    writeFileSync(join(config, 'Cursor', 'User', 'settings.json'), '{ "roo-cline.customStoragePath": ');
    expect(rooCode.defaultRoots({ XDG_CONFIG_HOME: config }, '/h')).toContain('/data/roo/tasks');
    expect(kilo.defaultRoots({ XDG_CONFIG_HOME: config }, '/h')).toContain('/data/kilo/tasks');
    expect(rooCode.defaultRoots({ XDG_CONFIG_HOME: config }, '/h').filter((r) => r.startsWith('/data'))).toEqual([
      '/data/roo/tasks',
    ]);
  });
});

describe('VS Code extension tasks (Cline)', () => {
  const T = 1_796_000_000_000;
  const ID = String(T);
  const api = (ts: number, counts: object) => ({
    ts,
    type: 'say',
    say: 'api_req_started',
    text: JSON.stringify(counts),
  });

  /** A Cline task folder with these messages and side files; the transcript read once, or again with `seen`. */
  function task(messages: object[], side: { metadata?: object; history?: object[] } = {}) {
    const storage = join(tempDir(), 'saoudrizwan.claude-dev');
    const dir = join(storage, 'tasks', ID);
    mkdirSync(dir, { recursive: true });
    if (side.metadata) writeFileSync(join(dir, 'task_metadata.json'), JSON.stringify(side.metadata));
    if (side.history) {
      mkdirSync(join(storage, 'state'));
      writeFileSync(join(storage, 'state', 'taskHistory.json'), JSON.stringify(side.history));
    }
    const file = { path: join(dir, 'ui_messages.json'), sessionId: ID, document: true as const };
    const seen = new Set<string>();
    // Persisted between reads, as the collector keeps it.
    let state = JSON.stringify(cline.initialState(file));
    const read = (msgs = messages) => {
      const r = recorder(seen);
      const st = JSON.parse(state) as ReturnType<typeof cline.initialState>;
      readAtOnce(cline.readDocument(Buffer.from(JSON.stringify(msgs)), st, file, r.events));
      state = JSON.stringify(st);
      return r.log;
    };
    return { read };
  }

  it('reads the task history once for all the tasks it names, and again only when it changed', async () => {
    const storage = join(tempDir(), 'saoudrizwan.claude-dev');
    const history = (ids: string[]) => {
      mkdirSync(join(storage, 'state'), { recursive: true });
      const path = join(storage, 'state', 'taskHistory.json');
      writeFileSync(
        path,
        JSON.stringify(ids.map((id) => ({ id, ts: T, task: 'x', cwdOnTaskInitialization: `/src/${id}` }))),
      );
      // Written a while ago: a file changed within the last seconds may change again unseen, and is read every time.
      const at = new Date(Date.now() - 60_000 + ids.length * 1000);
      utimesSync(path, at, at);
    };
    const newTask = (id: string) => {
      mkdirSync(join(storage, 'tasks', id), { recursive: true });
      writeFileSync(
        join(storage, 'tasks', id, 'ui_messages.json'),
        JSON.stringify([{ ts: T, type: 'say', say: 'task', text: 'x' }]),
      );
    };
    const ids = ['1796000000001', '1796000000002', '1796000000003'];
    ids.forEach(newTask);
    history(ids);
    const db = new StateDb(':memory:');
    const store = new SessionStore(db, createPriceTable(), { mode: 'name', aliases: {}, max: 50 });
    const collector = new Collector('cline', cline, [join(storage, 'tasks')], store, db, createLogger('error'));
    const cwds = () => [...store.sessions.values()].map((x) => x.cwd).sort();
    const before = taskHistories.parses;
    await collector.scan();
    expect(cwds()).toEqual(['/src/1796000000001', '/src/1796000000002', '/src/1796000000003']);
    expect(taskHistories.parses - before).toBe(1);
    newTask('1796000000004');
    history([...ids, '1796000000004']);
    await collector.scan();
    expect(cwds()).toEqual(['/src/1796000000001', '/src/1796000000002', '/src/1796000000003', '/src/1796000000004']);
    expect(taskHistories.parses - before).toBe(2);
  });

  it("takes the model and provider of each request from task_metadata.json where the messages name none, else the task history's model", () => {
    const messages = [
      { ts: T, type: 'say', say: 'task', text: 'x' },
      api(T + 10, { tokensIn: 100, tokensOut: 5, cacheReads: 40, cacheWrites: 0 }),
      api(T + 30, { tokensIn: 100, tokensOut: 5, cacheReads: 40, cacheWrites: 0 }),
    ];
    const metadata = {
      files_in_context: [],
      model_usage: [
        { ts: T + 1, model_id: 'claude-opus-4-6', model_provider_id: 'anthropic', mode: 'act' },
        { ts: T + 20, model_id: 'gpt-5', model_provider_id: 'openai', mode: 'act' },
      ],
    };
    const log = task(messages, { metadata }).read();
    // Anthropic's tokensIn is the uncached remainder; OpenAI's prompt_tokens holds the cache.
    expect(eventsNamed(log, 'usage').map(([, model, u]) => [model, (u as { input: number }).input])).toEqual([
      ['claude-opus-4-6', 100],
      ['gpt-5', 60],
    ]);
    const fallback = task(messages, {
      history: [{ id: ID, ts: T, modelId: 'claude-sonnet-4-5', cwdOnTaskInitialization: '/src/app' }],
    }).read();
    expect(eventsNamed(fallback, 'usage').map(([, model]) => model)).toEqual([
      'claude-sonnet-4-5',
      'claude-sonnet-4-5',
    ]);
  });

  it("counts a compaction where the conversation's deleted range changes, once however often the transcript is rewritten", () => {
    const messages = [
      { ts: T, type: 'say', say: 'task', text: 'x' },
      { ts: T + 1, type: 'say', say: 'text', text: 'a' },
      { ts: T + 2, type: 'say', say: 'text', text: 'b', conversationHistoryDeletedRange: [2, 7] },
      { ts: T + 3, type: 'say', say: 'text', text: 'c', conversationHistoryDeletedRange: [2, 7] },
      { ts: T + 4, type: 'say', say: 'text', text: 'd' },
      { ts: T + 5, type: 'say', say: 'text', text: 'e', conversationHistoryDeletedRange: [2, 13] },
    ];
    const t = task(messages);
    expect(eventsNamed(t.read(), 'compaction')).toHaveLength(2);
    expect(
      eventsNamed(
        t.read([
          ...messages,
          { ts: T + 6, type: 'say', say: 'text', text: 'f', conversationHistoryDeletedRange: [2, 13] },
        ]),
        'compaction',
      ),
    ).toHaveLength(0);
  });

  it("counts the subagents' usage Cline records beside the requests (subagent_usage), once, and their run as an agent call", () => {
    const messages = [
      {
        ts: T,
        type: 'say',
        say: 'task',
        text: 'x',
        modelInfo: { modelId: 'claude-sonnet-4-5', providerId: 'anthropic' },
      },
      api(T + 1, { tokensIn: 10, tokensOut: 5, cacheReads: 0, cacheWrites: 0, cost: 0.01 }),
      { ts: T + 2, type: 'ask', ask: 'use_subagents', text: JSON.stringify({ prompts: ['a', 'b'] }) },
      {
        ts: T + 3,
        type: 'say',
        say: 'subagent_usage',
        text: JSON.stringify({
          source: 'subagents',
          tokensIn: 300,
          tokensOut: 70,
          cacheWrites: 20,
          cacheReads: 100,
          cost: 0.05,
        }),
      },
    ];
    const t = task(messages);
    const log = t.read();
    expect(eventsNamed(log, 'usage').map(([, model, u, , , cost]) => [model, u, cost])).toEqual([
      ['claude-sonnet-4-5', { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 }, 0.01],
      [
        'claude-sonnet-4-5',
        { input: 300, output: 70, cacheRead: 100, cacheWrite: 20, cacheWrite1h: 0, reasoning: 0 },
        0.05,
      ],
    ]);
    expect(eventsNamed(log, 'toolCall').map(([, , call]) => call)).toEqual([
      { tool: 'use_subagents', kind: 'agent', waits: 'approval' },
    ]);
    expect(eventsNamed(t.read(), 'usage')).toHaveLength(0);
  });

  it('counts what a retry deleted (deleted_api_reqs) once: only the part of it not counted before it was deleted', () => {
    const modelInfo = { modelId: 'claude-sonnet-4-5', providerId: 'anthropic' };
    const first = { ts: T, type: 'say', say: 'task', text: 'x', modelInfo };
    const kept = api(T + 1, { tokensIn: 100, tokensOut: 10, cacheReads: 0, cacheWrites: 0, cost: 0.1 });
    const before = [
      first,
      kept,
      api(T + 2, { tokensIn: 50, tokensOut: 5, cacheReads: 0, cacheWrites: 0, cost: 0.05 }),
      { ts: T + 3, type: 'say', say: 'text', text: 'y' },
    ];
    // Retried from the second request: it and one more (never read here) are summed into one message.
    const after = [
      first,
      kept,
      {
        ts: T + 10,
        type: 'say',
        say: 'deleted_api_reqs',
        text: JSON.stringify({ tokensIn: 120, tokensOut: 12, cacheReads: 0, cacheWrites: 0, cost: 0.12 }),
      },
    ];
    const sums = (logs: unknown[][][]) =>
      logs
        .flatMap((log) => eventsNamed(log, 'usage'))
        .reduce<[number, number, number]>(
          ([i, o, c], [, , u, , , cost]) => {
            const usage = u as { input: number; output: number };
            return [i + usage.input, o + usage.output, c + (cost as number)];
          },
          [0, 0, 0],
        );
    const watched = task(before);
    const logs = [watched.read(), watched.read(after)];
    expect(eventsNamed(logs[1]!, 'usage').map(([, , u]) => (u as { input: number }).input)).toEqual([70]);
    const [input, output, cost] = sums(logs);
    expect([input, output, cost.toFixed(4)]).toEqual([220, 22, '0.2200']);
    // Read only after the retry: the same totals.
    const [input2, output2, cost2] = sums([task(after).read()]);
    expect([input2, output2, cost2.toFixed(4)]).toEqual([220, 22, '0.2200']);
  });
});
