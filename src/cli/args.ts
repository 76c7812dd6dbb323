// The command line: the command word wherever it stands among the flags (`--config c.json once` is
// `once`, not `serve`), a flag's value never taken for the command, and any word or flag that is
// none of ours refused, with the nearest command or flag when it looks like a misspelling.

import { ConfigError, configFlags } from '../config/load.js';
import { WEEKDAYS } from '../config/schema.js';
import {
  CCUSAGE_REFUSED,
  COMMANDS,
  isCommand,
  REPORT_FLAGS,
  REPORT_SWITCHES,
  SHORT_FLAGS,
  type CommandName,
} from './commands.js';
import { HARNESSES } from '../session/vocabulary.js';
import type { ReportOptions } from '../report/report.js';
import { dayOf } from '../store/ledger.js';
import { httpClient } from './http.js';
import { BREAKDOWNS, KINDS, knownTimeZone, parseDay, type Breakdown, type Kind } from '../report/words.js';

export interface Parsed {
  command: CommandName;
  /** `help sessions`: the command whose help to print. */
  topic?: CommandName;
  help: boolean;
  version: boolean;
  json: boolean;
  resetState: boolean;
  configFile?: string;
  /** `sessions --since 7d` (or a day): the activity window, in seconds. */
  since?: number;
  /** `hook <harness> [event]`, `hooks print <harness>`: the words after the command. */
  words: string[];
  /** `top --url`: a running exporter to show. */
  url?: string;
  /** `statusline --format`: the line's template. */
  format?: string;
  /** `report KIND` and its flags. */
  report?: ReportArgs;
  /** The configuration flags and their values, for loadConfig. */
  rest: string[];
}

