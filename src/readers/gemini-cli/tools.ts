// Gemini CLI's tool names, mapped to the metric contract's tool kinds, and what a finished tool
// call record says about failure and changed lines.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { serverOf } from '../mcp.js';
import { builtinTool, mcpTool } from '../tools.js';
import { countUnifiedDiff, lineCount, num, obj, str, type Json } from '../fields.js';

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  read_many_files: 'read',
  list_directory: 'read',
  get_internal_docs: 'read',
  read_mcp_resource: 'read',
  list_mcp_resources: 'read',
  glob: 'search',
  grep_search: 'search',
  search_file_content: 'search',
  google_web_search: 'search',
  write_file: 'edit',
  replace: 'edit',
  run_shell_command: 'execute',
  activate_skill: 'execute',
  web_fetch: 'fetch',
  invoke_agent: 'agent',
  complete_task: 'agent',
  write_todos: 'plan',
  exit_plan_mode: 'plan',
  tracker_create_task: 'plan',
  tracker_update_task: 'plan',
  tracker_get_task: 'plan',
  tracker_list_tasks: 'plan',
  tracker_add_dependency: 'plan',
  tracker_visualize: 'plan',
  enter_plan_mode: 'switch_mode',
  ask_user: 'communicate',
};

export function classifyTool(name: string, servers: readonly string[] = []): ToolCall {
  // MCP tools are named `mcp_<server>_<tool>` (older versions `<server>__<tool>`): a server whose
  // name has an underscore is told by the configured names, else cut at its first underscore.
  if (name.startsWith('mcp_')) return mcpTool(serverOf(name.slice(4), '_', servers));
  const dunder = name.indexOf('__');
  if (dunder > 0) return mcpTool(name.slice(0, dunder));
  return builtinTool(name, { kinds: KINDS });
}

/**
 * A finished call failed: its status says so, its response carries an error, or (a shell
 * command, whose status stays `success`) its output reports a non-zero exit code.
 */
export function toolFailed(call: Json): boolean {
  if (call.status === 'error') return true;
  for (const part of Array.isArray(call.result) ? call.result : []) {
    const response = obj(obj(obj(part)?.functionResponse)?.response);
    if (response?.error !== undefined) return true;
    if (/(^|\n)Exit Code: [1-9-]/.test(str(response?.output) ?? '')) return true;
  }
  return false;
}

/**
 * Lines a `write_file` or `replace` call changed, from its result's FileDiff: the model's part of
 * `diffStat` (what the user edited in the confirmation editor is the user's), else the diff.
 */
export function changedLines(call: Json): { added: number; removed: number } {
  const display = obj(call.resultDisplay);
  const stat = obj(display?.diffStat);
  if (stat) return { added: num(stat.model_added_lines), removed: num(stat.model_removed_lines) };
  const diff = str(display?.fileDiff);
  if (diff) return countUnifiedDiff(diff);
  const created = display?.isNewFile === true ? str(display.newContent) : undefined;
  return { added: created ? lineCount(created) : 0, removed: 0 };
}
