// The hook spool: one line per lifecycle event a harness's hook reported, appended by
// `coding-agent-exporter hook` in the state folder and read by the running exporter. A line holds
// what a status needs (the event, the session, the tool's name, the time, the transcript and the
// folder), never a prompt or a tool's input. The hook command loads this module, its appending
// (append.ts, files/open.ts) and the configuration schema, nothing else of the exporter: it runs
// on every event of every agent.

import type { HarnessId, HookPhase, HookState } from '../session/types.js';

export const SPOOL_FILE = 'hooks.jsonl';
/** Past this size a hook moves the spool aside (hooks/append.ts), and the next one starts a new one. */
export const SPOOL_MAX_BYTES = 1 << 20;
/**
 * The line the exporter appends to a spool moved aside before it reads it to the end: what is
 * written after it is not read, and the hook that wrote it writes it again (hooks/append.ts).
 */
export const SPOOL_SEAL = '{"sealed":true}';
/** The harnesses whose hooks we know (docs/hooks.md). */
export const HOOK_HARNESSES = [
  'claude-code',
  'gemini-cli',
  'qwen-code',
  'copilot-cli',
  'codex',
] as const satisfies readonly HarnessId[];
export type HookHarness = (typeof HOOK_HARNESSES)[number];

export interface HookRecord extends HookState {
  harness: HookHarness;
  session: string;
  /** The harness's own name of the event (`PreToolUse`, `BeforeTool`, `notify`). */
  event: string;
  transcript?: string;
  cwd?: string;
}

// Tools that ask the person a question (their approval prompt is the question itself).
const QUESTION_TOOLS = new Set(['AskUserQuestion', 'ask_user', 'ask_user_question', 'request_user_input']);

// Each harness's events by the phase they start; events not listed (SessionStart, PreCompress,
// SubagentStop, ...) say nothing a status needs and are not written.
const PHASES: Record<string, HookPhase> = {
  userpromptsubmit: 'prompt',
  userpromptsubmitted: 'prompt',
  beforeagent: 'prompt',
  pretooluse: 'tool',
  beforetool: 'tool',
  permissionrequest: 'permission',
  posttooluse: 'tool-done',
  posttoolbatch: 'tool-done',
  aftertool: 'tool-done',
  stop: 'stop',
  afteragent: 'stop',
  agentstop: 'stop',
  sessionend: 'end',
};

type Payload = Record<string, unknown>;

function text(p: Payload, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = p[k];
    if (typeof v === 'string' && v !== '') return v.slice(0, 1024);
  }
  return undefined;
}

/**
 * The spool record of one hook payload, or undefined when the event says nothing a status needs.
 * The field names are those the five CLIs sent live (test/fixtures/hooks): snake case, but
 * Copilot CLI's `sessionId` and `toolName`, and Codex's notify's `thread-id`.
 * `event`: the event named on the command line, where the payload does not name it (Copilot CLI);
 * `pid`: the process the hook ran under.
 */
export function hookRecord(
  harness: HookHarness,
  payload: Payload,
  at: number,
  event?: string,
  pid?: number,
): HookRecord | undefined {
  const name =
    text(payload, 'hook_event_name') ?? event ?? (payload.type === 'agent-turn-complete' ? 'notify' : undefined);
  const session = text(payload, 'session_id', 'sessionId', 'thread-id');
  if (!name || !session) return undefined;
  const tool = text(payload, 'tool_name', 'toolName');
  const question = tool !== undefined && QUESTION_TOOLS.has(tool);
  let phase: HookPhase | undefined = PHASES[name.toLowerCase()];
  let waits: HookState['waits'];
  if (name === 'notify') phase = payload.type === 'agent-turn-complete' ? 'stop' : undefined;
  else if (name.toLowerCase() === 'notification') {
    const type = text(payload, 'notification_type');
    const details = payload.details as Payload | undefined;
    if (type === 'permission_prompt' || type === 'ToolPermission') {
      phase = 'permission';
      waits = typeof details === 'object' && details?.type === 'ask_user' ? 'question' : 'approval';
    } else if (type === 'elicitation_dialog') {
      // Copilot CLI's question to the person (its ask_user tool): a question, not a permission.
      phase = 'tool';
      waits = 'question';
    } else if (type === 'idle_prompt') phase = 'stop';
  } else if (phase === 'permission') waits = question ? 'question' : 'approval';
  // Qwen Code asks before PreToolUse: there PreToolUse of a question tool means it was answered.
  else if (phase === 'tool' && question && harness !== 'qwen-code') waits = 'question';
  if (!phase) return undefined;
  return {
    harness,
    session,
    event: name,
    phase,
    at,
    ...(waits ? { waits } : {}),
    ...(tool ? { tool } : {}),
    ...(pid ? { pid } : {}),
    ...optional('transcript', text(payload, 'transcript_path')),
    ...optional('cwd', text(payload, 'cwd')),
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** A spool line read back, or undefined when it is not one (a torn or foreign line). */
export function parseSpoolLine(line: string): HookRecord | undefined {
  try {
    const r = JSON.parse(line) as Partial<HookRecord>;
    if (typeof r.session !== 'string' || typeof r.at !== 'number' || !HOOK_HARNESSES.includes(r.harness as HookHarness))
      return undefined;
    if (!Object.values(PHASES).includes(r.phase as HookPhase)) return undefined;
    return r as HookRecord;
  } catch {
    return undefined;
  }
}
