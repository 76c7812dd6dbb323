// `demo` serves live sample sessions: every status a dashboard shows, moving counters.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envFor, listening, ready, run, samples, sum, tempDir, until } from '../helpers/run.js';

/** The sample home a demo logs it runs in. */
function homeOf(demo: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let err = '';
    demo.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /"msg":"demo running","home":"([^"]+)"/.exec(err);
      if (m) resolve(m[1]!);
    });
  });
}

describe('demo', () => {
  // An agent of the user's, running before the demo starts: not one of the demo's.
  const outside = join(tempDir(), 'intruder');
  mkdirSync(outside);
  const intruder = spawn('/bin/sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`], {
    argv0: join(outside, 'aider'),
    cwd: outside,
    stdio: 'ignore',
  });
  const env = { PATH: process.env.PATH, HOME: '/nonexistent' };
  const { child, url } = listening(['demo', '--listen-address', '127.0.0.1:0'], env);
  afterAll(() => {
    child.kill('SIGTERM');
    intruder.kill();
  });

  it('shows sessions asking, working, delegating and failed, and counters that grow', async () => {
    const base = await url;
    const u = `${base}/metrics`;
    await ready(base);
    // Each live session's agent is a process the exporter finds and joins to it; Aider has no
    // session file. Codex's is joined through the environment of its agent's child (the loop's
    // `sleep`), which a scan between two sleeps does not see: the next one does.
    const attributions = (text: string) =>
      samples(text)
        .filter((s) => s.name === 'coding_agent_session_process_info')
        .map((s) => `${s.labels.harness}/${s.labels.attribution}`)
        .sort()
        .join(' ');
    const joined =
      'claude-code/command-line claude-code/command-line claude-code/command-line codex/environment opencode/command-line';
    const first = await until(
      async () => {
        const text = await (await fetch(u)).text();
        return attributions(text) === joined ? text : undefined;
      },
      20_000,
      'every demo session joined to its agent',
      200,
    );
    const statuses = samples(first)
      .filter((s) => s.name === 'coding_agent_session_status')
      .map((s) => `${s.labels.status}/${s.labels.reason}`);
    expect(statuses).toEqual(expect.arrayContaining(['asking/question', 'working/turn-open', 'error/turn-failed']));
    expect(sum(first, 'coding_agent_usage_limit_used_ratio', { harness: 'codex', window: '5h' })).toBeGreaterThan(0);
    // Only the agents the demo started: not the user's, nor another demo's running on this machine.
    expect(sum(first, 'coding_agent_processes', { harness: 'aider' })).toBe(1);
    expect(sum(first, 'coding_agent_sessions', { harness: 'aider', project: 'chat-bot', status: 'idle' })).toBe(1);
    expect(samples(first).filter((s) => s.labels.project === 'intruder')).toEqual([]);
    // The sessions move on: the OpenCode session lives in a database the demo keeps writing to, as
    // OpenCode does.
    // A subagent runs at one of the steps: a session shows delegating meanwhile.
    const opencode = (text: string) => sum(text, 'coding_agent_tokens_total', { harness: 'opencode' });
    const statusesOf = (text: string) =>
      samples(text)
        .filter((s) => s.name === 'coding_agent_session_status')
        .map((s) => s.labels.status);
    const seen = new Set(statusesOf(first));
    const later = await until(
      async () => {
        const text = await (await fetch(u)).text();
        for (const st of statusesOf(text)) seen.add(st);
        const grew =
          sum(text, 'coding_agent_tokens_total') > sum(first, 'coding_agent_tokens_total') &&
          opencode(text) > opencode(first);
        return grew && seen.has('delegating') ? text : undefined;
      },
      30_000,
      'counters that grow and a session delegating',
      200,
    );
    expect(sum(later, 'coding_agent_session_todos', { harness: 'opencode' })).toBe(4);
    expect(sum(later, 'coding_agent_cost_usd_total')).toBeGreaterThan(0);
  });

  it("runs no agent an exporter beside it counts as the user's", async () => {
    await ready(await url);
    // The demo's agents are running (joined above); an exporter of the same user reads the process table.
    const beside = run(
      ['once', '--state-dir', tempDir()],
      envFor(tempDir(), { CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'true' }),
    );
    expect(beside.status).toBe(0);
    const labels = samples(beside.stdout).flatMap((s) => Object.values(s.labels));
    expect(labels).toContain('intruder'); // the user's agent is seen
    expect(labels.filter((v) => v.startsWith('coding-agent-exporter-demo-') || v === 'chat-bot')).toEqual([]);
  });

  it('leaves no sample home behind when killed with kill -9: the next demo removes it', async () => {
    const killed = listening(['demo', '--listen-address', '127.0.0.1:0'], env);
    const home = await homeOf(killed.child);
    const gone = new Promise((resolve) => killed.child.on('exit', resolve));
    killed.url.catch(() => undefined);
    killed.child.kill('SIGKILL');
    await gone;
    expect(existsSync(home)).toBe(true);
    const next = listening(['demo', '--listen-address', '127.0.0.1:0'], env);
    const stopped = new Promise((resolve) => next.child.on('exit', resolve));
    const nextHome = await homeOf(next.child);
    expect(existsSync(home)).toBe(false);
    next.child.kill('SIGTERM');
    await stopped;
    expect(existsSync(nextHome)).toBe(false);
  });
});
