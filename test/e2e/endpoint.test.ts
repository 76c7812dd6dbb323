// The real binary's endpoint as Prometheus and its operators use it: 200 concurrent scrapes,
// health and readiness, and (with --web.config.file) TLS, client certificates, basic auth and
// headers, re-read when the file changes. Certificates are made with openssl for each run.

import { spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envFor, FIXTURES, listening, sum, tempDir, until } from '../helpers/run.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

async function serve(home: string, ...flags: string[]): Promise<string> {
  const { child, url } = listening(['--listen-address', '127.0.0.1:0', '--state-dir', tempDir(), ...flags], envFor(home));
  children.push(child);
  return url;
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string }
interface Options { method?: string; headers?: Record<string, string>; ca?: Buffer | string; cert?: Buffer | string; key?: Buffer | string }

/** One request on its own connection (fetch cannot be given a CA or a client certificate). */
function get(url: string, opts: Options = {}): Promise<Answer> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(u, { method: opts.method ?? 'GET', headers: opts.headers, agent: false, ca: opts.ca, cert: opts.cert, key: opts.key }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function claudeHome(): string {
  const home = tempDir();
  cpSync(join(FIXTURES, 'captures/claude-code/tool'), home, { recursive: true });
  return home;
}

const INPUT = { harness: 'claude-code', token_type: 'input' };

describe('endpoint', () => {
  it('answers 200 concurrent scrapes, every one complete and identical', async () => {
    const url = await serve(claudeHome());
    await until(async () => ((await get(`${url}/-/ready`)).status === 200 ? true : undefined), 20_000, 'ready');
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(`${url}/metrics`)));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    for (const a of answers) expect(sum(a.body, 'coding_agent_tokens_total', INPUT)).toBe(2534);
    // One render shared by all (the self metrics are sampled on a timer, so at most a tick apart).
    expect(new Set(answers.map((a) => a.body)).size).toBeLessThanOrEqual(2);
    expect((await get(`${url}/-/healthy`)).status).toBe(200);
    const metrics = answers[0]!.body;
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'process_open_fds',
      'process_max_fds', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(metrics, name).toMatch(new RegExp(`^${name} [0-9.e+]+$`, 'm'));
    }
  });
});
