// `coding-agent-exporter hooks print <harness>`: the settings to paste into a harness's own
// settings file so that it runs `coding-agent-exporter hook` on the events a status needs (the
// exporter never writes a harness's settings). Where each harness keeps them and which events:
// docs/hooks.md. Each command names its event: not every harness's payload does.

import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { HookHarness } from './spool.js';

const BIN = 'coding-agent-exporter';

interface Shape {
  file: string;
  events: string[];
  entry: (command: string, event: string) => Record<string, unknown>;
  /** Claude's shape nests the commands under a matcher group; Copilot's lists them directly. */
  grouped: boolean;
  note?: string;
}

const CLAUDE_EVENTS = [
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Notification',
  'Stop',
  'SessionEnd',
];
const claudeEntry = (command: string) => ({ type: 'command', command, timeout: 10 });

const SHAPES: Record<HookHarness, Shape> = {
  'claude-code': { file: '~/.claude/settings.json', events: CLAUDE_EVENTS, entry: claudeEntry, grouped: true },
  'qwen-code': { file: '~/.qwen/settings.json', events: CLAUDE_EVENTS, entry: claudeEntry, grouped: true },
  'gemini-cli': {
    file: '~/.gemini/settings.json',
    events: ['BeforeAgent', 'BeforeTool', 'AfterTool', 'Notification', 'AfterAgent', 'SessionEnd'],
    entry: (command) => ({ name: BIN, type: 'command', command, timeout: 10_000 }),
    grouped: true,
  },
  'copilot-cli': {
    file: '~/.copilot/settings.json',
    events: [
      'userPromptSubmitted',
      'preToolUse',
      'permissionRequest',
      'postToolUse',
      'notification',
      'agentStop',
      'sessionEnd',
    ],
    entry: (command) => ({ type: 'command', bash: command, timeoutSec: 10 }),
    grouped: false,
  },
  codex: {
    file: '~/.codex/hooks.json',
    events: ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'SessionEnd'],
    // Codex caps a SessionEnd hook at 3 s, and warns of a longer one at every start.
    entry: (command, event) => ({ type: 'command', command, timeout: event === 'SessionEnd' ? 3 : 10 }),
    grouped: true,
    note: 'Codex asks to trust new hooks before it runs them ("Hooks need review" in the TUI): trust them once.',
  },
};

/**
 * The snippet for `harness`: `self` runs this exporter (see selfCommand), `flags` (e.g.
 * `--state-dir /abs/dir`) are added to each command.
 */
export function hookSettings(harness: HookHarness, self: string[] = [BIN], flags: string[] = []): string {
  const shape = SHAPES[harness];
  // The flags after the words: `hook` first is what main.ts answers before loading anything else.
  const argv = (event: string) => [...self, 'hook', harness, event, ...flags];
  const command = (event: string) => argv(event).map(shellWord).join(' ');
  const hooks = Object.fromEntries(
    shape.events.map((e) => [
      e,
      shape.grouped ? [{ hooks: [shape.entry(command(e), e)] }] : [shape.entry(command(e), e)],
    ]),
  );
  const lines = [`# ${shape.file} (merge into its "hooks"):`, JSON.stringify({ hooks }, null, 2)];
  if (harness === 'codex') {
    // Below a [table] header, TOML makes notify a key of that table, where Codex never looks.
    // Codex passes no shell: each word is one argument, a TOML string (JSON's escapes are TOML's).
    lines.push(
      '',
      '# ~/.codex/config.toml (the turn-complete notification): a top-level key, so put it above the first [table]:',
      `notify = [${argv('notify')
        .map((w) => JSON.stringify(w))
        .join(', ')}]`,
    );
  }
  if (harness === 'claude-code') {
    lines.push(
      '',
      '# ~/.claude/settings.json, beside "hooks" (optional: the status line that records the usage-limit windows):',
      JSON.stringify({ statusLine: { type: 'command', command: [...self, 'statusline'].map(shellWord).join(' ') } }),
    );
  }
  if (shape.note) lines.push('', `# ${shape.note}`);
  return lines.join('\n');
}

/**
 * The words that run this exporter from a harness: its name where the first `coding-agent-exporter`
 * on PATH is this same script (an install, or `npm link`), else node and the script's absolute path
 * (a clone): a command the harness cannot find fails without a word.
 */
export function selfCommand(script: string, env: NodeJS.ProcessEnv, node: string): string[] {
  const real = realpath(script);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    // A relative entry would find another file in each project's folder, where hooks run.
    if (!isAbsolute(dir)) continue;
    const bin = join(dir, BIN);
    if (!executable(bin)) continue;
    if (realpath(bin) === real) return [BIN];
    break;
  }
  return [node, real];
}

function realpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A word as the shell reads it back (the harnesses run the command through `sh -c`). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
