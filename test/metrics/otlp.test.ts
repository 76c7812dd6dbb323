// Which OTLP setting wins (the README's table), and how failed pushes are logged.

import { ExportResultCode } from '@opentelemetry/core';
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ExportLog, otlpOptions, otlpResource, shownUrl } from '../../src/metrics/otlp.js';

const ours = (args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  loadConfig(['--state-dir', '/tmp/x', ...args], env).otlp;

describe('OTLP settings', () => {
  it('pushes nothing without an endpoint', () => {
    expect(otlpOptions(ours(), {})).toBeUndefined();
    expect(otlpOptions(ours(), { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBeUndefined();
  });

  it('takes the defaults of the OpenTelemetry SDKs when only an endpoint is set', () => {
    expect(otlpOptions(ours(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({
      url: 'http://c:4318/v1/metrics',
      protocol: 'http/protobuf',
      headers: {},
      intervalMs: 60_000,
      temporality: 'cumulative',
    });
  });

  it('uses the metrics-specific endpoint as given, and before the generic one', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://generic:4318',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:9999/custom',
    };
    expect(otlpOptions(ours(), env)!.url).toBe('http://c:9999/custom');
  });

  it('sends gRPC to the endpoint itself', () => {
    expect(
      otlpOptions(ours(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })!.url,
    ).toBe('http://c:4317');
    expect(
      otlpOptions(ours(['--otlp-endpoint', 'http://c:4317'], { CODING_AGENT_EXPORTER_OTLP_PROTOCOL: 'grpc' }), {})!.url,
    ).toBe('http://c:4317');
  });

  it('prefers the metrics-specific variables and our keys', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://theirs:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
    };
    expect(otlpOptions(ours(), env)).toMatchObject({
      url: 'http://theirs:4318/v1/metrics',
      protocol: 'http/json',
      intervalMs: 5000,
      temporality: 'delta',
    });
    const mine = ours(['--otlp-endpoint', 'http://mine:4318/'], {
      CODING_AGENT_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      CODING_AGENT_EXPORTER_OTLP_INTERVAL_SECONDS: '10',
      CODING_AGENT_EXPORTER_OTLP_TEMPORALITY: 'cumulative',
    });
    expect(otlpOptions(mine, env)).toMatchObject({
      url: 'http://mine:4318/v1/metrics',
      protocol: 'http/protobuf',
      intervalMs: 10_000,
      temporality: 'cumulative',
    });
  });

  it('reads lowmemory as cumulative: our counters are totals, like asynchronous counters', () => {
    expect(
      otlpOptions(ours(), {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
        OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'LowMemory',
      })!.temporality,
    ).toBe('cumulative');
  });

  it('is switched off by OTEL_SDK_DISABLED, whatever else is set', () => {
    expect(otlpOptions(ours(['--otlp-endpoint', 'http://mine:4318']), { OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(otlpOptions(ours(['--otlp-endpoint', 'http://mine:4318']), { OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });

  it('stops start-up on a bad value, naming the variable', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' };
    expect(() => otlpOptions(ours(), { ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'udp' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: expected one of/,
    );
    expect(() => otlpOptions(ours(), { ...endpoint, OTEL_METRIC_EXPORT_INTERVAL: '1s' })).toThrow(
      /OTEL_METRIC_EXPORT_INTERVAL/,
    );
    expect(() => otlpOptions(ours(), { ...endpoint, OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'x' })).toThrow(
      /TEMPORALITY_PREFERENCE/,
    );
    expect(() => otlpOptions(ours(), { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: expected an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => otlpOptions(ours(['--otlp-endpoint', 'notaurl']), {})).toThrow(
      /otlp.endpoint: expected an http:\/\/ or https:\/\/ URL/,
    );
  });

  it('names a bad endpoint without the password written into it', () => {
    for (const endpoint of ['ftp://alice:s3cret@collector:4318', 'http://alice:s3cr/et@collector:4318']) {
      expect(() => otlpOptions(ours(['--otlp-endpoint', endpoint]), {})).toThrow(
        /otlp.endpoint: expected an http:\/\/ or https:\/\/ URL, got "[^"]*collector:4318\/?"/,
      );
      expect(() => otlpOptions(ours(['--otlp-endpoint', endpoint]), {})).not.toThrow(/s3cr/);
    }
  });
});

describe('OTLP resource', () => {
  const config = (args: string[] = []) => loadConfig(['--state-dir', '/tmp/x', ...args], {});

  it('names the OS user by default, and no team and never an e-mail', () => {
    const r = otlpResource(config(), {}, '1.2.3');
    expect(r).toMatchObject({
      'service.name': 'coding-agent-exporter',
      'service.version': '1.2.3',
      'user.name': userInfo().username,
    });
    expect(r['team.name']).toBeUndefined();
    expect(Object.values(r).join(' ')).not.toContain('@');
  });

  it('takes each attribute from the first source that has it', () => {
    const env = {
      OTEL_SERVICE_NAME: 'svc',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=no,user.name=env-user,team.name=env-team,k=v%2Cw',
    };
    expect(otlpResource(config(), env, 'v')).toMatchObject({
      'service.name': 'svc',
      'user.name': 'env-user',
      'team.name': 'env-team',
      k: 'v,w',
    });
    const c = config(['--identity.user', 'alice', '--identity.team', 'platform']);
    c.identity.attributes = { department: 'infra' };
    c.otlp.resourceAttributes = { 'team.name': 'override' };
    expect(otlpResource(c, env, 'v')).toMatchObject({
      'user.name': 'alice',
      'team.name': 'override',
      department: 'infra',
    });
  });
});

describe('Failed pushes', () => {
  const failure = { code: ExportResultCode.FAILED, error: new Error('connect ECONNREFUSED') };
  const success = { code: ExportResultCode.SUCCESS };

  it('are counted each and logged at most once per quiet period, with how many went unlogged', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = {
      debug() {},
      info: (msg: string, f = {}) => lines.push({ level: 'info', msg, ...f }),
      warn: (msg: string, f = {}) => lines.push({ level: 'warn', msg, ...f }),
      error() {},
    };
    const log = new ExportLog(logger, 'http://c/v1/metrics', 60_000);
    log.record(failure, 0);
    log.record(failure, 1000);
    log.record(failure, 59_000);
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: 'OTLP push failed',
        url: 'http://c/v1/metrics',
        error: 'connect ECONNREFUSED',
        failedSinceLastLog: 0,
      },
    ]);
    log.record(failure, 61_000);
    expect(lines[1]).toMatchObject({ level: 'warn', failedSinceLastLog: 2 });
    log.record(success, 62_000);
    log.record(success, 63_000);
    expect(lines.slice(2)).toEqual([
      { level: 'info', msg: 'OTLP push works again', url: 'http://c/v1/metrics', failedSinceLastLog: 0 },
    ]);
    expect(log.counts).toEqual({ success: 2, failure: 4 });
  });

  it('are logged without the credentials a URL may carry', () => {
    const lines: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (_m: string, f: Record<string, unknown> = {}) => lines.push(String(f.url)),
      error() {},
    };
    new ExportLog(logger, 'https://alice:s3cret@collector:4318/v1/metrics').record(failure, 0);
    expect(lines).toEqual(['https://collector:4318/v1/metrics']);
  });
});

describe('shownUrl', () => {
  it.each([
    ['http://prom:s3cret@host:10477/', 'http://host:10477/'],
    // No scheme: `prom` would be read as one, and the password as a path.
    ['prom:s3cret@host:10477', '…@host:10477'],
    ['http://prom:s3cr/et@host', '…@host'],
    ['https://host/v1/metrics?token=s3cret&x=1', 'https://host/v1/metrics?token=…&x=1'],
    [
      'https://host/?api_key=s3cret&access_token=s3cret&X-Amz-Signature=s3cret&password=s3cret',
      'https://host/?api_key=…&access_token=…&X-Amz-Signature=…&password=…',
    ],
    ['https://u:s3cret@host/#access_token=s3cret', 'https://host/#access_token=…'],
    ['host:10477?secret=s3cret', 'host:10477?secret=…'],
    ['http://127.0.0.1:10477', 'http://127.0.0.1:10477'],
  ])('%s is shown as %s', (url, shown) => {
    expect(shownUrl(url)).toBe(shown);
  });
});
