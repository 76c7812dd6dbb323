// Continue CLI's built-in tools, mapped to the metric contract's tool kinds: those `cn -p --auto`
// offered the model in the captures (Read, Write, List, Bash, Fetch, Checklist, CheckBackgroundJob,
// AskQuestion, Edit, Exit, Skills), and MultiEdit, Search and Subagent of other modes.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  Read: 'read',
  List: 'read',
  CheckBackgroundJob: 'read',
  Search: 'search',
  Write: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  Bash: 'execute',
  Skills: 'execute',
  Fetch: 'fetch',
  Subagent: 'agent',
  Checklist: 'plan',
  AskQuestion: 'communicate',
  Exit: 'communicate',
};

const WAITS: ToolTable['waits'] = { AskQuestion: 'question' };

export function classifyTool(name: string): ToolCall {
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
