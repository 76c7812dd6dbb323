// Qwen Code's tool names (older names where they were renamed), mapped to the metric contract's
// tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, doubleUnderscoreMcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  read_many_files: 'read',
  list_directory: 'read',
  lsp: 'read',
  glob: 'search',
  grep_search: 'search',
  search_file_content: 'search',
  web_search: 'search',
  tool_search: 'search',
  edit: 'edit',
  replace: 'edit',
  write_file: 'edit',
  run_shell_command: 'execute',
  skill: 'execute',
  web_fetch: 'fetch',
  task: 'agent',
  agent: 'agent',
  todo_write: 'plan',
  exit_plan_mode: 'plan',
  ask_user_question: 'communicate',
};

const WAITS: ToolTable['waits'] = {
  ask_user_question: 'question',
  // exit_plan_mode shows the plan and waits for the user to approve it.
  exit_plan_mode: 'approval',
  task: 'subagents',
  agent: 'subagents',
};

export function classifyTool(name: string): ToolCall {
  // MCP tools are named `mcp__<server>__<tool>`, or `<server>__<tool>` when names collide.
  return doubleUnderscoreMcpTool(name) ?? builtinTool(name, { kinds: KINDS, waits: WAITS });
}
