// The tools of Cline, Roo Code and Kilo Code's extension as their task transcripts name them: the
// `tool` field of a `tool` message (Cline's `ClineSayTool`, Roo's `ClineSayTool`), and the
// messages that are calls of their own (`command`, `use_mcp_server`, `browser_action_launch`,
// `followup`, `use_subagents`), mapped to the metric contract's tool kinds.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';
import { jsonValue, obj, str } from '../fields.js';

const KINDS: Record<string, ToolKind> = {
  readFile: 'read',
  listFilesTopLevel: 'read',
  listFilesRecursive: 'read',
  listCodeDefinitionNames: 'read',
  fetchInstructions: 'read',
  readCommandOutput: 'read',
  searchFiles: 'search',
  codebaseSearch: 'search',
  editedExistingFile: 'edit',
  newFileCreated: 'edit',
  appliedDiff: 'edit',
  insertContent: 'edit',
  searchAndReplace: 'edit',
  fileDeleted: 'delete',
  execute_command: 'execute',
  runSlashCommand: 'execute',
  webFetch: 'fetch',
  webSearch: 'fetch',
  browser_action: 'fetch',
  newTask: 'agent',
  subagent: 'agent',
  use_subagents: 'agent',
  updateTodoList: 'plan',
  switchMode: 'switch_mode',
  ask_followup_question: 'communicate',
};

const WAITS: ToolTable['waits'] = { ask_followup_question: 'question', newTask: 'subagents' };

/**
 * The call a message makes, by its kind of message and its text, or undefined when it is no call.
 * The text is parsed (JSON) only for the kinds whose text names the tool: every other message's
 * text (a command's output, an answer) is prose, and trying it as JSON cost a first read dearly.
 */
export function callOf(kind: string | undefined, text: string | undefined): ToolCall | undefined {
  const fields = () => obj(jsonValue(text ?? ''));
  switch (kind) {
    case 'tool':
      return builtinTool(str(fields()?.tool) ?? 'unknown', { kinds: KINDS, waits: WAITS });
    case 'command':
      return builtinTool('execute_command', { kinds: KINDS });
    case 'use_mcp_server':
      return mcpTool(str(fields()?.serverName));
    case 'browser_action_launch':
      return builtinTool('browser_action', { kinds: KINDS });
    // Cline 3.x running subagents (their usage follows in a `subagent_usage` message).
    case 'use_subagents':
      return builtinTool('use_subagents', { kinds: KINDS });
    // The `ask_followup_question` tool's question to the user.
    case 'followup':
      return builtinTool('ask_followup_question', { kinds: KINDS, waits: WAITS });
    default:
      return undefined;
  }
}
