// One session of a ground-truth file (shared longtail fixture generator): `null` where the
// harness does not record the value.

import type { HarnessId } from '../../src/session/types.js';

export interface Truth {
  harness: HarnessId;
  session_id: string;
  chain?: string[];
  parent_session_id?: string;
  project: string;
  /** Where the ground truth gives it (the wave-3 samples), with `$HOME` for the home folder. */
  cwd?: string;
  model: string;
  tokens: Record<'input' | 'output' | 'cache_read' | 'cache_write' | 'reasoning', number | null>;
  cost_usd: number;
  tool_calls: number | null;
  tool_errors: number | null;
  prompts: number | null;
  turns: Record<'completed' | 'failed' | 'interrupted', number> | null;
  compactions?: number | null;
  subagents: number;
  status: string;
  status_reason: string;
  context?: { used: number; limit: number };
}
