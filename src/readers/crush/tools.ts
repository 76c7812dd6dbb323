// Crush's tool names, mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  view: 'read',
  ls: 'read',
  diagnostics: 'read',
  lsp_references: 'read',
  job_output: 'read',
  glob: 'search',
  grep: 'search',
  rg: 'search',
  sourcegraph: 'search',
  web_search: 'search',
  edit: 'edit',
  multiedit: 'edit',
  write: 'edit',
  bash: 'execute',
  job_kill: 'execute',
  fetch: 'fetch',
  agentic_fetch: 'fetch',
  download: 'fetch',
  agent: 'agent',
  todos: 'plan',
};

const WAITS: ToolTable['waits'] = { agent: 'subagents' };

export function classifyTool(name: string): ToolCall {
  // MCP tools are named `mcp_<server>_<tool>`.
  if (name.startsWith('mcp_')) return mcpTool(name.split('_')[1]);
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
