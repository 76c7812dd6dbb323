#!/usr/bin/env node
// Command-line entry: parses the arguments and runs the command they name (`serve` when none;
// the commands are cli/commands.ts's table, `help` and `--version` answered here). A command's own
// modules (the agent and its readers, the demo, the terminal view, the report) are imported when
// it runs: each module loaded statically is start-up time for every command. `statusline` runs
// after every message Claude Code shows, and `hook` on every event of an agent: only the hook's
// own modules are loaded statically, and `hook` as the first word runs before main() loads the rest.

import { join, resolve } from 'node:path';
import type { Agent } from './agent.js';
import type { Config } from './config/load.js';
import { runHook } from './hooks/command.js';
import { HOOK_HARNESSES, SPOOL_FILE, type HookHarness } from './hooks/spool.js';
import { schema } from './config/schema.js';
import type { Logger } from './log.js';
import type { Parsed } from './cli/args.js';

async function main(argv: string[]): Promise<number> {
  const [{ ConfigError, loadConfig }, { createLogger }, { parseArgs }, { StateError }, { VERSION }] = await Promise.all([
    import('./config/load.js'), import('./log.js'), import('./cli/args.js'), import('./state/db.js'), import('./version.js'),
  ]);
  /**
   * Exit code 2 with the message of a configuration error (which names the key) or of a state
   * database that cannot be used (which names the file); anything else is a bug.
   */
  const refused = (e: unknown): number => {
    if (!(e instanceof ConfigError || e instanceof StateError)) throw e;
    process.stderr.write(`coding-agent-exporter: ${e.message}\n`);
    return 2;
  };
  /** `statusline` could not start (a bad flag or configuration): the reason as the line, exit 0. */
  const statusFailed = (e: unknown): number => {
    if (!(e instanceof ConfigError)) throw e;
    process.stdout.write(`coding-agent-exporter: ${e.message}\n`);
    return 0;
  };
  let args: Parsed;
  try {
    args = parseArgs(argv);
  } catch (e) {
    // A status bar shows the line whatever went wrong.
    if (argv.includes('statusline') && e instanceof ConfigError) return statusFailed(e);
    return refused(e);
  }
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (args.command === 'help' || args.help) {
    const { help } = await import('./cli/help.js');
    process.stdout.write(`${help(args.command === 'help' ? args.topic : args.command)}\n`);
    return 0;
  }
  // `hook` after a flag (`--state-dir x hook claude-code`): the same hook, after a slower start.
  if (args.command === 'hook') return runHook(argv.filter((w, i) => i !== argv.indexOf('hook')), process.env);
  if (args.command === 'statusline') {
    let config: Config;
    try {
      config = loadConfig(args.rest, process.env, args.configFile);
    } catch (e) {
      return statusFailed(e);
    }
    const { statusLineOfStdin } = await import('./cli/statusline.js');
    // NO_COLOR: any value but the empty one (no-color.org).
    process.stdout.write(`${await statusLineOfStdin({ stateDir: config.stateDir, format: args.format, color: !process.env.NO_COLOR })}\n`);
    return 0;
  }
  if (args.command === 'report') {
    try {
      const config = loadConfig(args.rest, process.env, args.configFile);
      const { report } = await import('./cli/report.js');
      process.stdout.write(await report(config, args.report!, args.json));
      return 0;
    } catch (e) {
      // A store that does not answer, or refuses: said with its address (never its password), as top --url.
      if (args.report?.from !== undefined && !(e instanceof ConfigError || e instanceof StateError)) {
        const { shownUrl } = await import('./metrics/otlp.js');
        process.stderr.write(`coding-agent-exporter: report --from ${shownUrl(args.report.from)}: ${(e as Error).message}\n`);
        return 2;
      }
      return refused(e);
    }
  }
  if (args.command === 'doctor') {
    try {
      const config = loadConfig(args.rest, process.env, args.configFile);
      const [{ doctor, doctorText }, { homedir }] = await Promise.all([import('./cli/doctor.js'), import('node:os')]);
      const report = await doctor(config, { version: VERSION, spool: join(config.stateDir, SPOOL_FILE), env: process.env, home: process.env.HOME ?? homedir() });
      process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : doctorText(report));
      return 0;
    } catch (e) {
      return refused(e);
    }
  }
  if (args.command === 'top' && args.url !== undefined) {
    try {
      const { remoteSource, runTop } = await import('./cli/top.js');
      return await runTop(remoteSource(args.url));
    } catch (e) {
      const { shownUrl } = await import('./metrics/otlp.js');
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
    // `top` is no server: what a server logs at info (the first scan done, …) is not for its user
    // (printed after it quits, or into its pipe); warnings are, and debug when asked for.
    const level = args.command === 'top' && config.logLevel === 'info' ? 'warn' : config.logLevel;
    const log = holdLog ? createLogger(level, (l) => held.push(l)) : createLogger(level);
    const agent = args.command === 'demo' || args.command === 'hooks' ? undefined
      : new (await import('./agent.js')).Agent(config, log, { resetState: args.resetState, privateState: args.command === 'top' });
    setup = { config, log, agent };
  } catch (e) {
    return refused(e);
  }
  const { config, log, agent } = setup;
  // Every command that stays up: what a first read allocates is not kept resident for the day.
  const heap = ['serve', 'top', 'demo'].includes(args.command) ? await import('./heap.js') : undefined;
  heap?.keepYoungGenerationSmall();
  if (args.command === 'hooks') {
    const [verb, harness] = args.words;
    if (verb !== 'print' || !HOOK_HARNESSES.includes(harness as HookHarness) || args.words.length > 2) {
      return refused(new ConfigError(`usage: coding-agent-exporter hooks print HARNESS, HARNESS one of ${HOOK_HARNESSES.join(', ')}`));
    }
    // The hook must write where this exporter reads: a state folder set here is set there too,
    // absolute, as a hook runs in each project's folder.
    const flags = config.stateDir === schema().stateDir.default ? [] : ['--state-dir', resolve(config.stateDir)];
    const { hookSettings, selfCommand } = await import('./hooks/settings.js');
    process.stdout.write(`${hookSettings(harness as HookHarness, selfCommand(process.argv[1]!, process.env, process.execPath), flags)}\n`);
    return 0;
  }

  if (!agent) {
    // Listened for before the demo starts (which takes a moment): a signal meanwhile still stops
    // it and removes its sample home, where with no listener yet it ended the process at once.
    const signalled = waitForSignal();
    let demo;
    try {
      demo = await (await import('./cli/demo.js')).startDemo(config, log);
      heap?.favourMemory();
    } catch (e) {
      return refused(e);
    }
    await signalled;
    await demo.stop();
    return 0;
  }
  if (args.command === 'top') {
    await agent.follow();
    heap?.favourMemory();
    const { localSource, runTop } = await import('./cli/top.js');
    const code = await runTop(localSource(agent));
    await agent.stop();
    process.stderr.write(held.slice(-100).join(''));
    return code;
  }
  if (args.command === 'once' || args.command === 'sessions') {
    await agent.scanAll();
    if (args.command === 'once') process.stdout.write((await import('./metrics/prometheus.js')).exposition(agent.families()));
    else {
      const { formatSessions, sessionsJson } = await import('./view/records.js');
      const records = agent.records();
      process.stdout.write(args.json ? sessionsJson(records) : formatSessions(records, Date.now(), config.sessions.activeWindowSeconds));
      // Where no process can be seen (Windows), the statuses are the files' alone: said under the table.
      if (!args.json && agent.processNote) process.stdout.write(`${agent.processNote}\n`);
    }
    await agent.stop();
    return 0;
  }
  try {
    await agent.start();
    heap?.favourMemory();
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
