// Copilot Chat's tools, mapped to the metric contract's tool kinds. The journal names a tool by the
// id VS Code registered it under (`copilot_readFile`), the extension's transcript by the name the
// model calls it (`read_file`): both are labelled by the model's name, so that a call and its
// failure (which only the transcript records) have one label.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool } from '../tools.js';

// The extension's registered ids of its own tools (`ContributedToolName`), by the model's name for
// them (`ToolName`; both in the extension's `src/extension/tools/common/toolNames.ts`).
const MODEL_NAMES: Record<string, string> = {
  copilot_readFile: 'read_file',
  copilot_listDirectory: 'list_dir',
  copilot_findFiles: 'file_search',
  copilot_findTextInFiles: 'grep_search',
  copilot_searchCodebase: 'semantic_search',
  copilot_listCodeUsages: 'list_code_usages',
  copilot_searchWorkspaceSymbols: 'search_workspace_symbols',
  copilot_getErrors: 'get_errors',
  copilot_getChangedFiles: 'get_changed_files',
  copilot_applyPatch: 'apply_patch',
  copilot_insertEdit: 'insert_edit_into_file',
  copilot_replaceString: 'replace_string_in_file',
  copilot_multiReplaceString: 'multi_replace_string_in_file',
  copilot_createFile: 'create_file',
  copilot_createDirectory: 'create_directory',
  copilot_editNotebook: 'edit_notebook_file',
  copilot_runNotebookCell: 'run_notebook_cell',
  copilot_readNotebookCellOutput: 'read_notebook_cell_output',
  copilot_runTests1: 'run_tests',
  copilot_viewImage: 'view_image',
  copilot_think: 'think',
  copilot_createAndRunTask: 'create_and_run_task',
  copilot_fetchWebPage: 'fetch_webpage',
  copilot_githubRepo: 'github_repo',
  copilot_memory: 'memory',
};

const KINDS: Record<string, ToolKind> = {
  read_file: 'read',
  view_image: 'read',
  list_dir: 'read',
  get_errors: 'read',
  get_changed_files: 'read',
  get_terminal_output: 'read',
  read_notebook_cell_output: 'read',
  file_search: 'search',
  grep_search: 'search',
  semantic_search: 'search',
  list_code_usages: 'search',
  search_workspace_symbols: 'search',
  apply_patch: 'edit',
  insert_edit_into_file: 'edit',
  replace_string_in_file: 'edit',
  multi_replace_string_in_file: 'edit',
  create_file: 'edit',
  create_directory: 'edit',
  edit_notebook_file: 'edit',
  run_in_terminal: 'execute',
  run_task: 'execute',
  create_and_run_task: 'execute',
  run_tests: 'execute',
  runTests: 'execute',
  run_notebook_cell: 'execute',
  fetch_webpage: 'fetch',
  github_repo: 'fetch',
  runSubagent: 'agent',
  search_subagent: 'agent',
  execution_subagent: 'agent',
  manage_todo_list: 'plan',
  think: 'think',
};

/** A call of the tool a record names (either name); a subagent's part is an agent call whatever its tool. */
export function classifyTool(name: string, subagent = false): ToolCall {
  const call = builtinTool(MODEL_NAMES[name] ?? name, { kinds: KINDS });
  return subagent && call.kind !== 'agent' ? { tool: 'runSubagent', kind: 'agent' } : call;
}
