// OpenClaw's built-in tools (its 2026.9 agent offers `exec`, `process`, `read`, `write`, `edit`,
// `apply_patch`, `ls` directly and more behind `tool_search`; transcripts of older releases name
// pi's `bash`, `grep`, `find`), mapped to the metric contract's tool kinds. Any other is `other`.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read: 'read',
  ls: 'read',
  grep: 'search',
  find: 'search',
  web_search: 'search',
  edit: 'edit',
  write: 'edit',
  apply_patch: 'edit',
  exec: 'execute',
  bash: 'execute',
  process: 'execute',
  web_fetch: 'fetch',
};

export function classifyTool(name: string): ToolCall {
  return builtinTool(name, { kinds: KINDS });
}
