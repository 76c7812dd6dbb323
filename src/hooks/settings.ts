// `coding-agent-exporter hooks print <harness>`: the settings to paste into a harness's own
// settings file so that it runs `coding-agent-exporter hook` on the events a status needs (the
// exporter never writes a harness's settings). Where each harness keeps them and in which shape:
// shared/reference/hooks.md. Each command names its event: not every harness's payload does.

import type { HookHarness } from './spool.js';

interface Shape {
  file: string;
  events: string[];
  entry: (command: string) => Record<string, unknown>;
  /** Claude's shape nests the commands under a matcher group; Copilot's lists them directly. */
  grouped: boolean;
  note?: string;
}

const CLAUDE_EVENTS = ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Notification', 'Stop', 'SessionEnd'];
const claudeEntry = (command: string) => ({ type: 'command', command, timeout: 10 });

const SHAPES: Record<HookHarness, Shape> = {
  'claude-code': { file: '~/.claude/settings.json', events: CLAUDE_EVENTS, entry: claudeEntry, grouped: true },
  'qwen-code': { file: '~/.qwen/settings.json', events: CLAUDE_EVENTS, entry: claudeEntry, grouped: true },
  'gemini-cli': {
    file: '~/.gemini/settings.json',
    events: ['BeforeAgent', 'BeforeTool', 'AfterTool', 'Notification', 'AfterAgent', 'SessionEnd'],
    entry: (command) => ({ name: 'coding-agent-exporter', type: 'command', command, timeout: 10_000 }),
    grouped: true,
  },
  'copilot-cli': {
    file: '~/.copilot/settings.json',
    events: ['userPromptSubmitted', 'preToolUse', 'permissionRequest', 'postToolUse', 'notification', 'agentStop', 'sessionEnd'],
    entry: (command) => ({ type: 'command', bash: command, timeoutSec: 10 }),
    grouped: false,
  },
  codex: {
    file: '~/.codex/hooks.json',
    events: ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'SessionEnd'],
    entry: claudeEntry,
    grouped: true,
    note: 'Codex asks to trust new hooks before it runs them ("Hooks need review" in the TUI): trust them once.',
  },
};

/** The snippet for `harness`, with `flags` (e.g. `--state-dir DIR`) added to each command. */
export function hookSettings(harness: HookHarness, flags: string[] = []): string {
  const shape = SHAPES[harness];
  // The flags after the words: `hook` first is what main.ts answers before loading anything else.
  const command = (event: string) => ['coding-agent-exporter', 'hook', harness, event, ...flags].map(shellWord).join(' ');
  const hooks = Object.fromEntries(shape.events.map((e) => [e, shape.grouped ? [{ hooks: [shape.entry(command(e))] }] : [shape.entry(command(e))]]));
  const lines = [`# ${shape.file} (merge into its "hooks"):`, JSON.stringify({ hooks }, null, 2)];
  if (harness === 'codex') {
    lines.push('', '# ~/.codex/config.toml (the turn-complete notification):',
      `notify = [${['coding-agent-exporter', 'hook', 'codex', 'notify', ...flags].map((w) => JSON.stringify(w)).join(', ')}]`);
  }
  if (shape.note) lines.push('', `# ${shape.note}`);
  return lines.join('\n');
}

/** A word as the shell reads it back (the harnesses run the command through `sh -c`). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
