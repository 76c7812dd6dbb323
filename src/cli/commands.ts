// The commands, their usage and what each does: what the command line accepts (args.ts) and what
// help prints (help.ts); how each runs is run.ts. Apart from all three, so that parsing a command
// line loads no reader.

// The flags of `report` alone, besides --json and --since.
export const REPORT_FLAGS = [
  '--until',
  '--harness',
  '--project',
  '--model',
  '--breakdown',
  '--timezone',
  '--order',
  '--last',
  '--from',
  '--by',
  '--mode',
];
/**
 * ccusage's switches `report` takes: `--offline` means nothing here (no price is ever fetched), `--compact` the
 * narrow table, `--instances` the split by project, `--color`/`--no-color` force colour, `--single-thread` reads on
 * the main thread alone.
 */
export const REPORT_SWITCHES = ['--offline', '--compact', '--instances', '--color', '--no-color', '--single-thread'];
/** ccusage's short flags, for `report` as for ccusage (`-z` for the others' `--timezone` too). */
export const SHORT_FLAGS: Readonly<Record<string, string>> = {
  '-s': '--since',
  '-u': '--until',
  '-j': '--json',
  '-z': '--timezone',
  '-o': '--order',
  '-O': '--offline',
  '-b': '--breakdown',
  '-w': '--start-of-week',
  '-p': '--project',
  '-i': '--instances',
  '-m': '--mode',
  '-d': '--debug',
};

/** ccusage's flags whose meaning `report` has not, each with why (or what to use instead). */
export const CCUSAGE_REFUSED: Readonly<Record<string, string>> = {
  '--debug':
    "ccusage's check of the costs a file records against the calculated ones; report has none (a cost is the harness's recorded one where it records one, else the list price of its tokens)",
  '--debug-samples': "the samples of ccusage's --debug, which report has not",
  '--no-offline':
    'report never fetches prices: they are built in (pricing.overridesFile in the --config file adds or changes them)',
  '--project-aliases':
    'set project.aliases in the --config file ({"<name or path>": "<label>"}): projects are named as they are counted, so an alias applies to sessions first seen after it',
};

/** A command: its usage and what help says of it. */
export interface Command {
  usage: string;
  summary: string;
  about: string;
  /**
   * The flags it takes besides the configuration keys, --config, --help and --version (every
   * command takes those); any other is refused, not ignored.
   */
  flags: readonly string[];
}

