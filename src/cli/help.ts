// `--help` and `help [command]`: the commands, and every flag and environment variable, generated
// from the configuration schema and the harness registry, so a key or a harness added there shows
// here without anyone writing it down.

import { READERS } from '../collectors/registry.js';
import { configKeys, type Leaf } from '../config/load.js';

export const COMMANDS: Record<string, { usage: string; summary: string; about: string }> = {
  serve: {
    usage: '[serve] [options]',
    summary: 'serve /metrics (the default), push OTLP if otlp.endpoint is set',
    about: 'Reads the session files of AI coding-agent harnesses and serves their metrics on\n'
      + 'http://127.0.0.1:10477/metrics (health: /-/healthy, /-/ready; the live page at /), pushing them\n'
      + 'over OTLP when otlp.endpoint is set. The default command.',
  },
  once: {
    usage: 'once [options]',
    summary: 'read once and print the metrics as Prometheus text',
    about: 'Reads the session files once and prints the metrics as Prometheus text, then exits (for cron and\n'
      + "node_exporter's textfile collector). Uses the state database, so counters stay monotonic.",
  },
  sessions: {
    usage: 'sessions [--json] [--since DURATION] [options]',
    summary: 'print the live sessions: status and why, model, tokens, cost, context',
    about: 'Reads the session files and prints the sessions active in the activity window (24 h unless\n'
      + '--since says otherwise): harness, project, status and why, model, tokens (DRIFT when none were counted\n'
      + 'for work done), cost, context use, the live process (how it was joined, CPU, memory) and last activity;\n'
      + 'then the agent processes no session file is joined to.',
  },
  top: {
    usage: 'top [--url URL] [options]',
    summary: 'a live view of every session in the terminal',
    about: 'A live view of every session in the terminal, redrawn every second: spend today and this week,\n'
      + 'tokens per minute, sessions by status, then one row per session (status and why, model, context,\n'
      + 'cost, running tool and for how long, the live process\'s CPU, memory and attribution, last\n'
      + 'activity). Keys: s sort (status, cost, activity), / filter by harness or project, i show or hide\n'
      + 'idle sessions, q or Ctrl-C quit. Reads the session files itself, starting\n'
      + 'from the state database without ever writing it (safe beside a running exporter), or shows a\n'
      + 'running exporter\'s sessions with --url.',
  },
  demo: {
    usage: 'demo [options]',
    summary: 'serve metrics from bundled sample sessions, no agent needed',
    about: 'Serves metrics from bundled sample sessions replayed into a temporary home: sessions that keep\n'
      + 'working, one that waits on the user and one that stalls, each with a small stand-in agent process\n'
      + '(a shell loop under the agent\'s name) while processes.enabled is on. No agent needs to be installed.',
  },
  hook: {
    usage: 'hook HARNESS [EVENT] [options]',
    summary: 'what a harness\'s hook runs: records the event for exact statuses',
    about: 'Run by a harness on its lifecycle events (set up with `hooks print`): reads the event\'s JSON on stdin,\n'
      + 'appends what a status needs (event, session, tool name, time; never a prompt or a tool\'s input) to\n'
      + 'hooks.jsonl in the state folder, where the running exporter reads it, and prints {}. Always exits 0.',
  },
  hooks: {
    usage: 'hooks print HARNESS [options]',
    summary: 'print the hook settings to paste into a harness\'s settings file',
    about: 'Prints the settings that make HARNESS (claude-code, gemini-cli, qwen-code, copilot-cli, codex) run\n'
      + '`coding-agent-exporter hook` on the events a status needs, and the file they go into. The exporter\n'
      + 'never writes a harness\'s settings itself.',
  },
  help: { usage: 'help [command]', summary: 'this help, or the help of one command', about: 'Prints this help, or the help of one command.' },
};

