// OpenCode's (and Kilo's) tool names, mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { serverOf } from '../mcp.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read: 'read',
  list: 'read',
  ls: 'read',
  lsp: 'read',
  todoread: 'plan',
  glob: 'search',
  grep: 'search',
  codesearch: 'search',
  websearch: 'search',
  write: 'edit',
  edit: 'edit',
  multiedit: 'edit',
  apply_patch: 'edit',
  patch: 'edit',
  bash: 'execute',
  shell: 'execute',
  skill: 'execute',
  webfetch: 'fetch',
  task: 'agent',
  todowrite: 'plan',
  plan_enter: 'switch_mode',
  plan_exit: 'switch_mode',
  question: 'communicate',
  batch: 'other',
  invalid: 'other',
};

const WAITS: ToolTable['waits'] = { question: 'question', task: 'subagents' };

export function classifyTool(name: string, servers: () => readonly string[] = () => []): ToolCall {
  // MCP tools are named `<server>_<tool>` (built-in names with an underscore are in the table): the
  // configured server names say where a server's name ends.
  if (KINDS[name] === undefined && name.includes('_')) return mcpTool(serverOf(name, '_', servers()));
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
