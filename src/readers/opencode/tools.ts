// OpenCode's (and Kilo's) tool names, mapped to the metric contract's tool kinds.

import type { ToolCall } from '../reader.js';
import type { ToolKind } from '../../session/types.js';

const KINDS: Record<string, ToolKind> = {
  read: 'read', list: 'read', ls: 'read', lsp: 'read', todoread: 'plan',
  glob: 'search', grep: 'search', codesearch: 'search', websearch: 'search',
  write: 'edit', edit: 'edit', multiedit: 'edit', apply_patch: 'edit', patch: 'edit',
  bash: 'execute', shell: 'execute', skill: 'execute',
  webfetch: 'fetch',
  task: 'agent',
  todowrite: 'plan',
  plan_enter: 'switch_mode', plan_exit: 'switch_mode',
  question: 'communicate',
  batch: 'other', invalid: 'other',
};

export function classifyTool(name: string): ToolCall {
  const kind = KINDS[name];
  if (kind === undefined) {
    // MCP tools are named `<server>_<tool>`; any other unknown name is not a label of its own.
    const server = name.includes('_') ? name.split('_')[0] : undefined;
    return server ? { tool: `mcp:${server}`, kind: 'other' } : { tool: 'other', kind: 'other' };
  }
  if (name === 'question') return { tool: name, kind, waits: 'question' };
  if (name === 'task') return { tool: name, kind, waits: 'subagents' };
  return { tool: name, kind };
}
