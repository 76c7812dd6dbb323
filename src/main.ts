#!/usr/bin/env node
// Command-line entry: `serve` (the default), `once`, `sessions`, `demo`.

import { Agent } from './agent.js';
import { ConfigError, loadConfig, type Config } from './config/load.js';
import { createLogger, type Logger } from './log.js';
import { exposition } from './metrics/prometheus.js';
import { formatSessions, sessionsJson } from './cli/sessions.js';
import { startDemo } from './cli/demo.js';
import { VERSION } from './version.js';

const COMMON = `Options:
  --config FILE              JSON configuration file (see config.example.json)
  --state-dir DIR            state database folder (default $XDG_STATE_HOME/coding-agent-exporter)
  --collector.<harness> BOOL enable or disable a harness (claude-code, codex)
  --log-level LEVEL          debug, info, warn, error
  --help                     this help
Every configuration key also has an environment variable (CODING_AGENT_EXPORTER_…); see the README.`;

const HELP: Record<string, string> = {
  serve: `Usage: coding-agent-exporter [serve] [options]

Reads the session files of AI coding-agent harnesses and serves their metrics on
http://127.0.0.1:10477/metrics (also /healthz and a landing page at /), pushing them over OTLP
when otlp.endpoint is set.

  --listen-address HOST:PORT  where to listen (default 127.0.0.1:10477)
  --otlp-endpoint URL         push metrics over OTLP/HTTP to this receiver
${COMMON}`,
  once: `Usage: coding-agent-exporter once [options]

Reads the session files once and prints the metrics as Prometheus text, then exits (for cron and
node_exporter's textfile collector). Uses the state database, so counters stay monotonic.

${COMMON}`,
  sessions: `Usage: coding-agent-exporter sessions [--json] [options]

Reads the session files and prints the sessions active in the activity window: harness, project,
status and why, model, tokens, cost, context use and last activity.

  --json                     print JSON instead of a table
${COMMON}`,
  demo: `Usage: coding-agent-exporter demo [options]

Serves metrics from bundled sample sessions replayed into a temporary home: sessions that keep
working, one that waits on the user and one that stalls. No agent needs to be installed.

  --listen-address HOST:PORT  where to listen (default 127.0.0.1:10477)
${COMMON}`,
};

interface Parsed {
  command: string;
  help: boolean;
  json: boolean;
  configFile?: string;
  rest: string[];
}

function parseArgs(argv: string[]): Parsed {
  const parsed: Parsed = { command: 'serve', help: false, json: false, rest: [] };
  let i = 0;
  if (argv[0] && !argv[0].startsWith('-')) {
    parsed.command = argv[0];
    i = 1;
  }
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') parsed.help = true;
    else if (a === '--json') parsed.json = true;
    else if (a === '--config') parsed.configFile = argv[++i];
    else if (a.startsWith('--config=')) parsed.configFile = a.slice('--config='.length);
    else parsed.rest.push(a);
  }
  return parsed;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const args = parseArgs(argv);
  const help = HELP[args.command];
  if (!help) {
    process.stderr.write(`unknown command "${args.command}"\n\n${HELP.serve}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  let setup: { config: Config; log: Logger; agent?: Agent };
  try {
    const config = loadConfig(args.rest, process.env, args.configFile);
    const log = createLogger(config.logLevel);
    setup = { config, log, agent: args.command === 'demo' ? undefined : new Agent(config, log) };
  } catch (e) {
    return refused(e);
  }
  const { config, log, agent } = setup;

  if (!agent) {
    const demo = await startDemo(config, log);
    await waitForSignal();
    await demo.stop();
    return 0;
  }
  if (args.command === 'once' || args.command === 'sessions') {
    await agent.scanAll();
    if (args.command === 'once') process.stdout.write(exposition(agent.families(), agent.startedAt));
    else {
      const unowned = agent.store.processes.unowned;
      process.stdout.write(args.json ? sessionsJson(agent.sessions(), unowned) : formatSessions(agent.sessions(), Date.now(), unowned));
    }
    await agent.stop();
    return 0;
  }
  try {
    await agent.start();
  } catch (e) {
    await agent.stop();
    return refused(e);
  }
  await waitForSignal();
  log.info('stopping');
  await agent.stop();
  return 0;
}

/** Exit code 2 with the message of a configuration error (which names the key); anything else is a bug. */
function refused(e: unknown): number {
  if (!(e instanceof ConfigError)) throw e;
  process.stderr.write(`coding-agent-exporter: ${e.message}\n`);
  return 2;
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`coding-agent-exporter: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
