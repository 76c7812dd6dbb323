// Claude Code's tool names, mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  Read: 'read',
  NotebookRead: 'read',
  LS: 'read',
  BashOutput: 'read',
  TaskOutput: 'read',
  Glob: 'search',
  Grep: 'search',
  ToolSearch: 'search',
  WebSearch: 'search',
  Edit: 'edit',
  MultiEdit: 'edit',
  Write: 'edit',
  NotebookEdit: 'edit',
  Bash: 'execute',
  PowerShell: 'execute',
  KillShell: 'execute',
  Monitor: 'execute',
  Skill: 'execute',
  SlashCommand: 'execute',
  WebFetch: 'fetch',
  Agent: 'agent',
  Task: 'agent',
  SendMessage: 'agent',
  TaskStop: 'agent',
  TodoWrite: 'plan',
  TaskCreate: 'plan',
  TaskUpdate: 'plan',
  TaskList: 'plan',
  TaskGet: 'plan',
  ExitPlanMode: 'plan',
  EnterPlanMode: 'switch_mode',
  EnterWorktree: 'switch_mode',
  ExitWorktree: 'switch_mode',
  AskUserQuestion: 'communicate',
  think: 'think',
  Think: 'think',
};

const WAITS: ToolTable['waits'] = {
  AskUserQuestion: 'question',
  // ExitPlanMode shows the plan and waits for the user to approve it.
  ExitPlanMode: 'approval',
  Agent: 'subagents',
  Task: 'subagents',
};

export function classifyTool(name: string): ToolCall {
  if (name.startsWith('mcp__')) return mcpTool(name.slice(5).split('__')[0]);
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
