// What Antigravity CLI's conversation database holds, decoded from its protobuf records: only the
// fields the reader uses. Field numbers were read by others from the descriptors embedded in the
// agy 1.1–1.2 binaries (see docs/harnesses.md); the CLI is closed source.

import { decode, message, messages, text, uint, uints, type Message } from '../protobuf.js';
import { columnsOf, type Db } from '../sqlite.js';

// gemini_coder.Step
const STEP = { type: 1, status: 4, metadata: 5, plannerResponse: 20 } as const;
// CortexStepMetadata
const META = { createdAt: 1, toolCall: 4, modelUsage: 9, sourceTrajectoryStepInfo: 20 } as const;
// ModelUsageStats
const USAGE = { input: 2, output: 3, cacheWrite: 4, cacheRead: 5, thinking: 9 } as const;

export const STEP_TYPE = { userInput: 14, plannerResponse: 15, errorMessage: 17 } as const;
/**
 * CortexStepStatus. DONE (3) is inferred (the descriptors name no numbers for it), and so is
 * WAITING (9) being the permission prompt; a canceled step's number is not known.
 */
export const STEP_STATUS = { done: 3, error: 7, waiting: 9 } as const;
const IN_FLIGHT = new Set([1, 2, 8, 9, 11]); // pending, running, generating, waiting, queued

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The thinking part of output, where the record gives it. */
  thinking: number;
}

export interface ToolCallRef {
  id: string;
  name: string;
}

export interface Step {
  idx: number;
  type: number;
  status: number;
  /** ms */
  createdAt: number;
  /** The trajectory the step belongs to (a rewind starts another and reuses step numbers). */
  trajectory: string;
  /** The tool calls a planner response makes. */
  calls: ToolCallRef[];
  /** The call a tool step executes. */
  executes?: string;
  usage?: Usage;
}

export interface Generation {
  idx: number;
  model?: string;
  usage: Usage;
  stepIndices: number[];
}

export interface Conversation {
  steps: Step[];
  generations: Generation[];
  /** The model the executor was configured with (`…-low|medium|high` names the effort). */
  configuredModel?: string;
  /** Records that could not be used, by reason. */
  skipped: string[];
}

export const inFlight = (status: number) => IN_FLIGHT.has(status);

function usageOf(m: Message | undefined): Usage | undefined {
  if (!m) return undefined;
  return {
    input: uint(m, USAGE.input),
    output: uint(m, USAGE.output),
    cacheRead: uint(m, USAGE.cacheRead),
    cacheWrite: uint(m, USAGE.cacheWrite),
    thinking: uint(m, USAGE.thinking),
  };
}

/** A step from its payload, checked against the table's copy of its type and status. */
function decodeStep(
  idx: number,
  type: number,
  status: number,
  payload: Buffer,
): Step | 'parse_error' | 'unknown_shape' {
  const p = decode(payload);
  if (!p) return 'parse_error';
  // The side columns repeat payload fields 1 and 4: when they differ the layout changed.
  if (uint(p, STEP.type) !== type || uint(p, STEP.status) !== status) return 'unknown_shape';
  const meta = message(p, STEP.metadata);
  const created = message(meta, META.createdAt);
  const planner = message(p, STEP.plannerResponse);
  return {
    idx,
    type,
    status,
    createdAt: uint(created, 1) * 1000 + Math.floor(uint(created, 2) / 1e6),
    trajectory: text(message(meta, META.sourceTrajectoryStepInfo), 1) ?? '',
    calls: messages(planner, 7).flatMap((c) => {
      const id = text(c, 1);
      return id ? [{ id, name: text(c, 2) ?? '' }] : [];
    }),
    executes: text(message(meta, META.toolCall), 1),
    usage: usageOf(message(meta, META.modelUsage)),
  };
}

/** A model generation (gen_metadata): its usage and model, and the steps it produced. */
function decodeGeneration(idx: number, data: Buffer): Generation | undefined {
  const g = decode(data);
  const chat = message(g, 1);
  const usage = usageOf(message(chat, 4));
  if (!g || !usage) return undefined;
  return { idx, model: text(chat, 19) || text(chat, 21) || undefined, usage, stepIndices: uints(g, 2) };
}

const TABLES: Record<string, string[]> = {
  steps: ['idx', 'step_type', 'status', 'step_payload'],
  gen_metadata: ['idx', 'data'],
  executor_metadata: ['idx', 'data'],
};
// PRAGMA user_version of the databases of agy 1.0.9 to 1.2.0.
const USER_VERSION = 1;

/** The conversation a database holds, or undefined when its schema is not the one known. */
export function readConversation(db: Db): Conversation | undefined {
  if (db.pragma('user_version', { simple: true }) !== USER_VERSION) return undefined;
  for (const [table, cols] of Object.entries(TABLES)) {
    const have = columnsOf(db, table);
    if (cols.some((c) => !have.has(c))) return undefined;
  }
  const out: Conversation = { steps: [], generations: [], skipped: [] };
  const steps = db.prepare('SELECT idx, step_type, status, step_payload FROM steps ORDER BY idx').all() as {
    idx: number;
    step_type: number;
    status: number;
    step_payload: unknown;
  }[];
  for (const r of steps) {
    const s = Buffer.isBuffer(r.step_payload)
      ? decodeStep(r.idx, r.step_type, r.status, r.step_payload)
      : 'unknown_shape';
    if (typeof s === 'string') out.skipped.push(s);
    else out.steps.push(s);
  }
  for (const r of db.prepare('SELECT idx, data FROM gen_metadata ORDER BY idx').all() as {
    idx: number;
    data: unknown;
  }[]) {
    const g = Buffer.isBuffer(r.data) ? decodeGeneration(r.idx, r.data) : undefined;
    if (g) out.generations.push(g);
    else out.skipped.push('unknown_shape');
  }
  const exec = db.prepare('SELECT data FROM executor_metadata ORDER BY idx DESC LIMIT 1').get() as
    { data: unknown } | undefined;
  const config = Buffer.isBuffer(exec?.data) ? message(message(decode(exec.data), 10), 1) : undefined;
  out.configuredModel = text(config, 28);
  return out;
}
