// OTLP push of the same snapshot, with the same names, from the same process. Settings come from
// our own keys first, then the standard OTEL_* environment variables users already set for other
// tools (docs/otlp.md: "Which setting wins"); a failed push is logged and counted, never silent.
//
// This module only reads settings and counts results: it loads no OpenTelemetry module, so that a
// process without a push never loads one (otlp-push.ts, loaded when a push is configured, does).

import type { ExportResult, ExportResultCode } from '@opentelemetry/core';
import { hostname, userInfo } from 'node:os';
import { ConfigError, type Config } from '../config/load.js';
import type { Logger } from '../log.js';

const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
export type Temporality = 'cumulative' | 'delta';

export interface OtlpOptions {
  /** The full URL pushes go to (`…/v1/metrics` for HTTP, `scheme://host:port` for gRPC). */
  url: string;
  protocol: Protocol;
  /** Ours; the SDK adds OTEL_EXPORTER_OTLP_(METRICS_)HEADERS under them. */
  headers: Record<string, string>;
  intervalMs: number;
  temporality: Temporality;
}

const DEFAULT_INTERVAL_MS = 60_000;

/**
 * The push as configured, or undefined when there is none. Each setting is our key if set, else
 * its OTEL_* variable (the metrics-specific one first), else the default. OTEL_SDK_DISABLED turns
 * the push off whatever else is set, as it turns off any OpenTelemetry SDK. A bad value stops
 * start-up naming the variable. Timeout, compression and certificates are read by the SDK's
 * exporters from their OTEL_* variables (we have no keys for them).
 */
export function otlpOptions(otlp: Config['otlp'], env: NodeJS.ProcessEnv): OtlpOptions | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const protocol =
    ours(otlp.protocol) ??
    fromEnv(env, ['OTEL_EXPORTER_OTLP_METRICS_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'], PROTOCOLS) ??
    'http/protobuf';
  const [source, given] = ours(otlp.endpoint)
    ? ['otlp.endpoint', otlp.endpoint.trim()]
    : env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim()
      ? ['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT.trim()]
      : ['OTEL_EXPORTER_OTLP_ENDPOINT', env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()];
  if (!given) return undefined;
  if (!/^https?:$/.test(URL.parse(given)?.protocol ?? ''))
    throw new ConfigError(`${source}: expected an http:// or https:// URL, got "${shownUrl(given)}"`);
  // The signal's own variable is used as it is; our key and the general variable are base URLs for HTTP.
  const url =
    source === 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT' || protocol === 'grpc'
      ? given
      : `${given.replace(/\/+$/, '').replace(/\/v1\/metrics$/, '')}/v1/metrics`;
  const intervalMs =
    otlp.intervalSeconds > 0
      ? otlp.intervalSeconds * 1000
      : (envInterval(env.OTEL_METRIC_EXPORT_INTERVAL) ?? DEFAULT_INTERVAL_MS);
  const temporality =
    ours(otlp.temporality) ?? envTemporality(env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE) ?? 'cumulative';
  return { url, protocol, headers: otlp.headers, intervalMs, temporality };
}

/**
 * Who and where the pushed metrics come from, each attribute from the first source that has it:
 * otlp.resourceAttributes, identity.*, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, then the
 * defaults (host name, OS user name).
 */
export function otlpResource(
  config: Pick<Config, 'identity' | 'otlp'>,
  env: NodeJS.ProcessEnv,
  version: string,
): Record<string, string> {
  const host = hostname();
  const serviceName = env.OTEL_SERVICE_NAME?.trim();
  const { user, team, attributes } = config.identity;
  return {
    'service.name': 'coding-agent-exporter',
    'service.instance.id': host,
    'host.name': host,
    ...osUser(env),
    ...parseResourceEnv(env.OTEL_RESOURCE_ATTRIBUTES),
    ...(serviceName ? { 'service.name': serviceName } : {}),
    ...(user ? { 'user.name': user } : {}),
    ...(team ? { 'team.name': team } : {}),
    ...attributes,
    ...config.otlp.resourceAttributes,
    'service.version': version,
  };
}

