// Qoder CLI's transcripts are Claude Code's, line for line (`type`, `uuid`, `message{role,
// content, usage, stop_reason}`, `sessionId`, `cwd`; `projects/<folder with / as ->/<session>.jsonl`
// and subagents in `<session>/subagents/agent-<id>.jsonl`), read by Claude Code's parser. What
// differs: the root, and the usage: Qoder writes every token count as 0 and bills credits
// (`usage.credits`), which the metrics catalog has no series for. So no token and no cost series
// (the only verified captures, of v1.1.28, hold zeros; whether the China build writes counts is
// not known). The model is mostly `auto` (the model served is not recorded). Not read:
// `<session>-session.json` (its token totals are 0 too) and the segment logs under `logs/`.

import type { LineReader } from '../reader.js';
import { claudeCode, type ClaudeState } from '../claude-code/reader.js';
import { TOKEN_TYPES } from '../../session/vocabulary.js';
import { qoder as where } from './where.js';

// Claude Code's pid files (`registry`) are Claude's alone: none is known of Qoder.
const { registry: _claudeOnly, ...parser } = claudeCode;

export const qoder: LineReader<ClaudeState> = {
  ...parser,
  ...where,
  unrecorded: TOKEN_TYPES,
};
