// Configuration from defaults, a JSON file (--config), environment variables and flags, in that
// order of precedence (flags win). Unknown keys and bad values stop start-up with a message that
// names the key. Merged and checked here against schema.ts: convict, used before, took 35 ms of
// every start-up to load and run.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import type { Level } from '../log.js';
import type { ProjectOptions } from '../session/project.js';
import { ENV_PREFIX, schema, WEEKDAYS } from './schema.js';

export interface Config {
  listenAddress: string;
  webConfigFile: string;
  web: { allowedHosts: string[] };
  metricsPath: string;
  stateDir: string;
  logLevel: Level;
  rescanSeconds: number;
  readThreads: number;
  watch: boolean;
  project: ProjectOptions;
  model: { max: number };
  tool: { max: number };
  ledger: { days: number };
  report: { startOfWeek: (typeof WEEKDAYS)[number] };
  sessions: { activeWindowSeconds: number; perSessionMax: number; doneForSeconds: number; staleAfterSeconds: number };
  processes: { enabled: boolean; procRoot: string };
  pricing: { overridesFile: string };
  identity: { user: string; team: string; attributes: Record<string, string> };
  otlp: {
    endpoint: string;
    protocol: '' | 'http/protobuf' | 'http/json' | 'grpc';
    headers: Record<string, string>;
    intervalSeconds: number;
    temporality: '' | 'cumulative' | 'delta';
    resourceAttributes: Record<string, string>;
  };
  otel: { semconv: '' | 'genai'; compat: '' | 'claude-code' };
  collectors: Record<string, { enabled: boolean; roots: string[] }>;
}

export class ConfigError extends Error {}

// Flags other exporters spell differently, taken as the flag they mean: Prometheus users type
// exporter-toolkit's `--web.listen-address`.
const FLAG_ALIASES: Readonly<Record<string, string>> = { 'web.listen-address': 'listen-address' };

/** Loads and validates; `args` are the command's flags (`--state-dir x`), `file` a --config path. */
export function loadConfig(given: string[], env: NodeJS.ProcessEnv, file?: string): Config {
  const keys = leaves();
  const args = given.map((a) =>
    a.replace(/^--([^=]+)/, (flag, name: string) => (FLAG_ALIASES[name] ? `--${FLAG_ALIASES[name]}` : flag)),
  );
  const flags = flagValues(args, given, configFlags());
  // A misspelled variable would otherwise be ignored without a word, as a misspelled key is not.
  const variables = new Set(keys.flatMap((l) => (l.env ? [l.env] : [])));
  for (const name of Object.keys(env)) {
    if (name.startsWith(ENV_PREFIX) && !variables.has(name))
      throw new ConfigError(`unknown environment variable ${name}`);
  }
  const values = new Map(keys.map((l) => [l.key, l.default]));
  const problems: string[] = [];
  let json: unknown;
  try {
    if (file) json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`invalid configuration (${file}): ${(e as Error).message}`);
  }
  if (json !== undefined) overlay(values, schema(), json, '', problems);
  for (const l of keys) if (l.env && env[l.env] !== undefined) values.set(l.key, coerce(l.format, env[l.env]!));
  for (const [leaf, value] of flags) values.set(leaf.key, coerce(leaf.format, value));
  for (const l of keys) {
    const problem = invalid(l, values.get(l.key));
    if (problem) problems.push(`${l.key}: ${problem}: value was ${JSON.stringify(values.get(l.key))}`);
  }
  if (problems.length > 0)
    throw new ConfigError(`invalid configuration${file ? ` (${file})` : ''}: ${problems.join('; ')}`);
  const props = nested(values) as unknown as Config;
  const home = env.HOME ?? homedir();
  props.stateDir = expandHome(props.stateDir, home);
  props.pricing.overridesFile = expandHome(props.pricing.overridesFile, home);
  props.webConfigFile = expandHome(props.webConfigFile, home);
  for (const c of Object.values(props.collectors)) c.roots = c.roots.map((r) => expandHome(r, home));
  // An empty host (`:10477`) means every interface, as other exporters take it.
  if (!/:\d+$/.test(props.listenAddress) || !(splitAddress(props.listenAddress)[1] < 65536)) {
    throw new ConfigError(
      `listenAddress: expected host:port (or :port for every interface), got "${props.listenAddress}"`,
    );
  }
  return props;
}

export function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i).replace(/^\[|\]$/g, ''), i === -1 ? NaN : Number(address.slice(i + 1))];
}

/** `~`, `~/…` and, on Windows, `~\\…` under the home. */
function expandHome(path: string, home: string): string {
  return path === '~' || path.startsWith('~/') || path.startsWith(`~${sep}`) ? join(home, path.slice(1)) : path;
}

/** The documented example configuration: every key with its default. */
export function exampleConfig(): Config {
  return {
    ...(nested(new Map(leaves().map((l) => [l.key, l.default]))) as unknown as Config),
    stateDir: '~/.local/state/coding-agent-exporter',
  };
}

