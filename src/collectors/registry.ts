// Every harness the exporter reads: one line per reader. The collector name, the config section
// `collectors.<name>` and the `harness` label are the same id. Only where each harness looks is
// loaded here; its reader (the parser, most of the code) is imported once a root of it is found,
// so a harness not on this machine costs no start-up.

import { resolve } from 'node:path';
import { claudeCode } from '../readers/claude-code/where.js';
import { codex } from '../readers/codex/where.js';
import { kilo } from '../readers/kilo/where.js';
import { opencode } from '../readers/opencode/where.js';
import { qwenCode } from '../readers/qwen-code/where.js';
import { copilotCli } from '../readers/copilot-cli/where.js';
import { geminiCli } from '../readers/gemini-cli/where.js';
import { droid } from '../readers/droid/where.js';
import { pi } from '../readers/pi/where.js';
import { aider } from '../readers/aider/where.js';
import { cursorAgent } from '../readers/cursor-agent/where.js';
import { antigravityCli } from '../readers/antigravity-cli/where.js';
import { hermes } from '../readers/hermes/where.js';
import { goose } from '../readers/goose/where.js';
import { kodelet } from '../readers/kodelet/where.js';
import { crush } from '../readers/crush/where.js';
import { continueCli } from '../readers/continue-cli/where.js';
import { cline } from '../readers/cline/where.js';
import { rooCode } from '../readers/roo-code/where.js';
import { kimiCli } from '../readers/kimi-cli/where.js';
import { openclaw } from '../readers/openclaw/where.js';
import { amp } from '../readers/amp/where.js';
import { auggie } from '../readers/auggie/where.js';
import { junie } from '../readers/junie/where.js';
import { traeCli } from '../readers/trae-cli/where.js';
import { grok } from '../readers/grok/where.js';
import { openhands } from '../readers/openhands/where.js';
import { kiro } from '../readers/kiro/where.js';
import { qoder } from '../readers/qoder/where.js';
import { zed } from '../readers/zed/where.js';
import { cursor } from '../readers/cursor/where.js';
import { warp } from '../readers/warp/where.js';
import { copilotVscode } from '../readers/copilot-vscode/where.js';
import type { Harness } from '../readers/reader.js';
import type { HarnessId } from '../session/types.js';

export const HARNESSES: Record<HarnessId, Harness> = {
  'claude-code': { ...claudeCode, load: async () => (await import('../readers/claude-code/reader.js')).claudeCode },
  codex: { ...codex, load: async () => (await import('../readers/codex/reader.js')).codex },
  opencode: { ...opencode, load: async () => (await import('../readers/opencode/reader.js')).opencode },
  kilo: { ...kilo, load: async () => (await import('../readers/kilo/reader.js')).kilo },
  'qwen-code': { ...qwenCode, load: async () => (await import('../readers/qwen-code/reader.js')).qwenCode },
  'copilot-cli': { ...copilotCli, load: async () => (await import('../readers/copilot-cli/reader.js')).copilotCli },
  'gemini-cli': { ...geminiCli, load: async () => (await import('../readers/gemini-cli/reader.js')).geminiCli },
  droid: { ...droid, load: async () => (await import('../readers/droid/reader.js')).droid },
  pi: { ...pi, load: async () => (await import('../readers/pi/reader.js')).pi },
  aider: { ...aider, load: async () => (await import('../readers/aider/reader.js')).aider },
  'cursor-agent': { ...cursorAgent, load: async () => (await import('../readers/cursor-agent/reader.js')).cursorAgent },
  'antigravity-cli': {
    ...antigravityCli,
    load: async () => (await import('../readers/antigravity-cli/reader.js')).antigravityCli,
  },
  hermes: { ...hermes, load: async () => (await import('../readers/hermes/reader.js')).hermes },
  goose: { ...goose, load: async () => (await import('../readers/goose/reader.js')).goose },
  kodelet: { ...kodelet, load: async () => (await import('../readers/kodelet/reader.js')).kodelet },
  crush: { ...crush, load: async () => (await import('../readers/crush/reader.js')).crush },
  'continue-cli': { ...continueCli, load: async () => (await import('../readers/continue-cli/reader.js')).continueCli },
  cline: { ...cline, load: async () => (await import('../readers/cline/reader.js')).cline },
  'roo-code': { ...rooCode, load: async () => (await import('../readers/roo-code/reader.js')).rooCode },
  'kimi-cli': { ...kimiCli, load: async () => (await import('../readers/kimi-cli/reader.js')).kimiCli },
  openclaw: { ...openclaw, load: async () => (await import('../readers/openclaw/reader.js')).openclaw },
  amp: { ...amp, load: async () => (await import('../readers/amp/reader.js')).amp },
  auggie: { ...auggie, load: async () => (await import('../readers/auggie/reader.js')).auggie },
  junie: { ...junie, load: async () => (await import('../readers/junie/reader.js')).junie },
  'trae-cli': { ...traeCli, load: async () => (await import('../readers/trae-cli/reader.js')).traeCli },
  grok: { ...grok, load: async () => (await import('../readers/grok/reader.js')).grok },
  openhands: { ...openhands, load: async () => (await import('../readers/openhands/reader.js')).openhands },
  kiro: { ...kiro, load: async () => (await import('../readers/kiro/reader.js')).kiro },
  qoder: { ...qoder, load: async () => (await import('../readers/qoder/reader.js')).qoder },
  zed: { ...zed, load: async () => (await import('../readers/zed/reader.js')).zed },
  cursor: { ...cursor, load: async () => (await import('../readers/cursor/reader.js')).cursor },
  warp: { ...warp, load: async () => (await import('../readers/warp/reader.js')).warp },
  'copilot-vscode': {
    ...copilotVscode,
    load: async () => (await import('../readers/copilot-vscode/reader.js')).copilotVscode,
  },
};

/**
 * The roots a harness is read under: those configured (`collectors.<name>.roots`), else where the
 * harness keeps its files by default; and whether they were configured (a missing one is then worth
 * a warning).
 */
export function rootsOf(
  harness: Harness,
  configured: readonly string[],
  env: NodeJS.ProcessEnv,
  home: string,
): { roots: string[]; configured: boolean } {
  return configured.length > 0
    ? { roots: configured.map((r) => resolve(r)), configured: true }
    : { roots: harness.defaultRoots(env, home), configured: false };
}
