// Every harness the exporter reads: one line per reader. The collector name, the config section
// `collectors.<name>` and the `harness` label are the same id.

import { claudeCode } from '../readers/claude-code/reader.js';
import { codex } from '../readers/codex/reader.js';
import { kilo } from '../readers/kilo/reader.js';
import { opencode } from '../readers/opencode/reader.js';
import { qwenCode } from '../readers/qwen-code/reader.js';
import { copilotCli } from '../readers/copilot-cli/reader.js';
import { geminiCli } from '../readers/gemini-cli/reader.js';
import { droid } from '../readers/droid/reader.js';
import { pi } from '../readers/pi/reader.js';
import { aider } from '../readers/aider/reader.js';
import { cursorAgent } from '../readers/cursor-agent/reader.js';
import { antigravityCli } from '../readers/antigravity-cli/reader.js';
import { hermes } from '../readers/hermes/reader.js';
import { goose } from '../readers/goose/reader.js';
import { kodelet } from '../readers/kodelet/reader.js';
import { crush } from '../readers/crush/reader.js';
import { continueCli } from '../readers/continue-cli/reader.js';
import { cline } from '../readers/cline/reader.js';
import { rooCode } from '../readers/roo-code/reader.js';
import { kimiCli } from '../readers/kimi-cli/reader.js';
import { openclaw } from '../readers/openclaw/reader.js';
import { amp } from '../readers/amp/reader.js';
import { auggie } from '../readers/auggie/reader.js';
import { junie } from '../readers/junie/reader.js';
import type { Reader } from '../readers/reader.js';
import type { HarnessId } from '../session/types.js';

// Each reader has its own parser state: only the reader itself looks inside it.
export const READERS: Record<HarnessId, Reader<unknown>> = {
  'claude-code': claudeCode,
  codex,
  opencode,
  kilo,
  'qwen-code': qwenCode,
  'copilot-cli': copilotCli,
  'gemini-cli': geminiCli,
  droid,
  pi,
  aider,
  'cursor-agent': cursorAgent,
  'antigravity-cli': antigravityCli,
  hermes,
  goose,
  kodelet,
  crush,
  'continue-cli': continueCli,
  cline,
  'roo-code': rooCode,
  'kimi-cli': kimiCli,
  openclaw,
  amp,
  auggie,
  junie,
};
