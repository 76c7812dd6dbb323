// OTLP push from the real binary to a local receiver: same names as /metrics, cumulative by
// default, delta on request, protobuf or JSON.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { catalog } from '../../src/metrics/catalog.js';
import { envFor, FIXTURES, MAIN, tempDir } from '../helpers/run.js';

interface Received { contentType: string; body: Buffer }

async function receiver() {
  const posts: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/metrics') posts.push({ contentType: String(req.headers['content-type']), body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { posts, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

async function pushes(extra: Record<string, string>, count: number) {
  const r = await receiver();
  const child = spawn(process.execPath, [MAIN, '--listen-address', '127.0.0.1:0', '--state-dir', tempDir(), '--otlp-endpoint', r.url], {
    env: envFor(join(FIXTURES, 'captures/codex/tool'), { CODING_AGENT_EXPORTER_OTLP_INTERVAL_SECONDS: '1', ...extra }),
  });
  children.push(child);
  const end = Date.now() + 15_000;
  while (r.posts.length < count && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
  r.close();
  return r.posts;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const metricsOf = (p: Received): Json[] => (JSON.parse(p.body.toString()) as Json).resourceMetrics.flatMap((rm: Json) => rm.scopeMetrics.flatMap((sm: Json) => sm.metrics));
const tokenSum = (m: Json[]) => m.find((x) => x.name === 'coding_agent_tokens')!.sum.dataPoints.reduce((a: number, p: Json) => a + Number(p.asDouble), 0);

describe('OTLP push', () => {
  it('sends the catalog names with cumulative counters over http/json', async () => {
    const posts = await pushes({ CODING_AGENT_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 2);
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(posts[0]!.contentType).toMatch(/json/);
    const [a, b] = posts.map(metricsOf);
    const names = new Set(Object.values(catalog).map((d) => d.name));
    for (const m of a!) expect(names).toContain(m.name);
    const tokens = a!.find((m) => m.name === 'coding_agent_tokens')!;
    expect(tokens.sum.isMonotonic).toBe(true);
    expect(tokens.sum.aggregationTemporality).toBe(2); // cumulative
    expect(tokenSum(a!)).toBe(695 + 116 + 1689 + 150);
    expect(tokenSum(b!)).toBe(tokenSum(a!));
    const resource = (JSON.parse(posts[0]!.body.toString()) as Json).resourceMetrics[0].resource.attributes.map((x: Json) => x.key);
    expect(resource).toEqual(expect.arrayContaining(['service.name', 'service.instance.id', 'host.name']));
  });

  it('sends deltas on request', async () => {
    const posts = await pushes({ CODING_AGENT_EXPORTER_OTLP_PROTOCOL: 'http/json', CODING_AGENT_EXPORTER_OTLP_TEMPORALITY: 'delta' }, 2);
    const [a, b] = posts.map(metricsOf);
    expect(a!.find((m) => m.name === 'coding_agent_tokens')!.sum.aggregationTemporality).toBe(1); // delta
    expect(tokenSum(a!)).toBe(695 + 116 + 1689 + 150);
    expect(tokenSum(b!)).toBe(0);
  });

  it('identifies the machine and user as OTEL_RESOURCE_ATTRIBUTES says', async () => {
    const posts = await pushes({ CODING_AGENT_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=alice@laptop,user.name=alice' }, 1);
    const attrs = (JSON.parse(posts[0]!.body.toString()) as Json).resourceMetrics[0].resource.attributes as Json[];
    const value = (k: string) => attrs.find((a) => a.key === k)?.value.stringValue;
    expect(value('service.name')).toBe('coding-agent-exporter');
    expect(value('service.instance.id')).toBe('alice@laptop');
    expect(value('user.name')).toBe('alice');
  });

  it('sends protobuf by default', async () => {
    const posts = await pushes({}, 1);
    expect(posts[0]!.contentType).toBe('application/x-protobuf');
    expect(posts[0]!.body.includes(Buffer.from('coding_agent_tokens'))).toBe(true);
  });
});