export interface ReportArgs extends ReportOptions {
  kind: Kind;
  /** `--from`: a store's Prometheus query API, the team's report instead of this machine's. */
  from?: string;
  /** `--by`: with --from, the label a period is split by (user, instance, harness, project, model, …). */
  by?: string;
  /** ccusage's `-i` on daily: its JSON's `projects` (each project's days), and the table's rows under each project. */
  instances?: true;
  /** `--color` (true) or `--no-color` (false): colour in a table whatever stdout is; undefined: on a terminal without NO_COLOR. */
  colour?: boolean;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** `30m`, `12h`, `7d` in seconds; undefined when it is not a duration. */
function duration(text: string | undefined): number | undefined {
  const m = /^(\d+)([smhdw])$/.exec(text ?? '');
  return m ? Number(m[1]) * UNIT_SECONDS[m[2]!]! : undefined;
}

const SINCE_FORMS = 'a duration such as 30m, 12h or 7d, or a day as YYYY-MM-DD or YYYYMMDD';
const got = (value: string) => (value === '' ? 'nothing' : `"${value}"`);

/**
 * `--since` of `sessions` and `top`, a duration or a day, as the activity window in seconds: from
 * the day's start (local time) to `now`.
 */
function sinceSeconds(value: string, now: number): number {
  const seconds = duration(value);
  if (seconds !== undefined) return seconds;
  const day = parseDay(value);
  if (day === undefined) throw new ConfigError(`--since: expected ${SINCE_FORMS}, got ${got(value)}`);
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const start = new Date(y, m - 1, d).getTime();
  if (start > now) throw new ConfigError(`--since ${day} is in the future`);
  return Math.ceil((now - start) / 1000);
}

/** `report --since`, a day or a duration, as the first day (the day the duration reaches back to in `timeZone`). */
function sinceDay(value: string, timeZone: string | undefined, now: number): string {
  const day = parseDay(value);
  if (day !== undefined) return day;
  const seconds = duration(value);
  if (seconds === undefined) throw new ConfigError(`--since: expected ${SINCE_FORMS}, got ${got(value)}`);
  return dayOf(now - seconds * 1000, timeZone);
}

// Flags that are not configuration keys: those that take a value, and those that do not.
const VALUED = ['--config', '--url', '--since', '--format', ...REPORT_FLAGS];
const SWITCHES = ['--help', '-h', '--version', '-v', '--json', '--reset-state', ...REPORT_SWITCHES];

/**
 * Optimal string alignment distance: edits (insert, delete, replace, swap two neighbours) from
 * `a` to `b`.
 */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * ` (did you mean X?)` when `word` is the start of one candidate alone (`--collector.claude`, of
 * `--collector.claude-code`, not the two edits away `--collector.cline`), else when one candidate
 * is a few edits from it (one per three letters); else ''.
 */
function didYouMean(word: string, candidates: Iterable<string>): string {
  // A short flag is one letter: any other is an edit away, so only another case is a likely slip.
  if (/^-[^-]$/.test(word)) {
    const other = [...candidates].find((c) => c !== word && c.toLowerCase() === word.toLowerCase());
    return other ? ` (did you mean ${other}?)` : '';
  }
  const longer = [...candidates].filter((c) => c.startsWith(word) && c !== word);
  if (longer.length === 1) return ` (did you mean ${longer[0]}?)`;
  let best: { name: string; edits: number } | undefined;
  for (const name of candidates) {
    const edits = distance(word, name);
    if (!best || edits < best.edits) best = { name, edits };
  }
  return best && best.edits <= Math.max(1, Math.floor(word.length / 3)) ? ` (did you mean ${best.name}?)` : '';
}

export function parseArgs(argv: string[], now = Date.now()): Parsed {
  const parsed: Parsed = {
    command: 'serve',
    help: false,
    version: false,
    json: false,
    resetState: false,
    words: [],
    rest: [],
  };
  const flags = configFlags();
  const words: string[] = [];
  // The flags that are not configuration keys, checked against the command once it is known.
  const own = new Set<string>();
  // Read once the command is known: --since is a day to `report`, a duration to `sessions`.
  let since: string | undefined;
  const reportFlags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) {
      words.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = SHORT_FLAGS[eq === -1 ? a : a.slice(0, eq)] ?? (eq === -1 ? a : a.slice(0, eq));
    if (SWITCHES.includes(name) || VALUED.includes(name)) own.add(name);
    if (SWITCHES.includes(name)) {
      if (eq !== -1) throw new ConfigError(`${name} takes no value`);
      if (name === '--help' || name === '-h') parsed.help = true;
      else if (name === '--version' || name === '-v') parsed.version = true;
      else if (name === '--json') parsed.json = true;
      else if (name === '--reset-state') parsed.resetState = true;
      else {
        // The last of --color and --no-color wins.
        if (name === '--color' || name === '--no-color')
          reportFlags.delete(name === '--color' ? '--no-color' : '--color');
        reportFlags.set(name, '');
      }
    } else if (name === '--breakdown' && eq === -1 && switchHere(argv[i + 1])) {
      // ccusage's -b is a switch: by model.
      reportFlags.set(name, 'model');
    } else if (OPTIONAL_VALUE[name] !== undefined && eq === -1 && (argv[i + 1] ?? '-').startsWith('-')) {
      // ccusage's -w, -m and -o alone (nothing or a flag after them): its default.
      if (name === '--start-of-week') parsed.rest.push(name, OPTIONAL_VALUE[name]);
      else reportFlags.set(name, OPTIONAL_VALUE[name]);
    } else if (VALUED.includes(name)) {
      // A value never starts with `--`: `--config --json` lacks one rather than reading a file named --json.
      const value = eq !== -1 ? a.slice(eq + 1) : argv[i + 1]?.startsWith('--') ? undefined : argv[++i];
      if (name === '--since') since = value ?? '';
      else if (value === undefined) throw new ConfigError(`${name}: a value is missing`);
      else if (REPORT_FLAGS.includes(name)) reportFlags.set(name, value);
      else if (name === '--config') parsed.configFile = value;
      else if (name === '--format') parsed.format = value;
      else parsed.url = value;
    } else {
      const leaf = flags.get(name.slice(2));
      if (CCUSAGE_REFUSED[name] !== undefined) throw new ConfigError(`${name}: ${CCUSAGE_REFUSED[name]}`);
      if (!name.startsWith('--') || !leaf) {
        throw new ConfigError(
          `unknown flag ${name}${didYouMean(name, [...VALUED, ...SWITCHES, ...Object.keys(SHORT_FLAGS), ...[...flags.keys()].map((f) => `--${f}`)])}`,
        );
      }
      // A word after -w that is no day is refused here, by the flag's name: the report's kind
      // (`-w weekly`) is not taken for a day, nor the flag for a bare -w before a command.
      if (name === '--start-of-week') weekday(eq === -1 ? argv[i + 1]! : a.slice(eq + 1));
      parsed.rest.push(eq === -1 ? name : `${name}${a.slice(eq)}`);
      // The word after a flag is its value: for a true/false flag only true or false (`--watch once`
      // is `--watch` and the command once); for any other, unless it is the next flag (loadConfig
      // then says the value is missing).
      const next = argv[i + 1];
      if (
        eq === -1 &&
        next !== undefined &&
        (leaf.format === 'boolean' ? next === 'true' || next === 'false' : !next.startsWith('--'))
      ) {
        parsed.rest.push(next);
        i++;
      }
    }
  }
  const [command, ...more] = words;
  if (command !== undefined) parsed.command = known(command);
  if (parsed.command === 'help' && more.length > 0) parsed.topic = known(more.shift()!);
  // Help and the version ignore the rest; a hook never fails its harness (runHook reads its own words).
  const takes =
    parsed.help || parsed.version || ['help', 'hook'].includes(parsed.command)
      ? [...own]
      : COMMANDS[parsed.command].flags;
  for (const flag of own) {
    if (['--config', '--help', '-h', '--version', '-v'].includes(flag) || takes.includes(flag)) continue;
    const by = Object.entries(COMMANDS)
      .filter(([, c]) => c.flags.includes(flag))
      .map(([name]) => name);
    throw new ConfigError(
      `${flag}: only the ${by.length === 1 ? `${by[0]} command takes` : `${by.slice(0, -1).join(', ')} and ${by.at(-1)} commands take`} it`,
    );
  }
  if (parsed.command === 'hook' || parsed.command === 'hooks') parsed.words = more.splice(0);
  if (parsed.url !== undefined && since !== undefined)
    throw new ConfigError(
      "--since: top --url shows the running exporter's activity window (its sessions.activeWindowSeconds)",
    );
  if (parsed.command === 'report') parsed.report = reportArgs(more, since, reportFlags, now);
  else if (since !== undefined) parsed.since = sinceSeconds(since, now);
  // ccusage's "disable parallel JSONL loading": the report's own read on the main thread alone.
  if (reportFlags.has('--single-thread')) parsed.rest.push('--read-threads', '0');
  if (more.length > 0)
    throw new ConfigError(
      `unexpected argument "${more[0]}": ${parsed.command} takes no more words (see coding-agent-exporter help ${parsed.command})`,
    );
  return parsed;
}

