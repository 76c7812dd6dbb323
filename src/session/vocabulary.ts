// The words every layer shares: harnesses, token types, statuses, outcomes, skip reasons, plan
// states and tool kinds. Readers report in them, the store keeps them, the metrics catalog and
// the views show them; this file imports nothing, so every layer can point down to it.

/**
 * Every harness read, by id. The configuration's `collectors` sections follow this order
 * (config/schema.ts); src/collectors/registry.ts, keyed by these ids, must have a reader for each.
 */
export const HARNESSES = [
  'claude-code',
  'codex',
  'opencode',
  'kilo',
  'qwen-code',
  'copilot-cli',
  'gemini-cli',
  'droid',
  'pi',
  'aider',
  'cursor-agent',
  'antigravity-cli',
  'hermes',
  'goose',
  'kodelet',
  'crush',
  'continue-cli',
  'cline',
  'roo-code',
  'kimi-cli',
  'openclaw',
  'amp',
  'auggie',
  'junie',
  'trae-cli',
  'grok',
  'openhands',
  'kiro',
  'qoder',
  'zed',
  'cursor',
  'warp',
  'copilot-vscode',
] as const;

export const TOKEN_TYPES = ['input', 'output', 'cache_read', 'cache_write'] as const;
/** A record's `unsaid` where it gives every token type but reasoning (no reasoning series from it, never a false 0). */
export const NO_REASONING = ['reasoning'] as const;
/**
 * Bucket boundaries of the tokens of one model request (input with cache, output), as the OTel
 * GenAI conventions give them for gen_ai.client.token.usage: powers of 4 from 1 to 4^13.
 */
export const REQUEST_TOKEN_BOUNDARIES = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
] as const;
export const STATUSES = ['asking', 'working', 'delegating', 'done', 'error', 'idle'] as const;
export const TURN_OUTCOMES = ['completed', 'failed', 'interrupted'] as const;
/** Why records are skipped (coding_agent_exporter_skipped_records_total{reason}), each shown from the start. */
export const SKIP_REASONS = [
  'parse_error',
  'unknown_shape',
  'line_too_long',
  'file_too_large',
  'implausible_value',
  'reader_error',
] as const;
/**
 * The `window` label of usage limits, a bounded set: Claude Code's and Codex's 5-hour and weekly
 * windows (Codex's 300- and 10080-minute windows; the weekly per-model ones of Claude plans) and
 * GitHub Copilot's quotas; any other window or quota name is `other`.
 */
export const USAGE_WINDOWS = [
  '5h',
  '7d',
  '7d_opus',
  '7d_sonnet',
  'premium_interactions',
  'chat',
  'completions',
  'other',
] as const;
export const TODO_STATES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export const TOOL_KINDS = [
  'read',
  'search',
  'edit',
  'delete',
  'move',
  'execute',
  'think',
  'fetch',
  'agent',
  'plan',
  'communicate',
  'switch_mode',
  'other',
] as const;
