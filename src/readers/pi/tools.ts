// pi's built-in tools (read, bash, edit, write, and the optional grep, find, ls), mapped to the
// metric contract's tool kinds. pi has no MCP and no subagent tool of its own: extensions' tools
// are `other`.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read: 'read',
  ls: 'read',
  grep: 'search',
  find: 'search',
  edit: 'edit',
  write: 'edit',
  bash: 'execute',
};

export function classifyTool(name: string): ToolCall {
  return builtinTool(name, { kinds: KINDS });
}
