// `--help` and `help [command]`: the commands, and every flag and environment variable, generated
// from the configuration schema and the harness registry, so a key or a harness added there shows
// here without anyone writing it down.

import { HARNESSES } from '../collectors/registry.js';
import { configKeys, type Leaf } from '../config/load.js';
import { COMMANDS, type CommandName } from './commands.js';

export { COMMANDS };

// Options that are not configuration keys, by the command they belong to (none: every command
// that takes it, as COMMANDS says).
const EXTRA: { flag: string; doc: string; command?: string }[] = [
  { flag: '--config FILE', doc: 'JSON configuration file (every key: config.example.json)' },
  { flag: '--json', doc: 'print JSON instead of a table', command: 'sessions' },
  {
    flag: '--since DURATION|DAY',
    doc: "the activity window to list: a duration (30m, 12h, 7d) or since a day's start (YYYY-MM-DD) (sessions.activeWindowSeconds)",
    command: 'sessions',
  },
  {
    flag: '--format TEMPLATE',
    doc: 'the line to print, with {model} {context} {session} {today} {5h} {5h_resets} {7d} {7d_resets} {7d_opus} {7d_sonnet} {block} {block_ends}',
    command: 'statusline',
  },
  {
    flag: '--since DAY, --until DAY',
    doc: 'the first and last day to report (YYYY-MM-DD or YYYYMMDD), both included; --since also takes a duration (7d: the day 7 days ago)',
    command: 'report',
  },
  { flag: '--harness ID', doc: 'only this harness (claude-code, codex, …)', command: 'report' },
  { flag: '--project NAME', doc: 'only this project (its label, as the metrics name it)', command: 'report' },
  { flag: '--model NAME', doc: 'only this model (its label, as the metrics name it)', command: 'report' },
  {
    flag: '--breakdown model|project|harness',
    doc: 'a row per model, project or harness under each period',
    command: 'report',
  },
  {
    flag: '--timezone ZONE, -z ZONE',
    doc: "the time zone days are cut in (IANA, e.g. UTC, Europe/Berlin); default: the system's",
    command: 'report',
  },
  { flag: '--json', doc: "print JSON (ccusage's field names) instead of a table", command: 'report' },
  {
    flag: '--url URL',
    doc: 'a running exporter to show (http://host:10477, or host:10477; user:password@ for basic auth)',
    command: 'top',
  },
  {
    flag: '--since DURATION|DAY',
    doc: "the activity window to show: a duration (30m, 12h, 7d) or since a day's start (YYYY-MM-DD) (sessions.activeWindowSeconds)",
    command: 'top',
  },
  { flag: '--json', doc: 'print JSON instead of text', command: 'doctor' },
  { flag: '--reset-state', doc: 'start over with an empty state database (every counter restarts from 0)' },
  { flag: '--help, -h', doc: 'this help' },
  { flag: '--version, -v', doc: 'print the version' },
];

function placeholder(l: Leaf): string {
  if (l.format === 'boolean') return 'true|false';
  if (Array.isArray(l.format)) return l.format.join('|');
  if (l.format === 'nat') return 'N';
  for (const [suffix, word] of [
    ['File', 'FILE'],
    ['Dir', 'DIR'],
    ['Address', 'HOST:PORT'],
    ['endpoint', 'URL'],
    ['Path', 'PATH'],
  ]) {
    if (l.key.endsWith(suffix!)) return word!;
  }
  return 'VALUE';
}

/** One line per key, with each harness's keys folded into one `<id>` line. */
function foldHarnesses(leaves: Leaf[]): (Leaf & { ids?: string })[] {
  const ids = Object.keys(HARNESSES);
  const first = ids[0]!;
  const folded: (Leaf & { ids?: string })[] = [];
  for (const l of leaves) {
    if (!l.key.startsWith('collectors.')) {
      folded.push(l);
      continue;
    }
    if (!l.key.startsWith(`collectors.${first}.`)) continue;
    const generic = (s: string | undefined) =>
      s?.replaceAll(first, '<id>').replaceAll(first.toUpperCase().replace(/-/g, '_'), '<ID>');
    folded.push({
      ...l,
      key: generic(l.key)!,
      arg: generic(l.arg),
      env: generic(l.env),
      doc: generic(l.doc)!,
      ids: ids.join(', '),
    });
  }
  return folded;
}

function table(rows: [string, string][]): string {
  const width = Math.min(36, Math.max(...rows.map(([a]) => a.length)) + 2);
  return rows
    .map(([a, b]) => `  ${a.padEnd(width)}${a.length >= width ? `\n  ${' '.repeat(width)}` : ''}${b}`)
    .join('\n');
}

export function help(command: CommandName = 'serve'): string {
  const { usage, about } = COMMANDS[command];
  const keys = foldHarnesses(configKeys());
  const defaults = (l: Leaf) =>
    l.default === '' || (Array.isArray(l.default) && l.default.length === 0)
      ? ''
      : ` (default ${JSON.stringify(l.default)})`;
  const flags: [string, string][] = [
    ...keys
      .filter((l) => l.arg)
      .map((l): [string, string] => [
        `--${l.arg} ${placeholder(l)}`,
        `${l.doc}${defaults(l)}${l.ids ? ` <id>: ${l.ids}.` : ''}`,
      ]),
    ...EXTRA.filter((e) =>
      e.command
        ? e.command === command
        : ['--config', '--help', '--version'].includes(e.flag.split(/[ ,]/)[0]!) ||
          COMMANDS[command].flags.includes(e.flag),
    ).map((e): [string, string] => [e.flag, e.doc]),
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
    'Keys that take an object (project.aliases, otlp.headers, …) are set in the --config file; see docs/configuration.md.',
  ].join('\n');
}