/** ccusage's flags whose value may be left out (`-w`, `-m`, `-o`), each with what it means then: ccusage's default. */
const OPTIONAL_VALUE: Readonly<Record<string, string>> = {
  '--start-of-week': WEEKDAYS[0],
  '--mode': 'auto',
  '--order': 'asc',
};

function weekday(value: string): void {
  if (!(WEEKDAYS as readonly string[]).includes(value))
    throw new ConfigError(
      `--start-of-week: expected ${WEEKDAYS.slice(0, -1).join(', ')} or ${WEEKDAYS.at(-1)}, got ${got(value)} (-w alone is ${WEEKDAYS[0]})`,
    );
}

/** Whether `--breakdown` followed by `next` is ccusage's switch: nothing after it, a flag, or a word of the command. */
const switchHere = (next: string | undefined) =>
  next === undefined ||
  next.startsWith('-') ||
  (KINDS as readonly string[]).includes(next) ||
  agentOf(next) !== undefined;

/** ccusage's per-agent form (`ccusage claude daily`): its agent names, and every harness id, as `--harness`. */
const AGENTS: Readonly<Record<string, string>> = {
  claude: 'claude-code',
  gemini: 'gemini-cli',
  qwen: 'qwen-code',
  copilot: 'copilot-cli',
};
const agentOf = (word: string | undefined) =>
  word === undefined
    ? undefined
    : (AGENTS[word] ?? ((HARNESSES as readonly string[]).includes(word) ? word : undefined));