// Options that are not configuration keys, by the command they belong to (none: every command).
const EXTRA: { flag: string; doc: string; command?: string }[] = [
  { flag: '--config FILE', doc: 'JSON configuration file (every key: config.example.json)' },
  { flag: '--json', doc: 'print JSON instead of a table', command: 'sessions' },
  { flag: '--since DURATION', doc: 'the activity window to list, e.g. 30m, 12h, 7d (sessions.activeWindowSeconds)', command: 'sessions' },
  { flag: '--url URL', doc: 'a running exporter to show (http://host:10477; user:password@ for basic auth)', command: 'top' },
  { flag: '--reset-state', doc: 'start over with an empty state database (every counter restarts from 0)' },
  { flag: '--help, -h', doc: 'this help' },
  { flag: '--version, -v', doc: 'print the version' },
];

function placeholder(l: Leaf): string {
  if (l.format === 'boolean') return 'true|false';
  if (Array.isArray(l.format)) return l.format.join('|');
  if (l.format === 'nat') return 'N';
  for (const [suffix, word] of [['File', 'FILE'], ['Dir', 'DIR'], ['Address', 'HOST:PORT'], ['endpoint', 'URL'], ['Path', 'PATH']]) {
    if (l.key.endsWith(suffix!)) return word!;
  }
  return 'VALUE';
}

/** One line per key, with each harness's keys folded into one `<id>` line. */
function foldHarnesses(leaves: Leaf[]): (Leaf & { ids?: string })[] {
  const ids = Object.keys(READERS);
  const first = ids[0]!;
  const folded: (Leaf & { ids?: string })[] = [];
  for (const l of leaves) {
    if (!l.key.startsWith('collectors.')) {
      folded.push(l);
      continue;
    }
    if (!l.key.startsWith(`collectors.${first}.`)) continue;
    const generic = (s: string | undefined) => s?.replaceAll(first, '<id>').replaceAll(first.toUpperCase().replace(/-/g, '_'), '<ID>');
    folded.push({ ...l, key: generic(l.key)!, arg: generic(l.arg), env: generic(l.env), doc: generic(l.doc)!, ids: ids.join(', ') });
  }
  return folded;
}

function table(rows: [string, string][]): string {
  const width = Math.min(36, Math.max(...rows.map(([a]) => a.length)) + 2);
  return rows.map(([a, b]) => `  ${a.padEnd(width)}${a.length >= width ? `\n  ${' '.repeat(width)}` : ''}${b}`).join('\n');
}

export function help(command = 'serve'): string {
  const { usage, about } = COMMANDS[command]!;
  const keys = foldHarnesses(configKeys());
  const defaults = (l: Leaf) => (l.default === '' || (Array.isArray(l.default) && l.default.length === 0) ? '' : ` (default ${JSON.stringify(l.default)})`);
  const flags: [string, string][] = [
    ...keys.filter((l) => l.arg).map((l): [string, string] => [`--${l.arg} ${placeholder(l)}`,
      `${l.doc}${defaults(l)}${l.ids ? ` <id>: ${l.ids}.` : ''}`]),
    ...EXTRA.filter((e) => !e.command || e.command === command).map((e): [string, string] => [e.flag, e.doc]),
  ];
  const envOnly: [string, string][] = keys.filter((l) => !l.arg && l.env).map((l) => [l.env!, `${l.key}: ${l.doc}`]);
  const commands: [string, string][] = Object.entries(COMMANDS).map(([name, c]) => [name, c.summary]);
  return [
    `Usage: coding-agent-exporter ${usage}`,
    '',
    about,
    '',
    'Commands:',
    table(commands),
    '',
    'Options (each is also a configuration key; flags win over environment variables over the --config file):',
    table(flags),
    '',
    'Keys without a flag, as environment variables (or in the --config file):',
    table(envOnly),
    '',
    'Keys that take an object (project.aliases, otlp.headers, …) are set in the --config file; see the README.',
  ].join('\n');
}
