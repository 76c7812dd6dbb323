// Cursor agent's tool names (as other readers of its transcripts saw them), mapped to the metric
// contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  Read: 'read',
  ReadFile: 'read',
  LS: 'read',
  ListDir: 'read',
  Grep: 'search',
  Glob: 'search',
  GlobFileSearch: 'search',
  SemanticSearch: 'search',
  CodebaseSearch: 'search',
  WebSearch: 'search',
  Write: 'edit',
  Edit: 'edit',
  StrReplace: 'edit',
  MultiEdit: 'edit',
  EditNotebook: 'edit',
  ApplyPatch: 'edit',
  Delete: 'delete',
  Shell: 'execute',
  Bash: 'execute',
  RunTerminalCommand: 'execute',
  WebFetch: 'fetch',
  Subagent: 'agent',
  Task: 'agent',
  TodoWrite: 'plan',
  UpdateTodos: 'plan',
};

export function classifyTool(name: string): ToolCall {
  // MCP tools are named `mcp_<server>_<tool>` (as in Cursor's IDE); a server name with an
  // underscore is cut at its first one.
  if (name.startsWith('mcp_')) return mcpTool(name.slice(4).split('_')[0]);
  return builtinTool(name, { kinds: KINDS, waits: { Subagent: 'subagents', Task: 'subagents' } });
}
