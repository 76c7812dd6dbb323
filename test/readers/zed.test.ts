// Zed's `threads` rows as Zed rewrites them over a thread's life: saved whole (zstd JSON) at every
// change, the running usage growing (or rewritten lower), a subagent's thread beside its parent's.

import { Database } from '../helpers/sqlite.js';
import { copyFileSync, cpSync, existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { unzstd } from '../../src/readers/zstd.js';
import type { ZedState } from '../../src/readers/zed/database.js';
import { zed } from '../../src/readers/zed/reader.js';
import { unsaidOf } from '../../src/readers/zed/thread.js';
import type { SessionFile } from '../../src/readers/reader.js';
import { recorder, type Recorded } from '../helpers/events.js';
import { FIXTURES, tempDir } from '../helpers/run.js';
import { zstdFrame, type Part } from '../helpers/zstd.js';
import { denseJson } from '../helpers/json.js';

const A = '4d7c5a10-0b1e-4c8f-9a47-2f6c1d3e5b70';
const B = '9e2f6b31-7c4d-4a1e-8b05-6d3f2a1c9e84';
const user = (id: string) => ({ User: { id, content: [{ Text: 'fix it' }] } });
const answer = (results: Record<string, boolean> = {}) => ({
  Agent: {
    content: [
      { Text: 'Let me look.' },
      ...Object.keys(results).map((id) => ({
        ToolUse: { id, name: 'terminal', raw_input: '{}', input: {}, is_input_complete: true },
      })),
    ],
    tool_results: Object.fromEntries(
      Object.entries(results).map(([id, failed]) => [
        id,
        { tool_use_id: id, tool_name: 'terminal', is_error: failed, content: [] },
      ]),
    ),
  },
});
const usage = (input: number, output: number, read = 0, write = 0) =>
  Object.fromEntries(
    Object.entries({
      input_tokens: input,
      output_tokens: output,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: write,
    }).filter(([, n]) => n > 0),
  );

interface Save {
  messages?: object[];
  usage?: object;
  provider?: string;
  model?: string;
  parent?: string;
  folders?: string;
  order?: string;
  version?: string | null;
  data?: Part[];
  dataType?: string;
}

function threadsDb() {
  const path = join(tempDir(), 'threads.db');
  copyFileSync(join(FIXTURES, 'homes/editor-stores-and-clis/.local/share/zed/threads/threads.db'), path);
  const db = new Database(path);
  db.exec('DELETE FROM threads');
  let second = 0;
  const file: SessionFile = { path, sessionId: 'threads.db' };
  let state: ZedState = zed.initialState(file);
  const r = recorder();
  return {
    /** Zed's save: the whole row upserted, stamped with the time the thread changed. */
    save(id: string, s: Save = {}) {
      const t = `2026-11-30T12:00:${String(++second).padStart(2, '0')}.123456+00:00`;
      const thread = {
        version: s.version === null ? undefined : (s.version ?? '0.3.0'),
        title: 't',
        messages: s.messages ?? [user('u1'), answer()],
        cumulative_token_usage: s.usage ?? {},
        request_token_usage: {},
        model: { provider: s.provider ?? 'anthropic', model: s.model ?? 'claude-sonnet-4-5' },
        subagent_context: s.parent ? { parent_thread_id: s.parent, depth: 1 } : null,
      };
      const data = zstdFrame(s.data ?? [Buffer.from(JSON.stringify(thread))]);
      db.prepare(
        `INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id, folder_paths, folder_paths_order, created_at)
        VALUES (?, 't', ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at, data_type = excluded.data_type, data = excluded.data`,
      ).run(id, t, s.dataType ?? 'zstd', data, s.parent ?? null, s.folders ?? '/src/app', s.order ?? '0', t);
    },
    /** A read with the state as persisted (a restart between any two reads); the sessions it reported to. */
    read(): { log: Recorded[]; ids: Set<string> } {
      state = JSON.parse(JSON.stringify(state)) as ZedState;
      state.sig = undefined; // the rows change within the same second here
      const before = r.log.length;
      const ids = new Set<string>();
      zed.readStore(file, state, (id) => (ids.add(id), r.events));
      return { log: r.log.slice(before), ids };
    },
  };
}

const named = (log: Recorded[], ...names: string[]) => log.filter((e) => names.includes(e[0]));
const tokens = (log: Recorded[]) => named(log, 'usage').map((e) => e[2]);
const counted = (log: Recorded[]) =>
  named(log, 'prompt', 'turnStarted', 'turnEnded', 'toolCall', 'toolResult').map((e) =>
    e[0] === 'toolResult' ? `${e[0]}:${String(e[2])}` : e[0],
  );

describe('Zed threads', () => {
  it('count the running usage by its growth while the row is rewritten, never backwards, across restarts', () => {
    const z = threadsDb();
    z.save(A, { usage: usage(100, 10, 1000, 50) });
    expect(tokens(z.read().log)).toEqual([
      { input: 100, output: 10, cacheRead: 1000, cacheWrite: 50, cacheWrite1h: 0, reasoning: 0 },
    ]);
    z.save(A, { usage: usage(150, 30, 1500, 50) });
    expect(tokens(z.read().log)).toEqual([
      { input: 50, output: 20, cacheRead: 500, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
    ]);
    // Rewritten lower, then grown back: only what passes the highest seen counts.
    z.save(A, { usage: usage(120, 30, 1500, 50) });
    expect(tokens(z.read().log)).toEqual([]);
    z.save(A, { usage: usage(160, 30, 1500, 50) });
    expect(tokens(z.read().log)).toEqual([
      { input: 10, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
    ]);
    expect(z.read().log).toEqual([]);
  });

  it('read only the rows saved since the last read', () => {
    const z = threadsDb();
    z.save(A);
    z.save(B);
    expect(z.read().ids).toEqual(new Set([A, B]));
    z.save(B, { usage: usage(10, 5) });
    const { ids, log } = z.read();
    expect(ids).toEqual(new Set([B]));
    expect(tokens(log)).toHaveLength(1);
  });

  it('skip a row whose JSON decompresses past the limit (a zstd bomb), counted once, and read the others', () => {
    const z = threadsDb();
    // 40 MB of spaces from a few hundred bytes: one RLE block per 128 kB.
    z.save(A, { data: [{ byte: 0x20, times: 40 << 20 }] });
    z.save(B, { usage: usage(10, 5) });
    const first = z.read();
    expect(named(first.log, 'skipped').map((e) => e[1])).toEqual(['file_too_large']);
    expect(tokens(first.log)).toHaveLength(1);
    z.save(B, { usage: usage(20, 5) });
    expect(named(z.read().log, 'skipped')).toEqual([]);
  });

  it('skip a row whose JSON is too dense to parse (as a document would be), counted once, and read the others exactly', () => {
    const z = threadsDb();
    z.save(A, { data: [Buffer.from(`{"version":"0.3.0","messages":${denseJson(100_000)}}`)] });
    z.save(B, { usage: usage(10, 5) });
    const first = z.read();
    expect(named(first.log, 'skipped').map((e) => e[1])).toEqual(['file_too_large']);
    expect(tokens(first.log)).toEqual([
      { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
    ]);
    z.save(B, { usage: usage(20, 5) });
    expect(named(z.read().log, 'skipped')).toEqual([]);
  });

  it("count what each provider's usage gives as the contract counts it", () => {
    expect(unsaidOf('anthropic', 'claude-sonnet-4-5')).toEqual([]);
    expect(unsaidOf('zed.dev', 'claude-opus-4-6')).toEqual([]);
    expect(unsaidOf('openai', 'gpt-5')).toEqual(['cache_write']);
    for (const p of ['lmstudio', 'ollama', 'google', 'zed.dev'])
      expect(unsaidOf(p, 'gemini-3-pro')).toEqual(['input', 'cache_read', 'cache_write']);
    const z = threadsDb();
    z.save(A, { provider: 'lmstudio', model: 'qwen3-coder-30b', usage: usage(3717, 156) });
    z.save(B, { provider: 'openai', model: 'gpt-5', usage: usage(900, 40, 300) });
    const log = named(z.read().log, 'usage');
    expect(log.map((e) => [e[1], e[2], e[6]])).toEqual([
      [
        'qwen3-coder-30b',
        { input: 0, output: 156, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
        ['input', 'cache_read', 'cache_write'],
      ],
      [
        'gpt-5',
        { input: 900, output: 40, cacheRead: 300, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 },
        ['cache_write'],
      ],
    ]);
  });

  it("open a turn at a prompt with no answer saved, end it when the answer is with its calls' results, and count a subagent's goal as no prompt", () => {
    const z = threadsDb();
    z.save(A, { messages: [user('u1')] });
    expect(counted(z.read().log)).toEqual(['turnStarted', 'prompt']);
    // Saved while its call runs: the turn goes on.
    const running = answer({ t1: true });
    running.Agent.tool_results = {};
    z.save(A, { messages: [user('u1'), running] });
    expect(counted(z.read().log)).toEqual(['toolCall']);
    z.save(A, { messages: [user('u1'), answer({ t1: true })] });
    expect(counted(z.read().log)).toEqual(['toolResult:true', 'turnEnded']);
    z.save(A, { messages: [user('u1'), answer({ t1: true }), user('u2'), answer({ t2: false })] });
    expect(counted(z.read().log)).toEqual(['turnStarted', 'prompt', 'toolCall', 'toolResult:false', 'turnEnded']);
    z.save(B, { parent: A, messages: [user('g1'), answer()] });
    expect(counted(z.read().log)).toEqual(['turnStarted', 'turnEnded']);
  });

  it("take the project's first folder in its own order", () => {
    const z = threadsDb();
    z.save(A, { folders: '/src/api\n/src/web', order: '1,0' });
    z.save(B, { folders: '/src/api\n/src/web', order: '0' });
    const cwds = named(z.read().log, 'meta')
      .map((e) => (e[1] as { cwd?: string }).cwd)
      .filter(Boolean);
    expect(cwds).toEqual(['/src/web', '/src/api']);
  });

  it("report a thread of Zed's first agent (no version) with its folder and times, its content skipped as unknown", () => {
    const z = threadsDb();
    z.save(A, { version: null });
    const { log } = z.read();
    expect(named(log, 'skipped').map((e) => e[1])).toEqual(['unknown_shape']);
    expect(named(log, 'activity')).toHaveLength(2);
    expect(counted(log)).toEqual([]);
  });

  it('read a plain JSON row (`data_type` json) as a compressed one', () => {
    const z = threadsDb();
    z.save(A, { dataType: 'json', usage: usage(5, 5) });
    expect(named(z.read().log, 'skipped').map((e) => e[1])).toEqual(['parse_error']);
  });
});

describe("Zed's data dir", () => {
  it("is XDG_DATA_HOME's (or a Flatpak's) on Linux, and looked for where macOS and Windows keep it", () => {
    expect(zed.defaultRoots({}, '/home/ada')).toEqual([
      '/home/ada/.local/share/zed/threads',
      '/home/ada/Library/Application Support/Zed/threads',
    ]);
    expect(
      zed
        .defaultRoots(
          { XDG_DATA_HOME: '/data', FLATPAK_XDG_DATA_HOME: '/home/ada/.var/app/dev.zed.Zed/data' },
          '/home/ada',
        )
        .slice(0, 2),
    ).toEqual(['/home/ada/.var/app/dev.zed.Zed/data/zed/threads', '/data/zed/threads']);
  });
});

describe("Zed's threads.db as Zed holds it", () => {
  const THREADS = '.local/share/zed/threads/threads.db';
  const PARENT = '7e192b75-8296-492e-aa22-a7a654d6f88a';
  const agents: Exporter[] = [];
  afterEach(async () => {
    for (const a of agents.splice(0)) await a.stop();
  });

  function homeWithThreads(): string {
    const dir = tempDir('cae-home-');
    cpSync(join(FIXTURES, 'homes/editor-stores-and-clis/.local/share/zed'), join(dir, '.local/share/zed'), {
      recursive: true,
    });
    return dir;
  }
  function agentFor(dir: string, state = tempDir()): Exporter {
    const agent = new Exporter(loadConfig(['--state-dir', state], { HOME: dir }), createLogger('error'), {
      env: { HOME: dir },
      home: dir,
    });
    agents.push(agent);
    return agent;
  }
  const output = (agent: Exporter) =>
    [...agent.store.counters.values()]
      .filter((c) => c.metric === 'tokens' && c.labels.harness === 'zed' && c.labels.token_type === 'output')
      .reduce((a, c) => a + c.value, 0);
  /** Zed's save of a thread that made one more call: its running sum 1000 output tokens more. */
  function call(writer: Database): void {
    const row = writer.prepare('SELECT data FROM threads WHERE id = ?').get(PARENT) as { data: Buffer };
    const thread = JSON.parse((unzstd(row.data, 32 << 20) as Buffer).toString()) as {
      cumulative_token_usage: { output_tokens: number };
    };
    thread.cumulative_token_usage.output_tokens += 1000;
    writer
      .prepare('UPDATE threads SET data = ?, updated_at = ? WHERE id = ?')
      .run(zstdFrame([Buffer.from(JSON.stringify(thread))]), '2026-12-07T11:58:00.000+00:00', PARENT);
  }
  const hash = (p: string) => (existsSync(p) ? createHash('sha1').update(readFileSync(p)).digest('hex') : '-');

  it('is read, not written, while Zed has it open in WAL mode, and a new call counts once', async () => {
    const dir = homeWithThreads();
    const path = join(dir, THREADS);
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0'); // the new row stays in the -wal
    try {
      const agent = agentFor(dir);
      await agent.scanAll();
      const before = output(agent);
      expect(before).toBe(1467 + 1162 + 156 + 739 + 617);
      call(writer);
      const bytes = [hash(path), hash(`${path}-wal`)];
      await agent.scanAll();
      await agent.scanAll();
      expect(output(agent) - before).toBe(1000);
      expect([hash(path), hash(`${path}-wal`)]).toEqual(bytes);
      expect(agent.collectors.get('zed')!.stats.success).toBe(true);
    } finally {
      writer.close();
    }
  });

  it('counts nothing twice after the exporter was killed and started again, and then only the growth', async () => {
    const dir = homeWithThreads();
    const state = tempDir();
    const first = agentFor(dir, state);
    await first.scanAll();
    const counters = [...first.store.counters.values()]
      .filter((c) => c.labels.harness === 'zed')
      .map((c) => [c.key, c.value]);
    const again = agentFor(dir, state);
    await again.scanAll();
    expect(
      [...again.store.counters.values()].filter((c) => c.labels.harness === 'zed').map((c) => [c.key, c.value]),
    ).toEqual(counters);
    const writer = new Database(join(dir, THREADS));
    call(writer);
    writer.close();
    const before = output(again);
    await again.scanAll();
    expect(output(again) - before).toBe(1000);
  });
});
