// Kimi CLI's built-in tools (`src/kimi_cli/tools/`), mapped to the metric contract's tool kinds;
// any other name is an MCP server's tool.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  ReadFile: 'read',
  ReadMediaFile: 'read',
  Glob: 'search',
  Grep: 'search',
  WriteFile: 'edit',
  StrReplaceFile: 'edit',
  Shell: 'execute',
  FetchURL: 'fetch',
  SearchWeb: 'fetch',
  Think: 'think',
  SetTodoList: 'plan',
  Agent: 'agent',
  Task: 'agent',
  AskUserQuestion: 'communicate',
};

const WAITS: ToolTable['waits'] = { AskUserQuestion: 'question', Agent: 'subagents', Task: 'subagents' };

export function classifyTool(name: string): ToolCall {
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
