// OTLP push from the real binary to in-process receivers: same names as /metrics, cumulative by
// default, delta on request, over http/protobuf, http/json and gRPC, configured by our keys or by
// the standard OTEL_* variables; a push that fails is logged once and counted.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog.js';
import {
  grpcReceiver,
  httpReceiver,
  pushesOf,
  type HttpReceiver,
  type Metric,
  type Receiver,
  type Push,
} from '../helpers/otlp-receiver.js';
import { envFor, FIXTURES, listening, ready, sum, tempDir, until } from '../helpers/run.js';

const HOME = join(FIXTURES, 'captures/codex/tool');
const TOKENS = 695 + 116 + 1689 + 150;

const children: ChildProcess[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  children.splice(0).forEach((c) => c.kill('SIGKILL'));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

function start(env: Record<string, string>, args: string[] = [], where: { home?: string; state?: string } = {}) {
  const run = listening(
    ['--listen-address', '127.0.0.1:0', '--state-dir', where.state ?? tempDir(), ...args],
    envFor(where.home ?? HOME, env),
  );
  children.push(run.child);
  let stderr = '';
  run.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { url: run.url, stderr: () => stderr, child: run.child };
}

async function receive(kind: 'http' | 'grpc' = 'http', tls?: { key: string; cert: string }): Promise<Receiver> {
  const r = kind === 'grpc' ? await grpcReceiver() : await httpReceiver(tls);
  receivers.push(r);
  return r;
}

const metricSum = (metrics: Metric[], name: string) =>
  metrics.find((m) => m.name === name)?.points.reduce((a, p) => a + p.value, 0) ?? 0;
const tokenSum = (metrics: Metric[]) => metricSum(metrics, 'coding_agent_tokens');
const pushedSum = (pushes: Push[], name: string) => pushes.reduce((a, p) => a + metricSum(p.metrics, name), 0);

/**
 * Waits until the exporter at `base` has done its first scan and `r` has taken two more pushes:
 * the second of them was collected after the first was answered, so after the scan.
 */
async function pushedAfterScan(base: string, r: Receiver): Promise<void> {
  await ready(base);
  const n = r.pushes.length;
  await until(async () => (r.pushes.length >= n + 2 ? true : undefined), 20_000, 'two pushes after the first scan', 50);
}

const scraped = async (base: string, name: string) => sum(await (await fetch(`${base}/metrics`)).text(), name);

describe('OTLP push', () => {
  it('sends the catalog names with cumulative counters over http/json', async () => {
    const r = await receive();
    start({ CODING_AGENT_EXPORTER_OTLP_PROTOCOL: 'http/json', CODING_AGENT_EXPORTER_OTLP_INTERVAL_SECONDS: '1' }, [
      '--otlp-endpoint',
      r.url,
    ]);
    const [a, b] = await pushesOf(r, 2);
    expect(a!.headers['content-type']).toMatch(/json/);
    expect(a!.path).toBe('/v1/metrics');
    const names = new Set(Object.values(catalog).map((d) => d.name));
    for (const m of a!.metrics) expect(names).toContain(m.name);
    const tokens = a!.metrics.find((m) => m.name === 'coding_agent_tokens')!;
    expect(tokens.temporality).toBe(2); // cumulative
    expect(tokenSum(a!.metrics)).toBe(TOKENS);
    expect(tokenSum(b!.metrics)).toBe(TOKENS);
    expect(Object.keys(a!.resource)).toEqual(
      expect.arrayContaining(['service.name', 'service.version', 'service.instance.id', 'host.name', 'user.name']),
    );
  });

  it('sends deltas on request', async () => {
    const r = await receive();
    start({ CODING_AGENT_EXPORTER_OTLP_TEMPORALITY: 'delta', CODING_AGENT_EXPORTER_OTLP_INTERVAL_SECONDS: '1' }, [
      '--otlp-endpoint',
      r.url,
    ]);
    const [a, b] = await pushesOf(r, 2);
    expect(a!.headers['content-type']).toBe('application/x-protobuf'); // the default protocol
    expect(a!.metrics.find((m) => m.name === 'coding_agent_tokens')!.temporality).toBe(1); // delta
    expect(tokenSum(a!.metrics)).toBe(TOKENS);
    expect(tokenSum(b!.metrics)).toBe(0);
  });

  it('sends after a restart only what was added since the last push: the deltas add up to the total', async () => {
    const [home, state] = [tempDir(), tempDir()];
    cpSync(HOME, home, { recursive: true });
    const r = await receive();
    const env = { CODING_AGENT_EXPORTER_OTLP_TEMPORALITY: 'delta', OTEL_METRIC_EXPORT_INTERVAL: '300' };
    const first = start(env, ['--otlp-endpoint', r.url], { home, state });
    await pushedAfterScan(await first.url, r);
    first.child.kill('SIGTERM');
    await new Promise((res) => first.child.once('exit', res));
    expect(pushedSum(r.pushes, 'coding_agent_tokens')).toBe(TOKENS);

    // Another session while it was stopped.
    cpSync(join(FIXTURES, 'captures/codex/text'), home, { recursive: true });
    const before = r.pushes.length;
    const second = start(env, ['--otlp-endpoint', r.url], { home, state });
    const base = await second.url;
    await pushedAfterScan(base, r);
    const total = await scraped(base, 'coding_agent_tokens_total');
    expect(total).toBe(TOKENS + 345 + 56 + 789 + 100);
    expect(pushedSum(r.pushes, 'coding_agent_tokens')).toBe(total);
    // A counter of the process's own starts over with it: its deltas are the new process's.
    const read = await scraped(base, 'coding_agent_exporter_read_bytes_total');
    expect(read).toBeGreaterThan(0);
    expect(pushedSum(r.pushes.slice(before), 'coding_agent_exporter_read_bytes')).toBe(read);
  });

  it("keeps the totals' start time across restarts (a new one reads as a reset), the process's own counters' is the process's", async () => {
    const state = tempDir();
    const r = await receive();
    const env = { OTEL_METRIC_EXPORT_INTERVAL: '300', CODING_AGENT_EXPORTER_OTEL_COMPAT: 'claude-code' };
    const startsOf = (push: Push, name: string) =>
      new Set(push.metrics.find((m) => m.name === name)!.points.map((p) => p.start));
    const runOnce = async () => {
      const run = start(env, ['--otlp-endpoint', r.url], { state });
      await pushedAfterScan(await run.url, r);
      run.child.kill('SIGTERM');
      await new Promise((res) => run.child.once('exit', res));
      return r.pushes.at(-1)!;
    };
    const [first, second] = [await runOnce(), await runOnce()];
    expect(tokenSum(second.metrics)).toBe(TOKENS); // cumulative, the default
    expect([...startsOf(first, 'coding_agent_tokens')]).toHaveLength(1);
    expect(startsOf(second, 'coding_agent_tokens')).toEqual(startsOf(first, 'coding_agent_tokens'));
    expect(startsOf(second, 'claude_code.token.usage')).toEqual(startsOf(first, 'coding_agent_tokens'));
    const [a, b] = [
      [...startsOf(first, 'coding_agent_exporter_read_bytes')][0]!,
      [...startsOf(second, 'coding_agent_exporter_read_bytes')][0]!,
    ];
    expect(BigInt(b)).toBeGreaterThan(BigInt(a));
  });

  it('sends what failed to push with the next push that works: the deltas taken add up to the total', async () => {
    const r = (await receive()) as HttpReceiver;
    r.refuseNext = 3;
    const run = start({ CODING_AGENT_EXPORTER_OTLP_TEMPORALITY: 'delta', OTEL_METRIC_EXPORT_INTERVAL: '300' }, [
      '--otlp-endpoint',
      r.url,
    ]);
    const base = await run.url;
    await pushedAfterScan(base, r);
    expect(r.refused).toBe(3);
    expect(pushedSum(r.pushes, 'coding_agent_tokens')).toBe(TOKENS);
  });

  it('sends no push while one waits for its answer: the same gains are never sent twice', async () => {
    const r = (await receive()) as HttpReceiver;
    r.holdNext = 1;
    // The SDK stops waiting for the held push after the interval; the push itself goes on.
    const run = start({ CODING_AGENT_EXPORTER_OTLP_TEMPORALITY: 'delta', OTEL_METRIC_EXPORT_INTERVAL: '300' }, [
      '--otlp-endpoint',
      r.url,
    ]);
    const base = await run.url;
    await ready(base);
    const next = await until(
      async () =>
        run.stderr().includes('the previous push is not answered yet')
          ? 'not sent'
          : r.received > 1
            ? 'sent'
            : undefined,
      20_000,
      'the push after the held one',
    );
    expect(next).toBe('not sent');
    r.release();
    await pushedAfterScan(base, r);
    expect(pushedSum(r.pushes, 'coding_agent_tokens')).toBe(TOKENS);
  });

  it('is configured by the standard OTEL_* variables alone', async () => {
    const r = await receive();
    start({
      OTEL_EXPORTER_OTLP_ENDPOINT: `${r.url}/base/`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team-token=abc%20def,x-other=1',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'Delta',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      OTEL_SERVICE_NAME: 'agents-of-alice',
      OTEL_RESOURCE_ATTRIBUTES:
        'service.name=ignored,service.instance.id=alice@laptop,user.name=alice,deployment.environment=dev',
    });
    const [a, b] = await pushesOf(r, 2);
    expect(a!.path).toBe('/base/v1/metrics');
    expect(a!.headers['content-type']).toMatch(/json/);
    expect(a!.headers['content-encoding']).toBe('gzip');
    expect(a!.headers['x-team-token']).toBe('abc def');
    expect(a!.resource).toMatchObject({
      'service.name': 'agents-of-alice',
      'service.instance.id': 'alice@laptop',
      'user.name': 'alice',
      'deployment.environment': 'dev',
    });
    expect(tokenSum(a!.metrics)).toBe(TOKENS);
    expect(tokenSum(b!.metrics)).toBe(0); // delta, as preferred
  });

  it('lets our keys win over the OTEL_* variables', async () => {
    const ours = await receive();
    const theirs = await receive();
    start(
      {
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${theirs.url}/v1/metrics`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-team-token=theirs,x-other=1',
        OTEL_METRIC_EXPORT_INTERVAL: '600000',
        OTEL_RESOURCE_ATTRIBUTES: 'user.name=alice,team.name=red',
        CODING_AGENT_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        CODING_AGENT_EXPORTER_OTLP_INTERVAL_SECONDS: '1',
        CODING_AGENT_EXPORTER_IDENTITY_USER: 'bob',
      },
      ['--otlp-endpoint', ours.url, '--identity.team', 'blue'],
    );
    const [a] = await pushesOf(ours, 1);
    expect(a!.headers['content-type']).toBe('application/x-protobuf');
    expect(a!.headers['x-team-token']).toBe('theirs'); // headers merge: ours only where we set one
    expect(a!.resource).toMatchObject({ 'user.name': 'bob', 'team.name': 'blue' });
    expect(tokenSum(a!.metrics)).toBe(TOKENS);
    expect(theirs.pushes).toHaveLength(0);
  });

  it('pushes over gRPC with metadata, to the endpoint as given', async () => {
    const r = await receive('grpc');
    start({
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: r.url,
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team-token=abc',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
    });
    const [a, b] = await pushesOf(r, 2);
    expect(a!.path).toBe('/opentelemetry.proto.collector.metrics.v1.MetricsService/Export');
    expect(a!.headers['content-type']).toBe('application/grpc');
    expect(a!.headers['x-team-token']).toBe('abc');
    expect(a!.resource['service.name']).toBe('coding-agent-exporter');
    expect(tokenSum(a!.metrics)).toBe(TOKENS);
    expect(tokenSum(b!.metrics)).toBe(TOKENS);
    const buildInfo = a!.metrics.find((m) => m.name === 'coding_agent_exporter_build_info')!;
    expect(buildInfo.kind).toBe('gauge');
  });

  it('trusts the certificate named by OTEL_EXPORTER_OTLP_CERTIFICATE', async () => {
    const dir = tempDir();
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const r = await receive('http', { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') });
    start({
      OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
      OTEL_EXPORTER_OTLP_CERTIFICATE: cert,
      OTEL_METRIC_EXPORT_INTERVAL: '500',
    });
    const [a] = await pushesOf(r, 1);
    expect(tokenSum(a!.metrics)).toBe(TOKENS);
  });

  it('adds the GenAI and Claude Code views on request, over gRPC too', async () => {
    const r = await receive('grpc');
    start({
      OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      CODING_AGENT_EXPORTER_OTEL_SEMCONV: 'genai',
      CODING_AGENT_EXPORTER_OTEL_COMPAT: 'claude-code',
    });
    const [a] = await pushesOf(r, 1);
    const names = a!.metrics.map((m) => m.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'coding_agent_tokens',
        'gen_ai.client.token.usage',
        'claude_code.token.usage',
        'claude_code.session.count',
      ]),
    );
    const usage = a!.metrics.find((m) => m.name === 'gen_ai.client.token.usage')!;
    expect(usage.kind).toBe('histogram');
    const sumOf = (type: string) =>
      usage.points.filter((p) => p.attributes['gen_ai.token.type'] === type).reduce((x, p) => x + p.value, 0);
    const claude = a!.metrics.find((m) => m.name === 'claude_code.token.usage')!;
    expect(claude.unit).toBe('tokens');
    expect(sumOf('input') + sumOf('output')).toBe(tokenSum(a!.metrics));
    expect(claude.points.reduce((x, p) => x + p.value, 0)).toBe(TOKENS);
  });

  it('pushes nothing when OTEL_SDK_DISABLED is true', async () => {
    const r = await receive();
    const run = start({
      OTEL_SDK_DISABLED: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    });
    const base = await run.url;
    await until(
      async () =>
        sum(await (await fetch(`${base}/metrics`)).text(), 'coding_agent_tokens_total') > 0 ? true : undefined,
      10_000,
      'a scan',
    );
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).not.toContain('coding_agent_exporter_otlp_exports_total');
    await new Promise((res) => setTimeout(res, 1000));
    expect(r.pushes).toHaveLength(0);
  });

  it('logs a failing push once and counts every failure', async () => {
    // A port nothing listens on: connections are refused.
    const probe = createServer();
    await new Promise<void>((res) => probe.listen(0, '127.0.0.1', res));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((res) => probe.close(() => res()));
    // OTEL_EXPORTER_OTLP_TIMEOUT bounds the exporter's retries of each push.
    const run = start({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_METRIC_EXPORT_INTERVAL: '200',
      OTEL_EXPORTER_OTLP_TIMEOUT: '300',
    });
    const base = await run.url;
    const failures = await until(
      async () => {
        const n = sum(await (await fetch(`${base}/metrics`)).text(), 'coding_agent_exporter_otlp_exports_total', {
          result: 'failure',
        });
        return n >= 2 ? n : undefined;
      },
      20_000,
      'two failed pushes',
      100,
    );
    expect(failures).toBeGreaterThanOrEqual(2);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(sum(text, 'coding_agent_exporter_otlp_exports_total', { result: 'success' })).toBe(0);
    const warnings = run
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"msg":"OTLP push failed"'));
    expect(warnings).toHaveLength(1); // rate-limited: one line, not one per push
    expect(warnings[0]).toContain(`127.0.0.1:${port}`);
    expect(warnings[0]).toMatch(/ECONNREFUSED/);
  });
});
