// Claude Code's tool names, mapped to the metric contract's tool kinds.

import type { ToolCall } from '../reader.js';
import type { ToolKind } from '../../session/types.js';

const KINDS: Record<string, ToolKind> = {
  Read: 'read', NotebookRead: 'read', LS: 'read', BashOutput: 'read', TaskOutput: 'read',
  Glob: 'search', Grep: 'search', ToolSearch: 'search', WebSearch: 'search',
  Edit: 'edit', MultiEdit: 'edit', Write: 'edit', NotebookEdit: 'edit',
  Bash: 'execute', PowerShell: 'execute', KillShell: 'execute', Monitor: 'execute', Skill: 'execute', SlashCommand: 'execute',
  WebFetch: 'fetch',
  Agent: 'agent', Task: 'agent', SendMessage: 'agent', TaskStop: 'agent',
  TodoWrite: 'plan', TaskCreate: 'plan', TaskUpdate: 'plan', TaskList: 'plan', TaskGet: 'plan', ExitPlanMode: 'plan',
  EnterPlanMode: 'switch_mode', EnterWorktree: 'switch_mode', ExitWorktree: 'switch_mode',
  AskUserQuestion: 'communicate',
  think: 'think', Think: 'think',
};

export function classifyTool(name: string): ToolCall {
  if (name.startsWith('mcp__')) {
    const server = name.slice(5).split('__')[0] || 'unknown';
    return { tool: `mcp:${server}`, kind: 'other' };
  }
  const kind = KINDS[name] ?? 'other';
  if (name === 'AskUserQuestion') return { tool: name, kind, waits: 'question' };
  // ExitPlanMode shows the plan and waits for the user to approve it.
  if (name === 'ExitPlanMode') return { tool: name, kind, waits: 'approval' };
  if (name === 'Agent' || name === 'Task') return { tool: name, kind, waits: 'subagents' };
  return { tool: kind === 'other' ? 'other' : name, kind };
}
