// How each command of the table (commands.ts) runs: a runner per command, which imports its own
// modules (the agent and its readers, the demo, the terminal view) when it runs, so that a command
// loads only what it uses. What this module imports itself, every command loads (main.ts).

import { join, resolve } from 'node:path';
import type { Exporter } from '../exporter.js';
import type { ReadThreads } from '../collectors/read-threads.js';
import { ConfigError, loadConfig, type Config } from '../config/load.js';
import { schema } from '../config/schema.js';
import { runHook } from '../hooks/command.js';
import { HOOK_HARNESSES, SPOOL_FILE, type HookHarness } from '../hooks/spool.js';
import { createLogger, type Logger } from '../log.js';
import { hasState, StateError } from '../state/db.js';
import { VERSION } from '../version.js';
import type { Parsed } from './args.js';
import type { CommandName } from './commands.js';

/** What a runner is given: the command line as parsed, and as it was typed. */
export interface Invocation {
  args: Parsed;
  argv: readonly string[];
}

/** A command's run: its exit code. */
type Runner = (c: Invocation) => Promise<number>;

/**
 * Exit code 2 with the message of a configuration error (which names the key) or of a state
 * database that cannot be used (which names the file); anything else is a bug.
 */
export function refused(e: unknown): number {
  if (!(e instanceof ConfigError || e instanceof StateError)) throw e;
  process.stderr.write(`coding-agent-exporter: ${e.message}\n`);
  return 2;
}

/** `statusline` could not start (a bad flag or configuration): the reason as the line, exit 0. */
export function statusFailed(e: unknown): number {
  if (!(e instanceof ConfigError)) throw e;
  process.stdout.write(`coding-agent-exporter: ${e.message}\n`);
  return 0;
}

/** The configuration and the logger of a command that reads the harnesses' files, and its exporter (none for `demo` and `hooks`). */
interface Setup {
  config: Config;
  log: Logger;
  exporter?: Exporter;
  /** The heap of a command that stays up: what a first read allocates is not kept resident for the day. */
  heap?: typeof import('../heap.js');
  /** While `top` holds the terminal, log lines wait here and are written when it quits. */
  held: string[];
}

/** The setup of `serve`, `once`, `sessions`, `top`, `demo` and `hooks`, or the exit code of a refusal. */
async function setUp({ args }: Invocation): Promise<Setup | number> {
  const held: string[] = [];
  const holdLog = args.command === 'top' && process.stderr.isTTY;
  let setup: Setup;
  try {
    const config = loadConfig(args.rest, process.env, args.configFile);
    if (args.since !== undefined) config.sessions.activeWindowSeconds = args.since;
    // `top` is no server: what a server logs at info (the first scan done, …) is not for its user
    // (printed after it quits, or into its pipe); warnings are, and debug when asked for.
    const level = args.command === 'top' && config.logLevel === 'info' ? 'warn' : config.logLevel;
    const log = holdLog ? createLogger(level, (l) => held.push(l)) : createLogger(level);
    const exporter =
      args.command === 'demo' || args.command === 'hooks'
        ? undefined
        : new (await import('../exporter.js')).Exporter(config, log, {
            resetState: args.resetState,
            privateState: args.command === 'top',
          });
    setup = { config, log, exporter, held };
  } catch (e) {
    return refused(e);
  }
  setup.heap = ['serve', 'top', 'demo'].includes(args.command) ? await import('../heap.js') : undefined;
  setup.heap?.keepYoungGenerationSmall();
  return setup;
}

/** A runner of a command that has an exporter. */
const withExporter =
  (run: (s: Setup & { exporter: Exporter }, c: Invocation) => Promise<number>): Runner =>
  async (c) => {
    const setup = await setUp(c);
    return typeof setup === 'number' ? setup : run(setup as Setup & { exporter: Exporter }, c);
  };

const serve = withExporter(async ({ log, exporter, heap }) => {
  try {
    await exporter.start();
    heap?.favourMemory();
  } catch (e) {
    await exporter.stop();
    return refused(e);
  }
  await waitForSignal();
  log.info('stopping');
  await exporter.stop();
  return 0;
});

const onceOrSessions = withExporter(async ({ config, exporter }, { args }) => {
  await exporter.scanAll();
  if (args.command === 'once')
    process.stdout.write((await import('../metrics/prometheus.js')).exposition(exporter.families()));
  else {
    const { formatSessions, sessionsJson } = await import('../view/records.js');
    const records = exporter.records();
    process.stdout.write(
      args.json ? sessionsJson(records) : formatSessions(records, Date.now(), config.sessions.activeWindowSeconds),
    );
    // Where no process can be seen (Windows), the statuses are the files' alone: said under the table.
    if (!args.json && exporter.processNote) process.stdout.write(`${exporter.processNote}\n`);
  }
  await exporter.stop();
  return 0;
});

