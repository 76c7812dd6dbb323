// Copilot CLI's tool names, mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  view: 'read',
  read_bash: 'read',
  list_bash: 'read',
  read_powershell: 'read',
  list_powershell: 'read',
  glob: 'search',
  grep: 'search',
  web_search: 'search',
  edit: 'edit',
  create: 'edit',
  str_replace_editor: 'edit',
  apply_patch: 'edit',
  bash: 'execute',
  write_bash: 'execute',
  stop_bash: 'execute',
  powershell: 'execute',
  write_powershell: 'execute',
  stop_powershell: 'execute',
  sql: 'execute',
  skill: 'execute',
  web_fetch: 'fetch',
  fetch_copilot_cli_documentation: 'fetch',
  task: 'agent',
  read_agent: 'agent',
  write_agent: 'agent',
  list_agents: 'agent',
  update_todo: 'plan',
  exit_plan_mode: 'plan',
  ask_user: 'communicate',
  report_intent: 'communicate',
  think: 'think',
};

const WAITS: ToolTable['waits'] = {
  ask_user: 'question',
  // exit_plan_mode shows the plan and waits for the user to accept it.
  exit_plan_mode: 'approval',
  task: 'subagents',
};

/** A tool call by name; an MCP tool (its start names its server) is `mcp:<server>`. */
export function classifyTool(name: string, mcpServer?: string): ToolCall {
  if (mcpServer) return mcpTool(mcpServer);
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
