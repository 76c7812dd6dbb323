// Zed's agent tools (`crates/agent/src/tools/`), mapped to the metric contract's tool kinds. An MCP
// server's tools carry their own names, with nothing that tells them from an unknown built-in one:
// they are `other`.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  list_directory: 'read',
  diagnostics: 'read',
  now: 'read',
  grep: 'search',
  find_path: 'search',
  web_search: 'search',
  edit_file: 'edit',
  streaming_edit_file: 'edit',
  write_file: 'edit',
  save_file: 'edit',
  restore_file_from_disk: 'edit',
  copy_path: 'edit',
  move_path: 'edit',
  delete_path: 'edit',
  create_directory: 'edit',
  terminal: 'execute',
  fetch: 'fetch',
  spawn_agent: 'agent',
  subagent: 'agent',
  update_plan: 'plan',
};

export function classifyTool(name: string): ToolCall {
  return builtinTool(name, { kinds: KINDS });
}
