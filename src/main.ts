#!/usr/bin/env node
// Command-line entry: parses the command line and runs the command, each command's runner from the
// table (cli/run.ts's RUNNERS, one per command of cli/commands.ts). A runner imports its own
// modules when it runs: each module loaded is start-up time for every command.
// `statusline` runs after every message Claude Code shows, and `hook` on every event of an agent:
// only the hook's own modules are loaded statically, the rest once another command is asked for.

import type { Parsed } from './cli/args.js';
import { runHook } from './hooks/command.js';

async function main(argv: string[]): Promise<number> {
  const [
    { ConfigError },
    { parseArgs },
    { RUNNERS, refused, statusFailed },
    { VERSION },
    { compileLightly },
    { scavengeAlone },
  ] = await Promise.all([
    import('./config/load.js'),
    import('./cli/args.js'),
    import('./cli/run.js'),
    import('./version.js'),
    import('./jit.js'),
    import('./heap.js'),
  ]);
  // Before any code is hot, and any thread started.
  compileLightly();
  scavengeAlone();
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
  return RUNNERS[args.help ? 'help' : args.command]({ args, argv });
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
