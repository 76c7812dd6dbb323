// What a harness's folders may hold besides what the harness writes there: FIFOs where files are
// expected (a read would block the whole process), a database another process holds locked, a
// document under the size cap that would take gigabytes to parse.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { Database } from '../helpers/sqlite.js';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envFor, FIXTURES, listening, ready, run, sum, tempDir, until } from '../helpers/run.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

/**
 * The fixture home with a FIFO at every place a path comes from a harness: Gemini's
 * `.project_root`, the `.git` in a transcript's working directory, OpenCode's database.
 */
function fifoHome(): string {
  const home = tempDir();
  cpSync(join(FIXTURES, 'home'), home, { recursive: true });
  const marker = join(home, '.gemini/tmp/demo-app/.project_root');
  rmSync(marker);
  mkfifo(marker);
  const db = join(home, '.local/share/opencode/opencode.db');
  rmSync(db);
  mkfifo(db);
  const work = join(home, 'work');
  mkdirSync(work);
  mkfifo(join(work, '.git'));
  const dir = join(home, '.claude/projects/-work');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'fifo-cwd.jsonl'),
    `${JSON.stringify({
      type: 'assistant',
      timestamp: '2026-11-30T10:00:01.000Z',
      cwd: work,
      sessionId: 'fifo-cwd',
      message: {
        id: 'msg_fifo',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: 'end_turn',
        usage: { input_tokens: 7, output_tokens: 1 },
      },
    })}\n`,
  );
  return home;
}

describe('a FIFO where a harness keeps a file', () => {
  it('does not block `once`: it exits with every other file read', () => {
    const r = run(['once', '--state-dir', tempDir()], envFor(fifoHome()));
    expect(r.status).toBe(0);
    expect(
      sum(r.stdout, 'coding_agent_tokens_total', { harness: 'claude-code', project: 'work', token_type: 'input' }),
    ).toBe(7);
    expect(sum(r.stdout, 'coding_agent_tokens_total', { harness: 'gemini-cli' })).toBeGreaterThan(0);
    expect(sum(r.stdout, 'coding_agent_tokens_total', { harness: 'kilo' })).toBeGreaterThan(0);
    expect(sum(r.stdout, 'coding_agent_exporter_collector_success', { collector: 'gemini-cli' })).toBe(1);
  }, 30_000);

  it('does not block `serve`: /metrics answers', async () => {
    const { child, url } = listening(['--listen-address', '127.0.0.1:0', '--state-dir', tempDir()], envFor(fifoHome()));
    children.push(child);
    const base = await url;
    // The first scan meets every FIFO and ends; the endpoint answers after it.
    await ready(base);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(
      sum(text, 'coding_agent_tokens_total', { harness: 'claude-code', project: 'work', token_type: 'input' }),
    ).toBe(7);
  }, 30_000);
});

describe('a database another process holds locked', () => {
  it('does not stall /metrics: the read gives up at once, fails the collector, and reads it once the lock is gone', async () => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'captures/opencode/tool'), home, { recursive: true });
    const path = join(home, '.local/share/opencode/opencode.db');
    // A rollback journal: an exclusive lock keeps every reader out (WAL would let them read).
    const db = new Database(path);
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
    try {
      const { child, url } = listening(
        ['--listen-address', '127.0.0.1:0', '--state-dir', tempDir(), '--rescan-seconds', '1'],
        envFor(home),
      );
      children.push(child);
      const base = await url;
      // Every scan gives up on the database while the lock is held (how long a read waits for a
      // lock is test/readers/sqlite.test.ts's), and /metrics answers meanwhile.
      const collected = (t: string) => sum(t, 'coding_agent_exporter_collector_success', { collector: 'opencode' });
      const metrics = async () => (await fetch(`${base}/metrics`)).text();
      await ready(base);
      expect(collected(await metrics())).toBe(0);
      db.exec('COMMIT');
      const text = await until(
        async () => {
          const t = await metrics();
          return collected(t) === 1 ? t : undefined;
        },
        20_000,
        'a scan that reads the database',
      );
      expect(sum(text, 'coding_agent_tokens_total', { harness: 'opencode', token_type: 'output' })).toBeGreaterThan(0);
    } finally {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    }
  }, 60_000);
});

describe('a whole document of tiny values, under the 32 MB cap', () => {
  it('is skipped as file_too_large in a heap of 256 MB: parsed, its 11 million objects took 1.1 GB', () => {
    const home = tempDir();
    const threads = join(home, '.local/share/amp/threads');
    mkdirSync(threads, { recursive: true });
    const n = Math.floor((32 << 20) / 3) - 100;
    writeFileSync(join(threads, 'T-0123.json'), `{"id":"T-0123","messages":[${'{},'.repeat(n)}{}]}`);
    const r = run(['once', '--state-dir', tempDir()], envFor(home, { NODE_OPTIONS: '--max-old-space-size=256' }));
    expect(r.status).toBe(0);
    expect(
      sum(r.stdout, 'coding_agent_exporter_skipped_records_total', { collector: 'amp', reason: 'file_too_large' }),
    ).toBe(1);
    expect(sum(r.stdout, 'coding_agent_exporter_skipped_records_total', { collector: 'amp' })).toBe(1);
  }, 60_000);
});
