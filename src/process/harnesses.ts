// How each harness's processes are recognised in the process table, and what their tool
// processes carry in their environment, as the real CLIs were seen running in each interactive
// state (test/process/interactive-states.test.ts replays them).

import { basename } from 'node:path';
import type { HarnessId } from '../session/types.js';

export interface HarnessProcess {
  /** Executable or installed command names (the command line's first word, or the script an interpreter runs). */
  names: readonly string[];
  /** npm packages whose scripts are the harness (matched in the script's path). */
  packages?: readonly string[];
  /** The variable a harness puts into its tool processes' environment with the session id. */
  sessionEnv?: string;
  /**
   * The variable every tool process of the harness carries, and nothing else does: a child with
   * it means a tool runs, none that none does. Set for harnesses whose files look the same while a
   * command waits for approval and while it runs; where the value is the session id
   * (`sessionEnv`), it must name the session. Where only `sessionEnv` marks the tools (Claude
   * Code's MCP servers carry it too), a child with it started after a hook's event ran for it.
   */
  toolEnv?: string;
  /** The subcommand of a daemon that runs other processes' sessions (Codex's `app-server`): never a session of its own. */
  daemon?: string;
}

export const HARNESS_PROCESSES: Record<HarnessId, HarnessProcess> = {
  'claude-code': {
    names: ['claude', 'claude.exe'],
    packages: ['@anthropic-ai/claude-code'],
    sessionEnv: 'CLAUDE_CODE_SESSION_ID',
  },
  codex: {
    names: ['codex'],
    packages: ['@openai/codex'],
    sessionEnv: 'CODEX_SESSION_ID',
    toolEnv: 'CODEX_SESSION_ID',
    daemon: 'app-server',
  },
  'gemini-cli': { names: ['gemini'], packages: ['@google/gemini-cli'], toolEnv: 'GEMINI_CLI' },
  'qwen-code': { names: ['qwen'], packages: ['@qwen-code/qwen-code'], toolEnv: 'QWEN_CODE' },
  'copilot-cli': { names: ['copilot'], packages: ['@github/copilot'], sessionEnv: 'COPILOT_AGENT_SESSION_ID' },
  opencode: { names: ['opencode'], packages: ['opencode-ai'], toolEnv: 'OPENCODE' },
  kilo: { names: ['kilo', 'kilocode'], packages: ['@kilocode/cli'] },
  'cursor-agent': { names: ['cursor-agent'] },
  'antigravity-cli': { names: ['agy', 'antigravity'] },
  hermes: { names: ['hermes'], packages: ['hermes-agent'] },
  kodelet: { names: ['kodelet'] },
  aider: { names: ['aider'], packages: ['aider-chat'] },
  goose: { names: ['goose'] },
  crush: { names: ['crush'] },
  droid: { names: ['droid'] },
  pi: { names: ['pi'], packages: ['@mariozechner/pi-coding-agent'] },
  'continue-cli': { names: ['cn'], packages: ['@continuedev/cli'] },
  cline: { names: ['cline'], packages: ['cline'] },
  // A VS Code extension: it runs in the editor's extension host, no process of its own.
  'roo-code': { names: [] },
  // Installed by uv or pip as a `kimi` script (Python).
  'kimi-cli': { names: ['kimi'] },
  openclaw: { names: ['openclaw'], packages: ['openclaw'] },
  // Amp's CLI has kept its threads on Amp's servers since March 2026: a running one has no local
  // session to be the process of (only archived threads are read).
  amp: { names: [] },
  auggie: { names: ['auggie'], packages: ['@augmentcode/auggie'] },
  junie: { names: ['junie'] },
  // `traex` (not `trae-cli`: that is ByteDance's unrelated trae-agent). Whether it keeps Codex's
  // tool environment variable is not known: none is assumed.
  'trae-cli': { names: ['traex'] },
  grok: { names: ['grok'] },
  // The CLI's command (a Python program: its interpreter's first argument, as for Aider).
  openhands: { names: ['openhands'] },
  // `kiro-cli`, whose chat runs as `kiro-cli-chat` (as Amazon Q's `qchat`: not verified).
  kiro: { names: ['kiro-cli', 'kiro-cli-chat'] },
  qoder: { names: ['qodercli'] },
  // The agent runs inside the editor: a running Zed says nothing of whether one of its threads works.
  zed: { names: [] },
  // Cursor's editor: its chats run inside the editor, no process of their own.
  cursor: { names: [] },
  // A terminal: its process runs whether an agent does or not, so it is no agent's process.
  warp: { names: [] },
  // Copilot Chat runs in VS Code's extension host: no process of its own.
  'copilot-vscode': { names: [] },
};

