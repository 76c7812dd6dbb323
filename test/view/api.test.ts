// The live page's JSON is rendered once per change, as /metrics is: any number of concurrent
// requests between two changes cost one render, and a change is served at once.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { tempDir, until } from '../helpers/run.js';

const agents: Exporter[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
});

/** A finished Claude Code session in a project of its own. */
function transcript(home: string, n: number): void {
  const dir = join(home, '.claude', 'projects', `-src-app${n}`);
  mkdirSync(dir, { recursive: true });
  const at = new Date().toISOString();
  writeFileSync(
    join(dir, `0000000${n}-0000-4000-8000-000000000000.jsonl`),
    [
      { type: 'user', uuid: `u${n}`, timestamp: at, cwd: `/src/app${n}`, message: { role: 'user', content: 'go' } },
      {
        type: 'assistant',
        uuid: `a${n}`,
        timestamp: at,
        cwd: `/src/app${n}`,
        requestId: `r${n}`,
        message: {
          id: `m${n}`,
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      },
    ]
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(''),
  );
}

describe('/api/v1/sessions and /api/v1/summary', () => {
  it('render once for many concurrent requests, and again once a session file changes', async () => {
    const home = tempDir();
    transcript(home, 1);
    const config = loadConfig(['--state-dir', tempDir(), '--listen-address', '127.0.0.1:0', '--processes', 'false'], {
      HOME: home,
    });
    const agent = new Exporter(config, createLogger('error'), { env: { HOME: home }, home });
    agents.push(agent);
    const renders = { sessions: 0, summary: 0 };
    const records = agent.records.bind(agent);
    const summary = agent.summary.bind(agent);
    agent.records = (...args) => (renders.sessions++, records(...args));
    agent.summary = (...args) => (renders.summary++, summary(...args));
    const { url } = await agent.start();
    const sessions = async () => (await (await fetch(`${url}/api/v1/sessions`)).json()) as unknown[];

    // Rendered per request, 50 requests would be 50 renders. The watcher's first look, the 5 s tick
    // and the other sources' reads are changes too: a few may fall among the requests.
    const answers = await Promise.all(Array.from({ length: 50 }, sessions));
    await Promise.all(Array.from({ length: 50 }, () => fetch(`${url}/api/v1/summary`).then((r) => r.json())));
    expect(answers.every((a) => a.length === 1)).toBe(true);
    expect(renders.sessions).toBeLessThan(10);
    expect(renders.summary).toBeLessThan(10);

    transcript(home, 2);
    await until(async () => ((await sessions()).length === 2 ? true : undefined), 10_000, 'the new session listed');
    const before = renders.sessions;
    const after = await Promise.all(Array.from({ length: 50 }, sessions));
    expect(after.every((a) => a.length === 2)).toBe(true);
    expect(renders.sessions - before).toBeLessThan(10);

    // Gzipped for a client that accepts it (a browser does), rendered once too.
    const res = await fetch(`${url}/api/v1/sessions`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(((await res.json()) as unknown[]).length).toBe(2);
  });
});