const TABLE = {
  serve: {
    flags: ['--reset-state'],
    usage: '[serve] [options]',
    summary: 'serve /metrics (the default), push OTLP if otlp.endpoint is set',
    about:
      'Reads the session files of AI coding-agent harnesses and serves their metrics on\n' +
      'http://127.0.0.1:10477/metrics (health: /-/healthy, /-/ready; the live page at /), pushing them\n' +
      'over OTLP when otlp.endpoint is set. The default command.',
  },
  once: {
    flags: ['--reset-state'],
    usage: 'once [options]',
    summary: 'read once and print the metrics as Prometheus text',
    about:
      'Reads the session files once and prints the metrics as Prometheus text, then exits (for cron and\n' +
      "node_exporter's textfile collector). Uses the state database, so counters stay monotonic.",
  },
  sessions: {
    flags: ['--json', '--since', '--reset-state'],
    usage: 'sessions [--json] [--since DURATION|DAY] [options]',
    summary: 'print the live sessions: status and why, model, tokens, cost, context',
    about:
      'Reads the session files and prints the sessions active in the activity window (24 h unless\n' +
      '--since says otherwise): harness, project, status and why, model, tokens (DRIFT when none were counted\n' +
      'for work done), cost, context use, the live process (how it was joined, CPU, memory) and last activity;\n' +
      'then the agent processes no session file is joined to.',
  },
  top: {
    flags: ['--url', '--since'],
    usage: 'top [--url URL] [--since DURATION|DAY] [options]',
    summary: 'a live view of every session in the terminal',
    about:
      'A live view of every session in the terminal, redrawn every second: spend today and this week,\n' +
      'tokens per minute, sessions by status, then one row per session (status and why, model, context,\n' +
      "cost, running tool and for how long, the live process's CPU, memory and attribution, last\n" +
      'activity). Keys: s sort (status, cost, activity), / filter by harness or project, i show or hide\n' +
      'idle sessions, q or Ctrl-C quit. Reads the session files itself, starting\n' +
      'from the state database without ever writing it (safe beside a running exporter), or shows a\n' +
      "running exporter's sessions with --url.",
  },
  demo: {
    flags: [],
    usage: 'demo [options]',
    summary: 'serve metrics from bundled sample sessions, no agent needed',
    about:
      'Serves metrics from bundled sample sessions replayed into a temporary home: sessions that keep\n' +
      'working, one that waits on the user and one that stalls, each with a small stand-in agent process\n' +
      "(a shell loop under the agent's name) while processes.enabled is on. No agent needs to be installed.",
  },
  report: {
    flags: ['--json', '--since', ...REPORT_FLAGS, ...REPORT_SWITCHES],
    usage:
      'report [AGENT] [daily|weekly|monthly|session|blocks] [-s DAY|DURATION] [-u DAY] [-j] [-b] [-z ZONE] [-o [asc|desc]] [-w [DAY]] [-p PROJECT] [-i] [--last N] [--from URL [--by LABEL]] [options]',
    summary: 'usage and spend per day, week, month, session or 5-hour block, from the state',
    about:
      'Prints what was used per day (the default), week (from Sunday, or the day -w names: monday … saturday),\n' +
      'month, session or 5-hour block: tokens by type, cost and the models, with a totals row, or as JSON with\n' +
      "ccusage's field names (--json). Reads the ledger a running (or earlier) exporter keeps in the state\n" +
      'database, read-only; where there is none yet, reads the session files itself first, writing nothing, on\n' +
      'every core (--single-thread: on the main thread, as --read-threads 0). The ledger keeps ledger.days days.\n' +
      "ccusage's command lines run as they are: `report claude daily`, -s, -u, -j, -b (by model), -z (local too),\n" +
      '-o asc|desc, -w DAY, --last N, -p PROJECT, -O (nothing is fetched), --compact, -i (by project: on daily\n' +
      "as ccusage's, each project's days under its name, JSON {projects: {NAME: [days]}, totals}; on weekly and\n" +
      'monthly as --breakdown project), --color/--no-color (whatever stdout is; else colour on a terminal\n' +
      "without NO_COLOR), -m auto (how every cost is made: the harness's recorded cost where it records one,\n" +
      'else the list price), -m calculate for claude and codex (which record none); -w, -m and -o alone are\n' +
      'sunday, auto and asc, as in ccusage (a word after them that is none of their values is refused).\n' +
      'Refused, with why: -m display, -d/--debug, --debug-samples, --no-offline, --project-aliases\n' +
      "(project.aliases). blocks lists Claude Code's unless --harness. With --from URL (a Prometheus query\n" +
      "API: Prometheus, VictoriaMetrics; user:password@ for basic auth), daily, weekly and monthly are the team's,\n" +
      "from the counters every exporter's samples put in the store\n" +
      '(the last 30 days unless -s or --last), split with --by user|instance|harness|project|model (any label):\n' +
      'tokens and cost only (no requests, sessions or turns). How exact a day is: docs/reports.md.',
  },
  statusline: {
    flags: ['--format'],
    usage: 'statusline [--format TEMPLATE] [options]',
    summary: "print Claude Code's status line and record its usage limits for the exporter",
    about:
      'For Claude Code\'s statusLine setting ({"statusLine": {"type": "command", "command":\n' +
      '"coding-agent-exporter statusline"}}; from a clone, the command `hooks print claude-code` prints):\n' +
      'reads the JSON Claude Code passes on stdin, to its end (at most 4 MB; 10 s where stdin is never closed),\n' +
      "and prints one line: the model, context used, the session's and today's spend, the 5-hour and weekly\n" +
      'windows used and when they reset (else the 5-hour block running now). Records the windows and the context\n' +
      'use in the state folder, which the exporter exports (coding_agent_usage_limit_*{harness="claude-code"}).\n' +
      'Reads the state database read-only, reads no session file, and always exits 0. NO_COLOR turns colours off.',
  },
  hook: {
    flags: [],
    usage: 'hook HARNESS [EVENT] [options]',
    summary: "what a harness's hook runs: records the event for exact statuses",
    about:
      "Run by a harness on its lifecycle events (set up with `hooks print`): reads the event's JSON on stdin,\n" +
      "appends what a status needs (event, session, tool name, time; never a prompt or a tool's input) to\n" +
      'hooks.jsonl in the state folder, where the running exporter reads it, and prints {}. Always exits 0.',
  },
  hooks: {
    flags: [],
    usage: 'hooks print HARNESS [options]',
    summary: "print the hook settings to paste into a harness's settings file",
    about:
      'Prints the settings that make HARNESS (claude-code, gemini-cli, qwen-code, copilot-cli, codex) run\n' +
      '`coding-agent-exporter hook` on the events a status needs, and the file they go into (for claude-code,\n' +
      'the statusLine setting too). The commands are those that run here: the name where PATH finds this\n' +
      "same script, else node and the script's absolute path (a clone); a --state-dir is made absolute. The\n" +
      "exporter never writes a harness's settings itself.",
  },
  doctor: {
    flags: ['--json'],
    usage: 'doctor [--json] [options]',
    summary: 'what to paste into a bug report: where each harness was looked for, what was found, what runs',
    about:
      'Prints, per harness, the roots it looks in (paths on this machine: check them before you paste), the\n' +
      'session files the listing finds under each and what could not be listed and why (error codes; no path\n' +
      'below a root); the Node.js and SQLite that run; whether the process table is read, and how many agent\n' +
      'processes run now; whether hooks report (the spool, and when it was last written). Lists folders only,\n' +
      'reads no session file, and writes nothing. --json for the same as JSON.',
  },
  help: {
    flags: [],
    usage: 'help [command]',
    summary: 'this help, or the help of one command',
    about: 'Prints this help, or the help of one command.',
  },
} satisfies Record<string, Command>;

export type CommandName = keyof typeof TABLE;

/** The commands, in the order help lists them; each runs by its runner in run.ts (RUNNERS). */
export const COMMANDS: Readonly<Record<CommandName, Command>> = TABLE;

export const isCommand = (word: string): word is CommandName => Object.hasOwn(COMMANDS, word);
