// Cursor's editor in `npm run bench:store`: a seeded global state.vscdb (composerData and bubbleId
// rows, and the agentKv blobs and checkpoints that make most of a real one, never read), read by a
// plain baseline that queries every row and parses every chat's and bubble's JSON in Node, and by
// the exporter (cold, again with nothing changed, and after one more prompt written while a writer
// holds the database in WAL mode, as Cursor does). Prompts and tool calls must equal what the
// generator wrote (Cursor records no tokens).
//
//   BENCH_CURSOR_CHATS  chats (default 2000)

import { Database } from '../test/helpers/sqlite.js';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Rng, Text } from './corpus.js';
import { mb, median, mismatches, row } from './report.js';
import { gc, newExporter, work } from './runs.js';
import type { Exporter } from '../src/exporter.js';

const CHATS = Number(process.env.BENCH_CURSOR_CHATS ?? 2000);
const T0 = Date.parse('2026-11-01T00:00:00Z');
const TURNS = 3;

function corpus(home: string, rng: Rng, text: Text): { path: string; prompts: number; calls: number } {
  const path = join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb');
  mkdirSync(join(path, '..'), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB); CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)',
  );
  db.prepare('INSERT INTO ItemTable VALUES (?, ?)').run('cursorAuth/accessToken', 'never-read');
  const put = db.prepare('INSERT INTO cursorDiskKV VALUES (?, ?)');
  db.transaction(() => {
    for (let c = 0; c < CHATS; c++) {
      const id = `chat-${c}`;
      const t = T0 + c * 60_000;
      const headers: { bubbleId: string; type: number }[] = [];
      for (let turn = 0; turn < TURNS; turn++) {
        const at = (s: number) => new Date(t + turn * 10_000 + s * 1000).toISOString();
        const b = (n: string, type: number, body: object) => {
          headers.push({ bubbleId: `${id}-${turn}-${n}`, type });
          put.run(
            `bubbleId:${id}:${id}-${turn}-${n}`,
            JSON.stringify({
              _v: 3,
              bubbleId: `${id}-${turn}-${n}`,
              type,
              tokenCount: { inputTokens: 0, outputTokens: 0 },
              ...body,
            }),
          );
        };
        b('u', 1, { text: text.code(rng.logUniform(30, 2000)), createdAt: at(0) });
        b('t', 2, {
          capabilityType: 15,
          createdAt: at(2),
          toolFormerData: {
            toolCallId: `call-${c}-${turn}`,
            name: 'run_terminal_command_v2',
            status: 'completed',
            params: '{"command":"npm test"}',
            result: JSON.stringify({ output: text.code(rng.logUniform(200, 20_000)), exitCode: 0 }),
          },
        });
        b('a', 2, {
          text: text.code(rng.logUniform(50, 3000)),
          createdAt: at(6),
          modelInfo: { modelName: 'claude-4.5-sonnet' },
        });
        // What a real database holds most of, and no chat count needs.
        put.run(
          `agentKv:blob:${createHash('sha256').update(`${id}-${turn}`).digest('hex')}`,
          JSON.stringify({ role: 'assistant', content: text.code(rng.logUniform(1000, 30_000)) }),
        );
        put.run(
          `checkpointId:${id}:${turn}`,
          JSON.stringify({
            files: [{ uri: 'file:///home/dev/src/app/a.ts', content: text.code(rng.logUniform(500, 10_000)) }],
          }),
        );
      }
      put.run(
        `composerData:${id}`,
        JSON.stringify({
          _v: 10,
          composerId: id,
          name: 'A chat',
          createdAt: t,
          lastUpdatedAt: t + TURNS * 10_000,
          status: 'completed',
          generatingBubbleIds: [],
          fullConversationHeadersOnly: headers,
          modelConfig: { modelName: 'claude-4.5-sonnet' },
          contextTokensUsed: 40_000,
          contextTokenLimit: 200_000,
          workspaceIdentifier: { id: 'ws', uri: { fsPath: '/home/dev/src/app' } },
        }),
      );
    }
  })();
  db.close();
  return { path, prompts: CHATS * TURNS, calls: CHATS * TURNS };
}