/** `report [AGENT] [KIND]` and its flags (taken from `words`), each checked: a bad one is named with what it takes. */
function reportArgs(words: string[], since: string | undefined, flags: Map<string, string>, now: number): ReportArgs {
  const agent = agentOf(words[0]);
  if (agent !== undefined) words.shift();
  const kind = words.shift();
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind)) {
    throw new ConfigError(
      `report: unknown report "${kind}"${didYouMean(kind, KINDS)}; the reports are ${KINDS.join(', ')}, after a harness or one of ccusage's agents (claude, codex, …) or not`,
    );
  }
  const r: ReportArgs = { kind: (kind ?? 'daily') as Kind };
  if (agent !== undefined) r.harness = agent;
  const day = (flag: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const d = parseDay(value);
    if (d === undefined) throw new ConfigError(`${flag}: expected a date as YYYY-MM-DD or YYYYMMDD, got ${got(value)}`);
    return d;
  };
  r.until = day('--until', flags.get('--until'));
  const harness = flags.get('--harness');
  if (harness !== undefined && agent !== undefined && harness !== agent)
    throw new ConfigError(`--harness ${harness}: the report is of ${agent} already`);
  if (harness !== undefined) {
    if (!(HARNESSES as readonly string[]).includes(harness))
      throw new ConfigError(
        `--harness: unknown harness "${harness}"${didYouMean(harness, HARNESSES)}; the harnesses are ${HARNESSES.join(', ')}`,
      );
    r.harness = harness;
  }
  if (flags.has('--project')) r.project = flags.get('--project');
  if (flags.has('--model')) r.model = flags.get('--model');
  const breakdown = flags.get('--breakdown');
  if (breakdown !== undefined) {
    if (!(BREAKDOWNS as readonly string[]).includes(breakdown))
      throw new ConfigError(`--breakdown: expected one of ${BREAKDOWNS.join(', ')}, got "${breakdown}"`);
    r.breakdown = breakdown as Breakdown;
  }
  const zone = flags.get('--timezone');
  // ccusage's `local`: the system's zone, as without the flag.
  if (zone !== undefined && zone !== 'local') {
    if (!knownTimeZone(zone))
      throw new ConfigError(
        `--timezone: unknown time zone "${zone}" (an IANA name such as UTC, Europe/Berlin or America/New_York)`,
      );
    r.timeZone = zone;
  }
  const order = flags.get('--order');
  if (order !== undefined) {
    if (order !== 'asc' && order !== 'desc') throw new ConfigError(`--order: expected asc or desc, got ${got(order)}`);
    r.order = order;
  }
  if (flags.has('--instances')) {
    // ccusage's split by project (its "instances"): on daily, the only report ccusage takes -i for,
    // its shape (each project's days); on weekly and monthly, rows per project under each period,
    // as --breakdown project.
    if (r.kind === 'session' || r.kind === 'blocks')
      throw new ConfigError(
        `--instances: only for daily, weekly and monthly, not ${r.kind} (ccusage's session -i is --id, which report has not)`,
      );
    if (r.breakdown !== undefined && r.breakdown !== 'project')
      throw new ConfigError(
        `--instances: not with --breakdown ${r.breakdown} (a report splits one way; -i is --breakdown project)`,
      );
    if (r.kind === 'daily') {
      r.instances = true;
      delete r.breakdown;
    } else r.breakdown = 'project';
  }
  const mode = flags.get('--mode');
  if (mode !== undefined) modeOf(mode, r.harness);
  if (flags.has('--color')) r.colour = true;
  if (flags.has('--no-color')) r.colour = false;
  if (flags.has('--compact')) r.compact = true;
  const last = flags.get('--last');
  if (last !== undefined) {
    if (!/^[1-9]\d{0,4}$/.test(last))
      throw new ConfigError(`--last: expected a number of periods from 1, got ${got(last)}`);
    if (since !== undefined || r.until !== undefined)
      throw new ConfigError('--last: not with --since or --until (it sets them)');
    if (r.kind === 'session' || r.kind === 'blocks')
      throw new ConfigError(`--last: only for daily, weekly and monthly, not ${r.kind}`);
    r.last = Number(last);
  }
  const from = flags.get('--from');
  const by = flags.get('--by');
  if (from !== undefined) {
    if (r.kind === 'session' || r.kind === 'blocks')
      throw new ConfigError(
        `--from: only for daily, weekly and monthly, not ${r.kind} (the store has no sessions or requests, only the counters)`,
      );
    try {
      httpClient(from);
    } catch (e) {
      throw new ConfigError(
        `--from: expected a Prometheus query API's http:// or https:// URL, got ${got(from)} (${(e as Error).message})`,
      );
    }
    r.from = from;
  }
  if (by !== undefined) {
    if (from === undefined)
      throw new ConfigError("--by: only with --from (this machine's report splits with --breakdown)");
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(by))
      throw new ConfigError(
        `--by: expected a label name such as user, instance, harness, project or model, got ${got(by)}`,
      );
    if (r.instances && by !== 'project')
      throw new ConfigError(`--by ${by}: not with -i (a report splits one way; -i is by project)`);
    r.by = by;
  }
  // A duration reaches back from today in the report's time zone.
  if (since !== undefined) r.since = sinceDay(since, r.timeZone, now);
  if (r.since && r.until && r.since > r.until) throw new ConfigError(`--since ${r.since} is after --until ${r.until}`);
  return r;
}

