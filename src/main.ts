#!/usr/bin/env node
// Command-line entry: `serve` (the default), `once`, `sessions`, `demo`, `top`. A command's own
// modules (the demo, the terminal view) are imported when it runs: each module loaded is start-up
// time for every command.

import { Agent } from './agent.js';
import { ConfigError, loadConfig, type Config } from './config/load.js';
import { createLogger, type Logger } from './log.js';
import { shownUrl } from './metrics/otlp.js';
import { exposition } from './metrics/prometheus.js';
import { formatSessions, sessionsJson } from './view/records.js';
import { COMMANDS, help } from './cli/help.js';
import { StateError } from './state/db.js';
import { VERSION } from './version.js';

interface Parsed {
  command: string;
  help: boolean;
  json: boolean;
  resetState: boolean;
  configFile?: string;
  /** `sessions --since 7d`: the activity window, in seconds. */
  since?: number;
  /** `top --url`: a running exporter to show. */
  url?: string;
  rest: string[];
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** `30m`, `12h`, `7d` in seconds; undefined when it is not a duration. */
function duration(text: string | undefined): number | undefined {
  const m = /^(\d+)([smhdw])$/.exec(text ?? '');
  return m ? Number(m[1]) * UNIT_SECONDS[m[2]!]! : undefined;
}

function parseArgs(argv: string[]): Parsed {
  const parsed: Parsed = { command: 'serve', help: false, json: false, resetState: false, rest: [] };
  let i = 0;
  if (argv[0] && !argv[0].startsWith('-')) {
    parsed.command = argv[0];
    i = 1;
  }
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') parsed.help = true;
    else if (a === '--json') parsed.json = true;
    else if (a === '--reset-state') parsed.resetState = true;
    else if (a === '--config') parsed.configFile = argv[++i];
    else if (a.startsWith('--config=')) parsed.configFile = a.slice('--config='.length);
    else if (a === '--url') parsed.url = argv[++i];
    else if (a.startsWith('--url=')) parsed.url = a.slice('--url='.length);
    else if (a === '--since' || a.startsWith('--since=')) {
      const text = a === '--since' ? argv[++i] : a.slice('--since='.length);
      parsed.since = duration(text);
      if (parsed.since === undefined) throw new ConfigError(`--since: expected a duration such as 30m, 12h or 7d, got ${text === undefined ? 'nothing' : `"${text}"`}`);
    } else parsed.rest.push(a);
  }
  return parsed;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  let args: Parsed;
  try {
    args = parseArgs(argv);
  } catch (e) {
    return refused(e);
  }
  if (args.command === 'help') {
    const topic = args.rest[0] ?? 'serve';
    if (!COMMANDS[topic]) return unknownCommand(topic);
    process.stdout.write(`${help(topic)}\n`);
    return 0;
  }
  if (!COMMANDS[args.command]) return unknownCommand(args.command);
  if (args.help) {
    process.stdout.write(`${help(args.command)}\n`);
    return 0;
  }
  if (args.since !== undefined && args.command !== 'sessions') return refused(new ConfigError('--since: only the sessions command takes it'));
  if (args.url !== undefined && args.command !== 'top') return refused(new ConfigError('--url: only the top command takes it'));
  if (args.command === 'top' && args.url !== undefined) {
    try {
      const { remoteSource, runTop } = await import('./cli/top.js');
      return await runTop(remoteSource(args.url));
    } catch (e) {
      process.stderr.write(`coding-agent-exporter: --url ${shownUrl(args.url)}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  // While `top` holds the terminal, log lines wait and are written when it quits.
  const held: string[] = [];
  const holdLog = args.command === 'top' && process.stderr.isTTY;
  let setup: { config: Config; log: Logger; agent?: Agent };
  try {
    const config = loadConfig(args.rest, process.env, args.configFile);
    if (args.since !== undefined) config.sessions.activeWindowSeconds = args.since;
    const log = holdLog ? createLogger(config.logLevel, (l) => held.push(l)) : createLogger(config.logLevel);
    const agent = args.command === 'demo' ? undefined
      : new Agent(config, log, { resetState: args.resetState, privateState: args.command === 'top' });
    setup = { config, log, agent };
  } catch (e) {
    return refused(e);
  }
  const { config, log, agent } = setup;

  if (!agent) {
    let demo;
    try {
      demo = await (await import('./cli/demo.js')).startDemo(config, log);
    } catch (e) {
      return refused(e);
    }
    await waitForSignal();
    await demo.stop();
    return 0;
  }
  if (args.command === 'top') {
    await agent.follow();
    const { localSource, runTop } = await import('./cli/top.js');
    const code = await runTop(localSource(agent));
    await agent.stop();
    process.stderr.write(held.slice(-100).join(''));
    return code;
  }
  if (args.command === 'once' || args.command === 'sessions') {
    await agent.scanAll();
    if (args.command === 'once') process.stdout.write(exposition(agent.families()));
    else {
      const unowned = agent.store.processes.unowned;
      process.stdout.write(args.json ? sessionsJson(agent.sessions(), config.project.mode, unowned) : formatSessions(agent.sessions(), Date.now(), config.sessions.activeWindowSeconds, unowned));
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

function unknownCommand(command: string): number {
  process.stderr.write(`unknown command "${command}"\n\n${help()}\n`);
  return 2;
}

/**
 * Exit code 2 with the message of a configuration error (which names the key) or of a state
 * database that cannot be used (which names the file); anything else is a bug.
 */
function refused(e: unknown): number {
  if (!(e instanceof ConfigError || e instanceof StateError)) throw e;
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
  // Output to a pipe is written asynchronously: the process exits once all of it is out (an
  // exposition larger than the pipe's buffer was cut off when `once` was piped to a slow reader).
  (code) => process.stdout.write('', () => process.exit(code)),
  (e: unknown) => {
    process.stderr.write(`coding-agent-exporter: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