/**
 * What a key holds: String, Array (of strings; a comma-separated list in a variable or flag),
 * Object (any JSON object, taken whole), 'nat' (a whole number, 0 or more), 'boolean' (true or
 * false, their text too), or one of a list of words.
 */
export type Format = StringConstructor | ArrayConstructor | ObjectConstructor | 'nat' | 'boolean' | readonly string[];

export interface Leaf {
  key: string;
  doc: string;
  default: unknown;
  format: Format;
  env?: string;
  arg?: string;
}

/** A variable's or flag's text as the key's format reads it; left as it is where it does not read (the check then names the key). */
function coerce(format: Format, value: string | true): unknown {
  if (value === true) return value;
  if (format === Array) return value.split(',');
  if (format === 'nat') return /^\d+$/.test(value) ? Number(value) : value;
  if (format === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/** What is wrong with a key's value, or undefined. */
function invalid(leaf: Leaf, value: unknown): string | undefined {
  const f = leaf.format;
  if (f === String) return typeof value === 'string' ? undefined : 'must be a string';
  if (f === Array)
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : 'must be a list of strings';
  if (f === Object) return isObject(value) ? undefined : 'must be an object';
  if (f === 'nat')
    return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a whole number, 0 or more';
  if (f === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false';
  return (f as readonly string[]).includes(value as string)
    ? undefined
    : `must be one of ${(f as readonly string[]).map((w) => JSON.stringify(w)).join(', ')}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A file's values over `values`, each key found in the schema (a leaf's own text read as a variable's would be); a key it lacks is a problem. */
function overlay(
  values: Map<string, unknown>,
  node: Record<string, unknown>,
  json: unknown,
  prefix: string,
  problems: string[],
): void {
  if (!isObject(json)) {
    problems.push(`${prefix ? prefix.slice(0, -1) : 'the file'}: must be an object: value was ${JSON.stringify(json)}`);
    return;
  }
  for (const [k, v] of Object.entries(json)) {
    const at = Object.hasOwn(node, k) ? (node[k] as Record<string, unknown>) : undefined;
    if (!at) problems.push(`${prefix}${k}: not a configuration key`);
    else if (!('doc' in at)) overlay(values, at, v, `${prefix}${k}.`, problems);
    else values.set(`${prefix}${k}`, typeof v === 'string' ? coerce(at.format as Format, v) : v);
  }
}

/**
 * The flags' values (`--flag value`, `--flag=value`, a bare true/false flag: true), in order: the
 * last of a repeated flag wins. `typed`: the flags as given (an alias unresolved), for messages.
 */
function flagValues(args: string[], typed: string[], known: Map<string, Leaf>): [Leaf, string | true][] {
  const out: [Leaf, string | true][] = [];
  for (let i = 0; i < args.length; i++) {
    const m = /^--([^=]+)(?:=([\s\S]*))?$/.exec(args[i]!);
    if (!m) continue;
    const flag = /^--[^=]+/.exec(typed[i]!)![0];
    const leaf = known.get(m[1]!);
    if (!leaf) throw new ConfigError(`unknown flag ${flag}`);
    const next = args[i + 1];
    if (m[2] !== undefined) out.push([leaf, m[2]]);
    else if (leaf.format === 'boolean') out.push([leaf, next === 'true' || next === 'false' ? args[++i]! : true]);
    // Any other flag needs its value (`--listen-address` alone is not `true`).
    else if (next === undefined || next.startsWith('--'))
      throw new ConfigError(`${flag}: a value is missing (${leaf.key}: ${leaf.doc})`);
    else out.push([leaf, args[++i]!]);
  }
  return out;
}

/** The nested configuration of dotted keys' values. */
function nested(values: Map<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of values) {
    const path = key.split('.');
    let node = root;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]!] = value;
  }
  return root;
}

/** The flags (`listen-address` …) and the key each sets, for refusing misspelled ones. */
export function configFlags(): Map<string, Leaf> {
  const flags = new Map(
    configKeys()
      .filter((l) => l.arg)
      .map((l) => [l.arg!, l]),
  );
  for (const [alias, flag] of Object.entries(FLAG_ALIASES)) flags.set(alias, flags.get(flag)!);
  return flags;
}

/** Every key, for docs/configuration.md's table. */
export function configKeys(): Leaf[] {
  return leaves().map((l) => (l.key === 'stateDir' ? { ...l, default: '$XDG_STATE_HOME/coding-agent-exporter' } : l));
}

/** Every key of the schema, with its default. */
function leaves(): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(node)) {
      const o = v as Record<string, unknown>;
      if ('doc' in o) {
        leaves.push({
          key: prefix + k,
          doc: String(o.doc),
          default: o.default,
          format: o.format as Format,
          env: o.env as string | undefined,
          arg: o.arg as string | undefined,
        });
      } else walk(o, `${prefix}${k}.`);
    }
  };
  walk(schema(), '');
  return leaves;
}
