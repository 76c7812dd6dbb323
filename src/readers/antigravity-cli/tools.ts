// Antigravity's tool names (those of Windsurf's Cascade, which it grew from, as other readers saw
// them), mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  view_file: 'read',
  view_file_outline: 'read',
  view_code_item: 'read',
  list_dir: 'read',
  read_file: 'read',
  grep_search: 'search',
  find_by_name: 'search',
  codebase_search: 'search',
  search_web: 'search',
  write_to_file: 'edit',
  replace_file_content: 'edit',
  multi_replace_file_content: 'edit',
  edit_file: 'edit',
  run_command: 'execute',
  command_status: 'execute',
  send_command_input: 'execute',
  read_url_content: 'fetch',
  view_content_chunk: 'fetch',
  invoke_subagent: 'agent',
  define_subagent: 'agent',
  task_boundary: 'plan',
  update_plan: 'plan',
  notify_user: 'communicate',
  ask_permission: 'communicate',
};

export function classifyTool(name: string): ToolCall {
  // MCP tools are named `mcp_<server>_<tool>`; a server name with an underscore is cut at its first one.
  if (name.startsWith('mcp_')) return mcpTool(name.slice(4).split('_')[0]);
  return builtinTool(name, { kinds: KINDS, waits: { invoke_subagent: 'subagents' } });
}
