// The real binary, serving: endpoints, a record appended to a transcript showing in /metrics, and a
// kill -9 in the middle of a first scan that restarts to the same totals.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Database } from '../helpers/sqlite.js';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { statusFile } from '../../src/state/statusline.js';
import { envFor, FIXTURES, listening, MAIN, ready, run, sum, tempDir, until } from '../helpers/run.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Starts `serve` on a free port; resolves with its base URL once it listens. */
async function serve(home: string, stateDir: string, ...flags: string[]): Promise<string> {
  const { child, url } = listening(
    ['--listen-address', '127.0.0.1:0', '--state-dir', stateDir, ...flags],
    envFor(home),
  );
  children.push(child);
  return url;
}

/** How many files a state database has committed offsets for (0 when there is none yet). */
function filesCommitted(stateDir: string): number {
  if (!existsSync(join(stateDir, 'state.db'))) return 0;
  const db = new Database(join(stateDir, 'state.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
  } catch {
    return 0; // killed before the tables were created
  } finally {
    db.close();
  }
}

const metrics = async (url: string) => (await fetch(`${url}/metrics`)).text();

/** The tokens a state database has committed (what a restart resumes from). */
function committedTokens(stateDir: string): number {
  const db = new Database(join(stateDir, 'state.db'), { readonly: true });
  try {
    return (db.prepare("SELECT total(value) AS n FROM counters WHERE metric = 'tokens'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** A home of `copies` sessions of the real Claude Code capture (80 MB for 300), ids made distinct per copy. */
function copiesHome(copies: number): string {
  const home = tempDir();
  const src = join(FIXTURES, 'captures/claude-code/tool/.claude/projects/-home-dev-src-demo-app');
  const name = readdirSync(src).find((f) => f.endsWith('.jsonl'))!;
  const text = readFileSync(join(src, name), 'utf8');
  const dir = join(home, '.claude/projects/-home-dev-src-demo-app');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < copies; i++) {
    const copy = text
      .replaceAll('"msg_', `"msg_${i}_`)
      .replaceAll('toolu_', `toolu_${i}_`)
      .replaceAll('"uuid":"', `"uuid":"${i}-`);
    writeFileSync(join(dir, `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000.jsonl`), copy);
  }
  return home;
}

describe('serve', () => {
  it('shows a row OpenCode writes to its database long before a rescan, the database open in WAL mode', async () => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'captures/opencode/tool'), home, { recursive: true });
    // OpenCode running: its connection keeps the database in WAL mode, new rows land in the -wal.
    const db = new Database(join(home, '.local/share/opencode/opencode.db'));
    db.pragma('journal_mode = WAL');
    try {
      // No rescan for an hour: only the watcher can show the new row.
      const url = await serve(home, tempDir(), '--rescan-seconds', '3600');
      const output = (text: string) =>
        sum(text, 'coding_agent_tokens_total', { harness: 'opencode', token_type: 'output' });
      await until(async (saw) => (saw(output(await metrics(url))) === 116 ? true : undefined), 10_000);
      // A new turn, as OpenCode writes it: the messages touch the session row, the call's usage is a part.
      const session = db.prepare('SELECT id FROM session').pluck().get() as string;
      const at = Date.now();
      const message = db.prepare(
        'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
      );
      message.run('msg_e2e_user', session, at, at, JSON.stringify({ role: 'user', time: { created: at } }));
      message.run(
        'msg_e2e_answer',
        session,
        at,
        at,
        JSON.stringify({ role: 'assistant', parentID: 'msg_e2e_user', modelID: 'fake-model', time: { created: at } }),
      );
      db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(at, session);
      db.prepare(
        'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(
        'prt_e2e',
        'msg_e2e_answer',
        session,
        at,
        at,
        JSON.stringify({
          type: 'step-finish',
          reason: 'stop',
          cost: 0,
          tokens: { input: 1, output: 1000, reasoning: 0, cache: { read: 0, write: 0 } },
        }),
      );
      // Seen through the watcher (the bench measures how fast).
      await until(async (saw) => (saw(output(await metrics(url))) === 1116 ? true : undefined), 30_000, 'the new row');
    } finally {
      db.close();
    }
  });

  it('answers /metrics, /healthz and / and shows an appended record long before a rescan', async () => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'captures/claude-code/tool'), home, { recursive: true });
    // No rescan for an hour: only the watcher can show the appended record.
    const url = await serve(home, tempDir(), '--rescan-seconds', '3600');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/metrics');
    expect((await fetch(`${url}/nope`)).status).toBe(404);

    const input = (text: string) =>
      sum(text, 'coding_agent_tokens_total', { harness: 'claude-code', token_type: 'input' });
    await until(async (saw) => (saw(input(await metrics(url))) === 2534 ? true : undefined), 10_000);

    const dir = join(home, '.claude/projects/-home-dev-src-demo-app');
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    appendFileSync(
      file,
      `${JSON.stringify({
        type: 'assistant',
        timestamp: new Date().toISOString(),
        cwd: '/home/dev/src/demo-app',
        message: {
          id: 'msg_appended',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1000, output_tokens: 5 },
        },
      })}\n`,
    );
    await until(
      async (saw) => (saw(input(await metrics(url))) === 3534 ? true : undefined),
      30_000,
      'the appended record',
    );
  });

  it('finds a harness installed after it started without waiting for a rescan, then watches it', async () => {
    // No rescan for an hour: only watching the nearest folder that exists (here HOME) finds it.
    const home = tempDir();
    const url = await serve(home, tempDir(), '--rescan-seconds', '3600');
    await ready(url);
    const dir = join(home, '.claude/projects/-home-dev-src-demo-app');
    mkdirSync(dir, { recursive: true });
    const src = join(FIXTURES, 'captures/claude-code/tool/.claude/projects/-home-dev-src-demo-app');
    const name = readdirSync(src).find((f) => f.endsWith('.jsonl'))!;
    cpSync(join(src, name), join(dir, name));
    const input = async () => sum(await metrics(url), 'coding_agent_tokens_total', { token_type: 'input' });
    await until(async (saw) => (saw(await input()) === 2534 ? true : undefined), 20_000, 'the new folder read');
    appendFileSync(
      join(dir, name),
      `${JSON.stringify({
        type: 'assistant',
        timestamp: new Date().toISOString(),
        cwd: '/home/dev/src/demo-app',
        message: {
          id: 'msg_late',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      })}\n`,
    );
    await until(async (saw) => (saw(await input()) === 2535 ? true : undefined), 20_000, 'the append read');
  });

  it('shows a hook event as soon as the hook appends it, without a rescan', async () => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'captures/gemini-cli/tool'), home, { recursive: true });
    const state = tempDir();
    const { child, url } = listening(
      ['--listen-address', '127.0.0.1:0', '--state-dir', state, '--rescan-seconds', '3600'],
      envFor(home, { CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: String(90 * 86400) }),
    );
    children.push(child);
    const base = await url;
    await ready(base);
    const status = async () =>
      (
        (await (await fetch(`${base}/api/v1/sessions`)).json()) as { harness: string; status: string; reason: string }[]
      ).find((s) => s.harness === 'gemini-cli');
    expect(await status()).toMatchObject({ status: 'idle' });
    const id = '5da0c0d6-ad8a-42cd-969c-34c4a9293815';
    const r = spawnSync(process.execPath, [MAIN, 'hook', 'gemini-cli', '--state-dir', state], {
      env: envFor(home),
      input: JSON.stringify({ hook_event_name: 'BeforeTool', session_id: id, tool_name: 'ask_user' }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    await until(async () => ((await status())?.status === 'asking' ? true : undefined), 20_000, 'the hook event shown');
    expect(await status()).toMatchObject({ status: 'asking', reason: 'question' });
  });

  it('never serves a count a kill -9 takes back: what /metrics shows mid-read is committed', async () => {
    // 300 sessions of the real capture, read for seconds; while they are read, the statusline
    // file rewritten again and again renders /metrics anew (as the sample, a process scan or the
    // hook spool do) between the read's commits. Killed the moment a scrape shows tokens, the
    // state database a restart resumes from must hold at least what was shown.
    const home = copiesHome(300);
    for (let attempt = 0; attempt < 5; attempt++) {
      const dir = tempDir();
      const url = await serve(home, dir);
      const child = children.at(-1)!;
      let shown = 0;
      for (let i = 0; shown === 0; i++) {
        writeFileSync(statusFile(dir), `{"n":${i}}`);
        shown = sum(await metrics(url), 'coding_agent_tokens_total');
      }
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      expect(committedTokens(dir)).toBeGreaterThanOrEqual(shown);
    }
  });

  it('has report say its totals are partial while the first read is not done, and whole once it is', async () => {
    const home = copiesHome(300);
    const dir = tempDir();
    await serve(home, dir);
    const child = children.at(-1)!;
    // Killed in its first read, once it has committed some of it.
    await until(async () => (filesCommitted(dir) > 0 ? true : undefined), 60_000, 'a first commit');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const partial = run(['report', '--json', '--state-dir', dir], envFor(home));
    expect(partial.status).toBe(0);
    expect(JSON.parse(partial.stdout)).toMatchObject({ complete: false });
    expect(partial.stderr).toContain('these totals are partial');
    expect(run(['once', '--state-dir', dir], envFor(home)).status).toBe(0);
    const whole = run(['report', '--json', '--state-dir', dir], envFor(home));
    expect(JSON.parse(whole.stdout)).not.toHaveProperty('complete');
    expect(whole.stderr).toBe('');
  });

  // Watches the state database of a running `once` and says when to kill it: as soon as some, not
  // all, files are committed (between two commits), or as soon as the write-ahead log grows after a
  // first commit (while a commit is written: SQLite's write is under way or just done).
  const betweenCommits = (dir: string, copies: number) => {
    const committed = filesCommitted(dir);
    return committed > 0 && committed < copies;
  };
  const duringCommit = () => {
    let walSize = -1;
    return (dir: string) => {
      const size =
        filesCommitted(dir) > 0 ? (statSync(join(dir, 'state.db-wal'), { throwIfNoEntry: false })?.size ?? 0) : -1;
      const grew = walSize >= 0 && size > walSize;
      walSize = size;
      return grew;
    };
  };

  it.each([
    ['between two commits', () => betweenCommits],
    ['while a commit is written', () => duringCommit()],
  ])('restarts to the same totals after kill -9 in the middle of its first scan, %s', async (_, trigger) => {
    const copies = 300;
    const home = copiesHome(copies);
    let state = '';
    for (let attempt = 0; attempt < 10 && !state; attempt++) {
      const dir = tempDir();
      const kill = trigger();
      const child = spawn(process.execPath, [MAIN, 'once', '--state-dir', dir], { env: envFor(home), stdio: 'ignore' });
      const exited = new Promise((r) => child.once('exit', r));
      let killed = false;
      while (child.exitCode === null && !killed) {
        if (kill(dir, copies)) killed = child.kill('SIGKILL');
        else await new Promise((r) => setTimeout(r, 1));
      }
      await exited;
      if (killed && filesCommitted(dir) < copies) state = dir;
    }
    expect(state).not.toBe('');

    const resumed = run(['once', '--state-dir', state], envFor(home));
    const fresh = run(['once', '--state-dir', tempDir()], envFor(home));
    expect(resumed.status).toBe(0);
    for (const type of ['input', 'output', 'cache_read', 'cache_write']) {
      const want = sum(fresh.stdout, 'coding_agent_tokens_total', { token_type: type });
      expect(sum(resumed.stdout, 'coding_agent_tokens_total', { token_type: type })).toBe(want);
    }
    expect(sum(resumed.stdout, 'coding_agent_tokens_total', { token_type: 'input' })).toBe(copies * 2534);
    expect(sum(resumed.stdout, 'coding_agent_prompts_total')).toBe(copies);
    expect(sum(resumed.stdout, 'coding_agent_tool_calls_total')).toBe(copies);
  });
});
