// Configuration from defaults, a JSON file (--config), environment variables and flags, in that
// order of precedence (flags win). Unknown keys and bad values stop start-up with a message that
// names the key.

import convict from 'convict';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Level } from '../log.js';
import type { ProjectOptions } from '../session/project.js';
import { schema } from './schema.js';

export interface Config {
  listenAddress: string;
  metricsPath: string;
  stateDir: string;
  logLevel: Level;
  rescanSeconds: number;
  watch: boolean;
  project: ProjectOptions;
  sessions: { activeWindowSeconds: number; perSessionMax: number; doneForSeconds: number; staleAfterSeconds: number };
  processes: { enabled: boolean; procRoot: string };
  pricing: { overridesFile: string };
  otlp: {
    endpoint: string;
    protocol: 'http/protobuf' | 'http/json';
    headers: Record<string, string>;
    intervalSeconds: number;
    temporality: 'cumulative' | 'delta';
    resourceAttributes: Record<string, string>;
  };
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
  return convict<Config>(schema() as unknown as convict.Schema<Config>, { args, env });
}

export class ConfigError extends Error {}

/** Flags convict knows (`--listen-address` …), for rejecting misspelled ones. */
function knownFlags(): Set<string> {
  const flags = new Set<string>();
  const walk = (node: Record<string, unknown>) => {
    for (const v of Object.values(node)) {
      const o = v as Record<string, unknown>;
      if (o && typeof o === 'object' && 'doc' in o) {
        if (typeof o.arg === 'string') flags.add(o.arg);
      } else if (o && typeof o === 'object') walk(o);
    }
  };
  walk(schema());
  return flags;
}

/** Loads and validates; `args` are the command's flags (`--state-dir x`), `file` a --config path. */
export function loadConfig(args: string[], env: NodeJS.ProcessEnv, file?: string): Config {
  const known = knownFlags();
  for (const a of args) {
    const m = /^--([^=]+)/.exec(a);
    if (m && !known.has(m[1]!)) throw new ConfigError(`unknown flag --${m[1]}`);
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
  for (const c of Object.values(props.collectors)) c.roots = c.roots.map((r) => expandHome(r, home));
  const [host, port] = splitAddress(props.listenAddress);
  if (!host || !(port >= 0 && port < 65536)) throw new ConfigError(`listenAddress: expected host:port, got "${props.listenAddress}"`);
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

interface Leaf {
  key: string;
  doc: string;
  default: unknown;
  env?: string;
  arg?: string;
}

/** Every key, for the README's configuration table. */
export function configKeys(): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(node)) {
      const o = v as Record<string, unknown>;
      if ('doc' in o) leaves.push({ key: prefix + k, doc: String(o.doc), default: o.default, env: o.env as string | undefined, arg: o.arg as string | undefined });
      else walk(o, `${prefix}${k}.`);
    }
  };
  walk(schema() as unknown as Record<string, unknown>, '');
  return leaves.map((l) => (l.key === 'stateDir' ? { ...l, default: '$XDG_STATE_HOME/coding-agent-exporter' } : l));
}
