// Kodelet's tool names, mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  file_read: 'read',
  read_conversation: 'read',
  view_image: 'read',
  image_recognition: 'read',
  grep_tool: 'search',
  glob_tool: 'search',
  openai_web_search: 'search',
  file_write: 'edit',
  file_edit: 'edit',
  file_multi_edit: 'edit',
  apply_patch: 'edit',
  bash: 'execute',
  skill: 'execute',
  code_execution: 'execute',
  web_fetch: 'fetch',
  subagent: 'agent',
  todo_read: 'plan',
  todo_write: 'plan',
  get_goal: 'plan',
  update_goal: 'plan',
  thinking: 'think',
};

const WAITS: ToolTable['waits'] = { subagent: 'subagents' };

export function classifyTool(name: string): ToolCall {
  // MCP tools (Kodelet before 0.4.53) are named `mcp__<server>_<tool>`.
  if (name.startsWith('mcp__')) return mcpTool(name.slice(5).split('_')[0]);
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