/** The plain way: every row into Node, every chat's and bubble's JSON parsed, the prompts of the chats' lists counted. */
function baseline(path: string): { prompts: number; calls: number } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  let prompts = 0;
  let calls = 0;
  try {
    for (const r of db.prepare('SELECT key, value FROM cursorDiskKV').iterate() as Iterable<{
      key: string;
      value: string;
    }>) {
      if (r.key.startsWith('composerData:'))
        prompts += (
          JSON.parse(r.value) as { fullConversationHeadersOnly: { type: number }[] }
        ).fullConversationHeadersOnly.filter((h) => h.type === 1).length;
      if (r.key.startsWith('bubbleId:') && (JSON.parse(r.value) as { toolFormerData?: object }).toolFormerData) calls++;
    }
  } finally {
    db.close();
  }
  return { prompts, calls };
}

const counted = (agent: Exporter, metric: 'prompts' | 'toolCalls') =>
  [...agent.store.counters.values()]
    .filter((k) => k.metric === metric && k.labels.harness === 'cursor')
    .reduce((a, k) => a + k.value, 0);
const ms = (x: number) => `${x.toFixed(1)} ms`;
/** The cursor collector's own share of the last scan (the agent runs every collector). */
const own = (agent: Exporter) => ms((agent.collectors.get('cursor')?.stats.durationSeconds ?? 0) * 1000);

export async function benchCursorEditor(seed: number): Promise<void> {
  const rng = new Rng(seed);
  const home = join(work, 'cursor-editor');
  const c = corpus(home, rng, new Text(rng));
  row('cursor (editor): state.vscdb', `${mb(statSync(c.path).size)}: ${CHATS} chats`);
  readFileSync(c.path); // into the page cache for both contenders

  gc();
  let t = performance.now();
  const base = baseline(c.path);
  const baseMs = performance.now() - t;
  const agent = newExporter(join(work, 'state-cursor-editor'), home);
  gc();
  t = performance.now();
  await agent.scanAll();
  const coldMs = performance.now() - t;
  const exact =
    base.prompts === c.prompts &&
    base.calls === c.calls &&
    counted(agent, 'prompts') === c.prompts &&
    counted(agent, 'toolCalls') === c.calls;
  if (!exact)
    mismatches.push(
      `cursor (editor): expected ${c.prompts} prompts and ${c.calls} calls, baseline ${JSON.stringify(base)}, exporter ${counted(agent, 'prompts')} and ${counted(agent, 'toolCalls')}`,
    );
  row(
    'cursor (editor): baseline, every row queried and its JSON parsed',
    ms(baseMs),
    'prompts and calls exact',
    base.prompts === c.prompts && base.calls === c.calls,
  );
  row(
    'cursor (editor): exporter cold read',
    `${ms(coldMs)} (${(baseMs / coldMs).toFixed(1)}x the baseline's speed; the cursor collector ${own(agent)})`,
    'prompts and calls exact',
    exact,
  );

  const rescans: number[] = [];
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    await agent.scanAll();
    rescans.push(performance.now() - t);
  }
  row(
    'cursor (editor): rescan, nothing changed (median of 5)',
    `${ms(median(rescans))} (the cursor collector ${own(agent)})`,
  );

  // One more prompt in the first chat: its bubble written, then its composer row rewritten, as Cursor does.
  const writer = new Database(c.path);
  writer.pragma('journal_mode = WAL');
  try {
    const before = counted(agent, 'prompts');
    const data = JSON.parse(
      writer.prepare("SELECT value FROM cursorDiskKV WHERE key = 'composerData:chat-0'").pluck().get() as string,
    ) as { lastUpdatedAt: number; fullConversationHeadersOnly: object[] };
    writer.prepare('INSERT INTO cursorDiskKV VALUES (?, ?)').run(
      'bubbleId:chat-0:new',
      JSON.stringify({
        _v: 3,
        bubbleId: 'new',
        type: 1,
        text: 'once more',
        createdAt: new Date(data.lastUpdatedAt + 1000).toISOString(),
      }),
    );
    data.fullConversationHeadersOnly.push({ bubbleId: 'new', type: 1 });
    data.lastUpdatedAt += 1000;
    writer
      .prepare('INSERT INTO cursorDiskKV VALUES (?, ?)')
      .run('composerData:chat-0', JSON.stringify({ ...data, status: 'generating' }));
    t = performance.now();
    await agent.scanAll();
    const readMs = performance.now() - t;
    const ok = counted(agent, 'prompts') - before === 1;
    if (!ok) mismatches.push(`cursor (editor): a new prompt counted as ${counted(agent, 'prompts') - before}`);
    row(
      'cursor (editor): read after a new prompt, a writer attached',
      `${ms(readMs)} (the cursor collector ${own(agent)})`,
      'exact',
      ok,
    );
  } finally {
    writer.close();
    await agent.stop();
  }
}