// Interpreters whose first argument that is not an option is the program: `node …/bin/gemini`.
const INTERPRETER = /^(node|nodejs|bun|deno|python[0-9.]*|pypy[0-9.]*)$/;

const byName = new Map<string, HarnessId>();
for (const [h, p] of Object.entries(HARNESS_PROCESSES) as [HarnessId, HarnessProcess][])
  for (const n of p.names) byName.set(n, h);

/**
 * The harness a command line runs, from its executable and (for an interpreter) its script
 * only: the other arguments may be prompt text and are never looked at.
 */
export function harnessOf(argv: readonly string[]): HarnessId | undefined {
  const exe = argv[0] ?? '';
  const program = INTERPRETER.test(basename(exe)) ? argv.slice(1).find((a) => !a.startsWith('-')) : exe;
  if (!program) return undefined;
  // A script is the harness where it is an installed command (no extension: `…/bin/gemini`) or
  // in the harness's package: any other `gemini.js` is someone's own script.
  const named = byName.get(basename(program));
  if (named) return named;
  for (const [h, p] of Object.entries(HARNESS_PROCESSES) as [HarnessId, HarnessProcess][]) {
    if (p.packages?.some((pkg) => program.includes(`/node_modules/${pkg}/`) || program.includes(`/${pkg}/`))) return h;
  }
  return undefined;
}

/**
 * The folder a `demo` writes its sample home into (under the temporary folder), followed by the
 * demo's pid and a random tail: its stand-in agents run from `<folder>/bin/<agent>`.
 */
export const DEMO_FOLDER = 'coding-agent-exporter-demo-';
// (Of a demo of any version: before the pid, the random tail alone.)
const DEMO_STAND_IN = new RegExp(`/${DEMO_FOLDER}[^/]+/bin/[^/]+$`);

/** Whether a command line is one of a `demo`'s stand-in agents (by its executable's path): no agent of the user's. */
export function isDemoStandIn(argv: readonly string[]): boolean {
  return DEMO_STAND_IN.test(argv[0] ?? '');
}

/**
 * A harness's daemon, or a helper of it (Codex's `app-server daemon pid-update-loop`): it runs
 * other processes' sessions, or none, never one of its own.
 */
export function isDaemon(harness: HarnessId, argv: readonly string[]): boolean {
  const { daemon } = HARNESS_PROCESSES[harness];
  return daemon !== undefined && argv.includes(daemon);
}

/**
 * Our `hook <harness>` command (or the `sh -c` a harness runs it through): a child of the agent
 * with its environment, for a moment on each event, and no tool of the agent's.
 */
export function runsHook(argv: readonly string[], harness: HarnessId): boolean {
  const words = argv.flatMap((a) => a.split(/\s+/));
  return words.some((w, i) => w === 'hook' && words[i + 1] === harness);
}

/** The session id a command line names (`--resume <id>`, `-r <id>`, `--session <id>`, `-s <id>`, `resume <id>`, or `--flag=<id>`). */
export function sessionArgs(argv: readonly string[]): string[] {
  const ids: string[] = [];
  const flags = new Set(['--resume', '-r', '--session', '-s', '--session-id', '--continue-session']);
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    if (eq > 0 && flags.has(a.slice(0, eq))) ids.push(a.slice(eq + 1));
    else if ((flags.has(a) || a === 'resume') && argv[i + 1] !== undefined) ids.push(argv[i + 1]!);
  }
  return ids;
}
