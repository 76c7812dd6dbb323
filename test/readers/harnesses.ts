// Every registered harness's test fixtures, one entry each, keyed by harness id: a harness added to
// src/session/vocabulary.ts without an entry here is a type error, and the suites every reader
// passes (conformance.test.ts, fuzz.test.ts) iterate this table, not a list of their own.

import { join } from 'node:path';
import type { HarnessId } from '../../src/session/types.js';
import { crushHome } from '../helpers/crush-db.js';
import { FIXTURES } from '../helpers/run.js';
import type { ConformanceOptions } from './conformance.js';

/** A harness root (the folder a user's default root would be) with at least one session, and how to read it. */
export interface ConformanceCase {
  root: string;
  opts?: ConformanceOptions;
}

export interface HarnessFixtures {
  /** The roots the conformance suite runs on: each capture or sample home the harness's files are in. */
  conformance: readonly ConformanceCase[];
}

const at = (...roots: string[]): HarnessFixtures => ({ conformance: roots.map((r) => ({ root: join(FIXTURES, r) })) });
const editorTasks = (dir: string, ext: string) =>
  `homes/vscode-extensions-and-clis/${dir}/User/globalStorage/${ext}/tasks`;

export const HARNESS_FIXTURES: Record<HarnessId, HarnessFixtures> = {
  'claude-code': at('captures/claude-code/tool/.claude', 'captures/claude-code-2.1.197/tool/.claude'),
  codex: at('captures/codex/tool/.codex'),
  opencode: at('captures/opencode/tool/.local/share/opencode'),
  kilo: at('captures/kilo-cli/tool/.local/share/kilo', editorTasks('.config/Code', 'kilocode.kilo-code')),
  'qwen-code': at('captures/qwen-code/tool/.qwen', 'captures/qwen-code-0.15.10/tool/.qwen'),
  'copilot-cli': at('captures/copilot-cli/tool/.copilot'),
  'gemini-cli': at('captures/gemini-cli/tool/.gemini'),
  droid: at('captures/droid/tool/.factory/sessions', 'captures/droid-anthropic/tool/.factory/sessions'),
  pi: at('captures/pi/tool/.pi/agent/sessions'),
  aider: {
    conformance: [{ root: join(FIXTURES, 'homes/aider-cursor-antigravity-sqlite'), opts: { textLines: true } }],
  },
  'cursor-agent': at('homes/aider-cursor-antigravity-sqlite/.cursor'),
  'antigravity-cli': at('homes/aider-cursor-antigravity-sqlite/.gemini/antigravity-cli'),
  hermes: at('homes/aider-cursor-antigravity-sqlite/.hermes'),
  goose: at('homes/aider-cursor-antigravity-sqlite/.local/share/goose'),
  kodelet: at('homes/aider-cursor-antigravity-sqlite/.kodelet'),
  // Written on first use (its projects.json names the databases by absolute path), not on import.
  crush: {
    get conformance() {
      const home = crushHome();
      return [{ root: join(home, '.local/share/crush'), opts: { elsewhere: join(home, 'src') } }];
    },
  },
  'continue-cli': at('captures/continue-cli/tool/.continue/sessions'),
  cline: at('captures/cline/tool/.cline/data/sessions', editorTasks('.config/Code', 'saoudrizwan.claude-dev')),
  'roo-code': at(editorTasks('.vscode-server/data', 'rooveterinaryinc.roo-cline')),
  'kimi-cli': at('homes/vscode-extensions-and-clis/.kimi/sessions'),
  openclaw: at('captures/openclaw/tool/.openclaw', 'homes/vscode-extensions-and-clis/.openclaw'),
  amp: at('homes/vscode-extensions-and-clis/.local/share/amp/threads'),
  auggie: at('homes/vscode-extensions-and-clis/.augment/sessions'),
  junie: {
    conformance: [{ root: join(FIXTURES, 'homes/vscode-extensions-and-clis/.junie/sessions'), opts: { noCwd: true } }],
  },
  'trae-cli': at('homes/editor-stores-and-clis/.trae/cli'),
  grok: at('homes/editor-stores-and-clis/.grok'),
  openhands: at('homes/editor-stores-and-clis/.openhands/conversations'),
  kiro: at('homes/editor-stores-and-clis/.kiro/sessions/cli'),
  qoder: at('homes/editor-stores-and-clis/.qoder'),
  zed: at('homes/editor-stores-and-clis/.local/share/zed/threads'),
  cursor: at('homes/editor-stores-and-clis/.config/Cursor'),
  warp: at('homes/editor-stores-and-clis/.local/state/warp-terminal'),
  'copilot-vscode': at('homes/editor-stores-and-clis/.config/Code/User'),
};
