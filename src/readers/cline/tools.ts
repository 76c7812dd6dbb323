// Cline CLI's built-in tools, mapped to the metric contract's tool kinds: those Cline 3.0.65
// offered the model in the captures (its team_* tools run and talk to teammates: agents).

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read_files: 'read',
  search_codebase: 'search',
  editor: 'edit',
  run_commands: 'execute',
  fetch_web_content: 'fetch',
  ask_question: 'communicate',
  spawn_agent: 'agent',
};

const WAITS: ToolTable['waits'] = { ask_question: 'question', spawn_agent: 'subagents' };

export function classifyTool(name: string): ToolCall {
  if (name.startsWith('team_')) return { tool: name, kind: 'agent' };
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
