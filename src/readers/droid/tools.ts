// Droid's built-in tools, mapped to the metric contract's tool kinds. The captures show Read, LS,
// Execute, Grep, Glob, ToolSearch, Skill and ConnectorSearch (offered by `droid exec`); the others
// are those of the interactive CLI.

import type { ToolCall, ToolKind } from '../../session/types.js';
import { builtinTool, type ToolTable } from '../tools.js';

const KINDS: Record<string, ToolKind> = {
  Read: 'read',
  LS: 'read',
  Grep: 'search',
  Glob: 'search',
  ToolSearch: 'search',
  ConnectorSearch: 'search',
  WebSearch: 'search',
  Create: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  ApplyPatch: 'edit',
  Execute: 'execute',
  Skill: 'execute',
  FetchUrl: 'fetch',
  Task: 'agent',
  TodoWrite: 'plan',
  ExitSpecMode: 'plan',
};

const WAITS: ToolTable['waits'] = {
  // The spec is shown and waits for the person to approve it.
  ExitSpecMode: 'approval',
  Task: 'subagents',
};

export function classifyTool(name: string): ToolCall {
  return builtinTool(name, { kinds: KINDS, waits: WAITS });
}
