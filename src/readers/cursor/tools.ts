// Cursor editor's tool names (`toolFormerData.name`, as the peer readers of its database saw
// them), mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  read_file_v2: 'read',
  list_directory: 'read',
  list_dir: 'read',
  read_lints: 'read',
  grep: 'search',
  ripgrep: 'search',
  ripgrep_raw_search: 'search',
  grep_search: 'search',
  file_search: 'search',
  glob_file_search: 'search',
  codebase_search: 'search',
  semantic_search_full: 'search',
  web_search: 'search',
  edit_file: 'edit',
  edit_file_v2: 'edit',
  search_replace: 'edit',
  write: 'edit',
  MultiEdit: 'edit',
  apply_patch: 'edit',
  delete_file: 'delete',
  run_terminal_cmd: 'execute',
  run_terminal_command: 'execute',
  run_terminal_command_v2: 'execute',
  web_fetch: 'fetch',
  task_v2: 'agent',
  task: 'agent',
  todo_write: 'plan',
  ask_question: 'communicate',
};

export function classifyTool(name: string): ToolCall {
  // MCP tools are named `mcp-<server>-<tool>` (or `mcp_<server>_<tool>`); a server name with the
  // separator in it is cut at its first one.
  const mcp = /^mcp[-_]([^-_]+)/.exec(name);
  if (mcp) return mcpTool(mcp[1]);
  return builtinTool(name, {
    kinds: KINDS,
    waits: { task_v2: 'subagents', task: 'subagents', ask_question: 'question' },
  });
}
