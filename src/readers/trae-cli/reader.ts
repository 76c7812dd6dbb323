// TRAE CLI's rollouts are Codex's, field for field (`session_meta`, `turn_context`,
// `response_item`, `event_msg` with Codex's `token_count`), read by Codex's parser. What differs:
// the root, and `token_count` has no `cache_write_input_tokens` (no cache-write series, never 0).
// No cost is recorded (its models have no list price here).

import type { LineReader } from '../reader.js';
import { codex, type CodexState } from '../codex/reader.js';
import { traeCli as where } from './where.js';

export const traeCli: LineReader<CodexState> = {
  ...codex,
  ...where,
  unrecorded: ['cache_write'],
};
