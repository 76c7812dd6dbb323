// Tool calls as the metric contract labels them, whatever the harness: a built-in tool by its
// name and kind, an MCP tool by its server only, any other name as `other` (tool names are label
// values: they must stay a bounded set).

import type { ToolCall, ToolKind } from '../session/types.js';

/** A harness's built-in tools by kind, and those during which the session waits. */
export interface ToolTable {
  kinds: Readonly<Record<string, ToolKind>>;
  waits?: Readonly<Record<string, NonNullable<ToolCall['waits']>>>;
}

/** A call of a built-in tool (or of an unknown one, labelled `other`). */
export function builtinTool(name: string, table: ToolTable): ToolCall {
  const kind = table.kinds[name] ?? 'other';
  const waits = table.waits?.[name];
  return { tool: kind === 'other' ? 'other' : name, kind, ...(waits ? { waits } : {}) };
}

/** A call of an MCP server's tool. */
export function mcpTool(server: string | undefined): ToolCall {
  return { tool: `mcp:${server || 'unknown'}`, kind: 'other' };
}

/**
 * The MCP call of a tool named `mcp__<server>__<tool>` or, without the prefix, `<server>__<tool>`
 * (Codex's names and Qwen Code's), or undefined for a built-in tool's name.
 */
export function doubleUnderscoreMcpTool(name: string): ToolCall | undefined {
  const parts = name.replace(/^mcp__/, '').split('__');
  return parts.length > 1 ? mcpTool(parts[0]) : undefined;
}