/** The login name; a container user without a passwd entry has none (userInfo throws). */
function osUser(env: NodeJS.ProcessEnv): { 'user.name'?: string } {
  try {
    return { 'user.name': userInfo().username };
  } catch {
    const name = env.USER ?? env.LOGNAME;
    return name ? { 'user.name': name } : {};
  }
}

function parseResourceEnv(value: string | undefined): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i > 0) attrs[decodeURIComponent(pair.slice(0, i).trim())] = decodeURIComponent(pair.slice(i + 1).trim());
  }
  return attrs;
}

const ours = <T extends string>(value: T | ''): T | undefined => (value === '' ? undefined : value);

function fromEnv<T extends string>(env: NodeJS.ProcessEnv, names: string[], allowed: readonly T[]): T | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (!value) continue;
    if (!(allowed as readonly string[]).includes(value))
      throw new ConfigError(`${name}: expected one of ${allowed.join(', ')}, got "${value}"`);
    return value as T;
  }
  return undefined;
}

function envInterval(value: string | undefined): number | undefined {
  if (!value?.trim()) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new ConfigError(`OTEL_METRIC_EXPORT_INTERVAL: expected milliseconds (a positive integer), got "${value}"`);
  return ms;
}

/**
 * Our counters are totals read back from files, like the spec's asynchronous counters, for which
 * `lowmemory` means cumulative.
 */
function envTemporality(value: string | undefined): Temporality | undefined {
  const v = value?.trim().toLowerCase();
  if (!v) return undefined;
  if (v === 'cumulative' || v === 'lowmemory') return 'cumulative';
  if (v === 'delta') return 'delta';
  throw new ConfigError(
    `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: expected cumulative, delta or lowmemory, got "${value}"`,
  );
}

// A query parameter (or a fragment's, as OAuth puts a token there) whose name says it holds a
// secret: `token`, `access_token`, `api_key`, `apikey`, `password`, `X-Amz-Signature`, `sig`, ….
const SECRET_PARAM = /([?&;#][^=&;#]*?(?:token|key|pass|pwd|secret|auth|sig|credential)[^=&;#]*=)[^&;#]*/gi;

/**
 * A URL for logs and messages: without a user name or password written into it, nor the value of
 * a parameter named as a secret. Text that is not a `scheme://` URL loses everything up to its
 * last `@` (`http://u:pa/ss@host` is no URL, and `prom:pass@host` is one whose scheme is `prom`:
 * either way its password would show).
 */
export function shownUrl(url: string): string {
  const u = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? URL.parse(url) : null;
  let shown = url;
  if (!u) shown = url.replace(/^.*@/s, '…@');
  else if (u.username || u.password) {
    u.username = '';
    u.password = '';
    shown = u.toString();
  }
  return shown.replace(SECRET_PARAM, '$1…');
}

export type ExportOutcome = 'success' | 'failure';

/** ExportResultCode.SUCCESS, without loading @opentelemetry/core for one number. */
const SUCCESS = 0 as ExportResultCode.SUCCESS;

/**
 * Counts pushes by outcome (coding_agent_exporter_otlp_exports_total) and logs failures: the
 * first one at once, then at most one line per `quietMs` saying how many failed meanwhile, and
 * one line when pushes work again. A receiver that is down for a day gives a few hundred lines,
 * not one per push.
 */
export class ExportLog {
  readonly counts: Record<ExportOutcome, number> = { success: 0, failure: 0 };
  private failing = false;
  private lastWarnAt = -Infinity;
  private unlogged = 0;

  private readonly url: string;

  constructor(
    private readonly log: Logger,
    url: string,
    private readonly quietMs = 5 * 60_000,
  ) {
    this.url = shownUrl(url);
  }

  record(result: ExportResult, now = Date.now()): void {
    if (result.code === SUCCESS) {
      this.counts.success++;
      if (this.failing) this.log.info('OTLP push works again', { url: this.url, failedSinceLastLog: this.unlogged });
      this.failing = false;
      this.unlogged = 0;
      return;
    }
    this.counts.failure++;
    this.failing = true;
    if (now - this.lastWarnAt < this.quietMs) {
      this.unlogged++;
      return;
    }
    this.log.warn('OTLP push failed', {
      url: this.url,
      error: result.error?.message ?? 'unknown',
      failedSinceLastLog: this.unlogged,
    });
    this.lastWarnAt = now;
    this.unlogged = 0;
  }
}
