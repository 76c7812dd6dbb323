// Hermes's tool names, mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  vision_analyze: 'read',
  skills_list: 'read',
  skill_view: 'read',
  search_files: 'search',
  session_search: 'search',
  web_search: 'search',
  write_file: 'edit',
  patch: 'edit',
  skill_manage: 'edit',
  terminal: 'execute',
  process: 'execute',
  execute_code: 'execute',
  web_extract: 'fetch',
  browser_navigate: 'fetch',
  browser_snapshot: 'fetch',
  browser_click: 'fetch',
  browser_type: 'fetch',
  browser_scroll: 'fetch',
  browser_back: 'fetch',
  browser_press: 'fetch',
  delegate_task: 'agent',
  mixture_of_agents: 'agent',
  todo: 'plan',
  clarify: 'communicate',
  send_message: 'communicate',
  memory: 'other',
};

const WAITS: ToolTable['waits'] = { clarify: 'question', delegate_task: 'subagents' };

export function classifyTool(name: string): ToolCall {
  // MCP tools are registered as `mcp_<server>_<tool>`.
  if (name.startsWith('mcp_')) return mcpTool(name.split('_')[1]);
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