/** Harnesses whose readers take no cost from the files: every cost of theirs is calculated from tokens. */
const CALCULATED_ONLY = ['claude-code', 'codex'];

/**
 * ccusage's `--mode`, checked: `auto` (a cost the file records, else the tokens' list price) is how
 * every cost here is made; `calculate` is the same where no cost is recorded; `display` (recorded costs alone) is not offered.
 */
function modeOf(mode: string, harness: string | undefined): void {
  if (mode === 'auto') return;
  if (mode === 'calculate') {
    if (harness !== undefined && CALCULATED_ONLY.includes(harness)) return;
    throw new ConfigError(
      `--mode calculate: only for ${CALCULATED_ONLY.join(' and ')}, whose costs are always calculated from tokens; ` +
        "other harnesses' costs are the one they record where they record one (Hermes, pi, OpenHands, …), as -m auto",
    );
  }
  if (mode === 'display')
    throw new ConfigError(
      "--mode display: not offered: a cost is the harness's recorded one where it records one, else the list price of its tokens (-m auto); never $0 for tokens a file gives no cost",
    );
  throw new ConfigError(`--mode: expected auto, calculate or display, got ${got(mode)}`);
}

function known(command: string): CommandName {
  if (isCommand(command)) return command;
  throw new ConfigError(
    `unknown command "${command}"${didYouMean(command, Object.keys(COMMANDS))}; the commands are ${Object.keys(COMMANDS).join(', ')}`,
  );
}
