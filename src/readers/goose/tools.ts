// goose's tool names, `<extension>__<tool>`, mapped to the metric contract's tool kinds. Tools of
// goose's own extensions keep their name; any other extension is an MCP server.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, mcpTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  developer__shell: 'execute',
  developer__text_editor: 'edit',
  developer__analyze: 'read',
  developer__screen_capture: 'read',
  developer__image_processor: 'read',
  developer__list_windows: 'read',
  computercontroller__web_scrape: 'fetch',
  computercontroller__automation_script: 'execute',
  computercontroller__computer_control: 'execute',
  computercontroller__cache: 'other',
  dynamic_task__create_task: 'agent',
  subagent__execute_task: 'agent',
  todo__todo_read: 'plan',
  todo__todo_write: 'plan',
  chatrecall__chatrecall: 'search',
};

const WAITS: ToolTable['waits'] = { dynamic_task__create_task: 'subagents', subagent__execute_task: 'subagents' };

// Extensions built into goose (the others are MCP servers).
const BUILTIN = new Set([
  'developer',
  'computercontroller',
  'memory',
  'dynamic_task',
  'subagent',
  'todo',
  'platform',
  'chatrecall',
  'extensionmanager',
  'autovisualiser',
  'tutorial',
  'skills',
  'code_execution',
  'apps',
  'summon',
]);

export function classifyTool(name: string): ToolCall {
  const at = name.indexOf('__');
  const extension = at > 0 ? name.slice(0, at) : undefined;
  if (extension && !BUILTIN.has(extension)) return mcpTool(extension);
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
