#!/usr/bin/env node
// Command-line entry: `serve` (the default), `once`, `sessions`, `demo`, `top`, `hooks` and `hook`.
// A command's own modules (the demo, the terminal view) are imported when it runs: each module
// loaded is start-up time for every command. `hook` runs on every event of an agent: only its own
// modules are loaded statically, the rest once another command is asked for.

import type { Agent } from './agent.js';
import type { Config } from './config/load.js';
import { runHook } from './hooks/command.js';
import { HOOK_HARNESSES, type HookHarness } from './hooks/spool.js';
import { schema } from './config/schema.js';
import type { Logger } from './log.js';
import type { Parsed } from './cli/args.js';

/** The modules every command but `hook` needs, loaded once `hook` is ruled out. */
async function modules() {
  const [agent, config, log, otlp, prometheus, records, args, help, settings, db, version] = await Promise.all([
    import('./agent.js'), import('./config/load.js'), import('./log.js'), import('./metrics/otlp.js'), import('./metrics/prometheus.js'),
    import('./view/records.js'), import('./cli/args.js'), import('./cli/help.js'), import('./hooks/settings.js'), import('./state/db.js'),
    import('./version.js'),
  ]);
  return { ...agent, ...config, ...log, ...otlp, ...prometheus, ...records, ...args, ...help, ...settings, ...db, ...version };
}

async function main(argv: string[]): Promise<number> {
  const { Agent, ConfigError, loadConfig, createLogger, shownUrl, exposition, formatSessions, sessionsJson, parseArgs, help, hookSettings,
    StateError, VERSION } = await modules();
  /**
   * Exit code 2 with the message of a configuration error (which names the key) or of a state
   * database that cannot be used (which names the file); anything else is a bug.
   */
  const refused = (e: unknown): number => {
    if (!(e instanceof ConfigError || e instanceof StateError)) throw e;
    process.stderr.write(`coding-agent-exporter: ${e.message}\n`);
    return 2;
  };
  let args: Parsed;
  try {
    args = parseArgs(argv);
  } catch (e) {
    return refused(e);
  }
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (args.command === 'help') {
    process.stdout.write(`${help(args.topic)}\n`);
    return 0;
  }
  if (args.help) {
    process.stdout.write(`${help(args.command)}\n`);
    return 0;
  }
  // `hook` after a flag (`--state-dir x hook claude-code`): the same hook, after a slower start.
  if (args.command === 'hook') return runHook(argv.filter((w, i) => i !== argv.indexOf('hook')), process.env);
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
    const agent = args.command === 'demo' || args.command === 'hooks' ? undefined
      : new Agent(config, log, { resetState: args.resetState, privateState: args.command === 'top' });
    setup = { config, log, agent };
  } catch (e) {
    return refused(e);
  }
  const { config, log, agent } = setup;
  if (args.command === 'hooks') {
    const [verb, harness] = args.words;
    if (verb !== 'print' || !HOOK_HARNESSES.includes(harness as HookHarness) || args.words.length > 2) {
      return refused(new ConfigError(`usage: coding-agent-exporter hooks print HARNESS, HARNESS one of ${HOOK_HARNESSES.join(', ')}`));
    }
    // The hook must write where this exporter reads: a state folder set here is set there too.
    const flags = config.stateDir === schema().stateDir.default ? [] : ['--state-dir', config.stateDir];
    process.stdout.write(`${hookSettings(harness as HookHarness, flags)}\n`);
    return 0;
  }

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

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

// A hook runs on every event of an agent: answered before the rest of the exporter is loaded.
const argv = process.argv.slice(2);
(argv[0] === 'hook' ? runHook(argv.slice(1), process.env) : main(argv)).then(
  // Output to a pipe is written asynchronously: the process exits once all of it is out (an
  // exposition larger than the pipe's buffer was cut off when `once` was piped to a slow reader).
  (code) => process.stdout.write('', () => process.exit(code)),
  (e: unknown) => {
    process.stderr.write(`coding-agent-exporter: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
