// Amp's built-in tools, mapped to the metric contract's tool kinds (names as its threads record
// them; any other name is `other`).

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  Read: 'read',
  read_file: 'read',
  list_directory: 'read',
  Grep: 'search',
  glob: 'search',
  codebase_search_agent: 'search',
  web_search: 'search',
  edit_file: 'edit',
  create_file: 'edit',
  undo_edit: 'edit',
  format_file: 'edit',
  Bash: 'execute',
  read_web_page: 'fetch',
  Task: 'agent',
  oracle: 'agent',
  todo_write: 'plan',
  todo_read: 'plan',
};

export function classifyTool(name: string): ToolCall {
  return builtinTool(name, { kinds: KINDS });
}