const top: Runner = async (c) => {
  const { args } = c;
  if (args.url !== undefined) {
    try {
      const { remoteSource, runTop } = await import('./top.js');
      return await runTop(remoteSource(args.url));
    } catch (e) {
      const { shownUrl } = await import('../metrics/otlp.js');
      process.stderr.write(`coding-agent-exporter: --url ${shownUrl(args.url)}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  return withExporter(async ({ exporter, heap, held }) => {
    await exporter.follow();
    heap?.favourMemory();
    const { localSource, runTop } = await import('./top.js');
    const code = await runTop(localSource(exporter));
    await exporter.stop();
    process.stderr.write(held.slice(-100).join(''));
    return code;
  })(c);
};

const demo: Runner = async (c) => {
  const setup = await setUp(c);
  if (typeof setup === 'number') return setup;
  // Listened for before the demo starts (which takes a moment): a signal meanwhile still stops
  // it and removes its sample home, where with no listener yet it ended the process at once.
  const signalled = waitForSignal();
  let running;
  try {
    running = await (await import('./demo.js')).startDemo(setup.config, setup.log);
    setup.heap?.favourMemory();
  } catch (e) {
    return refused(e);
  }
  await signalled;
  await running.stop();
  return 0;
};

const hooks: Runner = async (c) => {
  const setup = await setUp(c);
  if (typeof setup === 'number') return setup;
  const [verb, harness] = c.args.words;
  if (verb !== 'print' || !HOOK_HARNESSES.includes(harness as HookHarness) || c.args.words.length > 2) {
    return refused(
      new ConfigError(`usage: coding-agent-exporter hooks print HARNESS, HARNESS one of ${HOOK_HARNESSES.join(', ')}`),
    );
  }
  // The hook must write where this exporter reads: a state folder set here is set there too,
  // absolute, as a hook runs in each project's folder.
  const flags =
    setup.config.stateDir === schema().stateDir.default ? [] : ['--state-dir', resolve(setup.config.stateDir)];
  const { hookSettings, selfCommand } = await import('../hooks/settings.js');
  process.stdout.write(
    `${hookSettings(harness as HookHarness, selfCommand(process.argv[1]!, process.env, process.execPath), flags)}\n`,
  );
  return 0;
};

/**
 * A report with no state database reads the files itself, on every core: its read threads start
 * now, while the rest of it loads. Started at the first backlog, a thread began reading 0.3 s
 * after the report's start, a fifth of a 1 GB read; started here, 0.1 s sooner (the report 3 %
 * faster; at 200 MB as fast, for a third more CPU; on an empty home 15 ms slower).
 */
async function startReadThreads(config: Config): Promise<ReadThreads | undefined> {
  const { ReadThreads, threadsFor } = await import('../collectors/read-threads.js');
  const n = threadsFor(config.readThreads, true);
  if (n === 0) return undefined;
  const threads = new ReadThreads(n);
  threads.start();
  return threads;
}

/** Every command's runner: a command of the table without one does not compile. */
export const RUNNERS: Record<CommandName, Runner> = {
  serve,
  once: onceOrSessions,
  sessions: onceOrSessions,
  top,
  demo,
  report: async ({ args }) => {
    try {
      const config = loadConfig(args.rest, process.env, args.configFile);
      const threads =
        args.report!.from === undefined && !hasState(config.stateDir) ? await startReadThreads(config) : undefined;
      const { report } = await import('./report.js');
      process.stdout.write(await report(config, args.report!, args.json, threads));
      return 0;
    } catch (e) {
      // A store that does not answer, or refuses: said with its address (never its password), as top --url.
      if (args.report?.from !== undefined && !(e instanceof ConfigError || e instanceof StateError)) {
        const { shownUrl } = await import('../metrics/otlp.js');
        process.stderr.write(
          `coding-agent-exporter: report --from ${shownUrl(args.report.from)}: ${(e as Error).message}\n`,
        );
        return 2;
      }
      return refused(e);
    }
  },
  statusline: async ({ args }) => {
    let config: Config;
    try {
      config = loadConfig(args.rest, process.env, args.configFile);
    } catch (e) {
      return statusFailed(e);
    }
    const { statusLineOfStdin } = await import('./statusline.js');
    // NO_COLOR: any value but the empty one (no-color.org).
    process.stdout.write(
      `${await statusLineOfStdin({ stateDir: config.stateDir, format: args.format, color: !process.env.NO_COLOR })}\n`,
    );
    return 0;
  },
  // `hook` after a flag (`--state-dir x hook claude-code`): the same hook, after a slower start.
  hook: ({ argv }) =>
    runHook(
      argv.filter((w, i) => i !== argv.indexOf('hook')),
      process.env,
    ),
  hooks,
  doctor: async ({ args }) => {
    try {
      const config = loadConfig(args.rest, process.env, args.configFile);
      const [{ doctor, doctorText }, { homedir }] = await Promise.all([import('./doctor.js'), import('node:os')]);
      const report = await doctor(config, {
        version: VERSION,
        spool: join(config.stateDir, SPOOL_FILE),
        env: process.env,
        home: process.env.HOME ?? homedir(),
      });
      process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : doctorText(report));
      return 0;
    } catch (e) {
      return refused(e);
    }
  },
  // `help [command]`, and `COMMAND --help`.
  help: async ({ args }) => {
    const { help } = await import('./help.js');
    process.stdout.write(`${help(args.command === 'help' ? args.topic : args.command)}\n`);
    return 0;
  },
};

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
