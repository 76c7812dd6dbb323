// Configuration from defaults, a JSON file (--config), environment variables and flags, in that
// order of precedence (flags win). Unknown keys and bad values stop start-up with a message that
// names the key.

import type Convict from 'convict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Level } from '../log.js';
import type { ProjectOptions } from '../session/project.js';
import { ENV_PREFIX, schema } from './schema.js';

// A CommonJS package, required, not imported: see state/db.ts (convict's scan took ~20 ms of CPU).
const convict = createRequire(import.meta.url)('convict') as typeof Convict;

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

// Convict's own Boolean takes any string ("yes" → true); ours takes true/false (or their text, from
// environment variables and flags) and nothing else.
convict.addFormat({
  name: 'boolean',
  validate(value: unknown) {
    if (typeof value !== 'boolean') throw new Error('must be true or false');
  },
  coerce: (value: unknown) => (value === 'true' ? true : value === 'false' ? false : value),
});

function build(args: string[], env: NodeJS.ProcessEnv) {
  return convict<Config>(schema() as unknown as Convict.Schema<Config>, { args, env });
}

export class ConfigError extends Error {}

// Flags other exporters spell differently, taken as the flag they mean: Prometheus users type
// exporter-toolkit's `--web.listen-address`.
const FLAG_ALIASES: Readonly<Record<string, string>> = { 'web.listen-address': 'listen-address' };

/** Loads and validates; `args` are the command's flags (`--state-dir x`), `file` a --config path. */
export function loadConfig(given: string[], env: NodeJS.ProcessEnv, file?: string): Config {
  const keys = configKeys();
  const args = given.map((a) => a.replace(/^--([^=]+)/, (flag, name: string) => (FLAG_ALIASES[name] ? `--${FLAG_ALIASES[name]}` : flag)));
  const known = configFlags();
  args.forEach((a, i) => {
    const m = /^--([^=]+)(=?)/.exec(a);
    if (!m) return;
    const leaf = known.get(m[1]!);
    // Messages name the flag as it was typed, an alias too.
    const typed = /^--[^=]+/.exec(given[i]!)![0];
    if (!leaf) throw new ConfigError(`unknown flag ${typed}`);
    // A bare boolean flag means true; any other flag needs its value (`--listen-address` alone is not `true`).
    const next = args[i + 1];
    if (!m[2] && leaf.format !== 'boolean' && (next === undefined || next.startsWith('--'))) {
      throw new ConfigError(`${typed}: a value is missing (${leaf.key}: ${leaf.doc})`);
    }
  });
  // A misspelled variable would otherwise be ignored without a word, as a misspelled key is not.
  const variables = new Set(keys.flatMap((l) => (l.env ? [l.env] : [])));
  for (const name of Object.keys(env)) {
    if (name.startsWith(ENV_PREFIX) && !variables.has(name)) throw new ConfigError(`unknown environment variable ${name}`);
  }
  const config = build(args, env);
  try {
    if (file) config.load(JSON.parse(readFileSync(file, 'utf8')));
    config.validate({ allowed: 'strict' });
  } catch (e) {
    throw new ConfigError(`invalid configuration${file ? ` (${file})` : ''}: ${(e as Error).message}`);
  }
  const props = config.getProperties();
  const home = env.HOME ?? homedir();
  props.stateDir = expandHome(props.stateDir, home);
  props.pricing.overridesFile = expandHome(props.pricing.overridesFile, home);
  props.webConfigFile = expandHome(props.webConfigFile, home);
  for (const c of Object.values(props.collectors)) c.roots = c.roots.map((r) => expandHome(r, home));
  // An empty host (`:10477`) means every interface, as other exporters take it.
  if (!/:\d+$/.test(props.listenAddress) || !(splitAddress(props.listenAddress)[1] < 65536)) {
    throw new ConfigError(`listenAddress: expected host:port (or :port for every interface), got "${props.listenAddress}"`);
  }
  return props;
}

export function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i).replace(/^\[|\]$/g, ''), i === -1 ? NaN : Number(address.slice(i + 1))];
}

function expandHome(path: string, home: string): string {
  return path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path;
}

/** The documented example configuration: every key with its default. */
export function exampleConfig(): Config {
  return { ...build([], {}).getProperties(), stateDir: '~/.local/state/coding-agent-exporter' };
}

export interface Leaf {
  key: string;
  doc: string;
  default: unknown;
  format: unknown;
  env?: string;
  arg?: string;
}

/** Flags convict knows (`listen-address` …) and the key each sets, for refusing misspelled ones. */
export function configFlags(): Map<string, Leaf> {
  const flags = new Map(configKeys().filter((l) => l.arg).map((l) => [l.arg!, l]));
  for (const [alias, flag] of Object.entries(FLAG_ALIASES)) flags.set(alias, flags.get(flag)!);
  return flags;
}

/** Every key, for the README's configuration table. */
export function configKeys(): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(node)) {
      const o = v as Record<string, unknown>;
      if ('doc' in o) {
        leaves.push({ key: prefix + k, doc: String(o.doc), default: o.default, format: o.format, env: o.env as string | undefined, arg: o.arg as string | undefined });
      } else walk(o, `${prefix}${k}.`);
    }
  };
  walk(schema(), '');
  return leaves.map((l) => (l.key === 'stateDir' ? { ...l, default: '$XDG_STATE_HOME/coding-agent-exporter' } : l));
}
