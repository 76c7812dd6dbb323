// `statusline`: the line Claude Code shows in its status bar, run after every message with the
// session's status as JSON on stdin. It must answer at once: it reads stdin, two rows of the state
// database (read-only) and the file it records into, and nothing else (no session file, no
// OpenTelemetry, no server; test/cli/statusline.test.ts keeps its imports few). It records the
// usage-limit windows and the session's context use for the exporter (state/statusline.ts).

import { readStdin } from '../files/stdin.js';
import { parseStatusInput, type StatusInput } from '../readers/claude-code/statusline.js';
import { readKvValue } from '../state/db.js';
import { recordStatus } from '../state/statusline.js';
import { blocksKey, UsageBlocks } from '../store/blocks.js';
import { isReset, usedLevel } from '../store/limits.js';
import { localDay, spendKey, type DaySpend } from '../store/spend.js';
import { timeLeft } from '../view/format.js';

/** The line when none can be made: a status bar shows something rather than nothing. */
export const FALLBACK = 'coding-agent-exporter: no status';

const DEFAULT_FORMAT =
  '{model} │ ctx {context} │ {session} session, {today} today │ 5h {5h} ↻{5h_resets} │ 7d {7d} ↻{7d_resets}';
// Without the windows (API keys, Bedrock, Vertex): the 5-hour block running now instead.
const BLOCK_FORMAT = '{model} │ ctx {context} │ {session} session, {today} today │ block {block} ↻{block_ends}';

export interface StatuslineOptions {
  stateDir: string;
  format?: string;
  /** ANSI colours on the percentages (off with NO_COLOR). */
  color: boolean;
  now?: number;
}

const usd = (n: number) => `$${n.toFixed(2)}`;

/** A share as a percentage, green below 75 %, yellow below 90 %, red above (usedLevel). */
function percent(ratio: number, color: boolean): string {
  const text = `${Math.round(ratio * 100)}%`;
  if (!color) return text;
  return `\x1b[${{ ok: 32, near: 33, over: 31 }[usedLevel(ratio)]}m${text}\x1b[0m`;
}

/** What the state database says: spend today (every harness) and Claude Code's block running now. */
function fromState(stateDir: string, now: number): { today?: number; blocks: UsageBlocks } {
  const blocks = new UsageBlocks();
  const spend = readKvValue(stateDir, spendKey(localDay(now)));
  const recent = readKvValue(stateDir, blocksKey('claude-code'));
  if (recent) blocks.load(blocksKey('claude-code'), recent);
  const day = spend ? (JSON.parse(spend) as DaySpend | null) : undefined;
  return { today: day ? Object.values(day).reduce((a, b) => a + b, 0) : undefined, blocks };
}

/** The placeholders of a template and their values (an unknown one is left as written). */
function fields(
  input: StatusInput,
  state: ReturnType<typeof fromState>,
  color: boolean,
  now: number,
): Record<string, string> {
  const f: Record<string, string> = {
    model: input.model ?? '?',
    context: input.contextUsedRatio !== undefined ? percent(input.contextUsedRatio, color) : '-',
    session: input.sessionCostUsd !== undefined ? usd(input.sessionCostUsd) : '-',
    today: state.today !== undefined ? usd(state.today) : '-',
  };
  for (const l of input.limits) {
    const reset = isReset(l, now);
    f[l.window] = percent(reset ? 0 : l.usedRatio, color);
    f[`${l.window}_resets`] = l.resetsAt !== undefined && !reset ? timeLeft(l.resetsAt * 1000, now) : '-';
  }
  const block = state.blocks.current('claude-code', now);
  f.block = block ? usd(block.costUsd) : '-';
  f.block_ends = block ? timeLeft(block.endMs, now) : '-';
  return f;
}

// Claude Code writes a few kilobytes and closes stdin: a writer that never closes it is given
// 10 s (generous for a line shown after each message, and a status bar must not hang), and more
// than 4 MB is no status, refused unread.
const STDIN = { maxBytes: 4 << 20, waitMs: 10_000 };

/** The status line for what Claude Code wrote on stdin, read to its end (statusLine). */
export async function statusLineOfStdin(
  opts: StatuslineOptions,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<string> {
  let text: string;
  try {
    text = await readStdin(stdin, STDIN);
  } catch (e) {
    return `${FALLBACK} (${(e as Error).message})`;
  }
  return statusLine(text, opts);
}

/**
 * The status line for Claude Code's JSON on stdin, recording what it carries; never throws (a
 * status bar shows the line, or the fallback with the reason).
 */
export function statusLine(stdin: string, opts: StatuslineOptions): string {
  const now = opts.now ?? Date.now();
  try {
    const input = parseStatusInput(stdin);
    if (!input) return `${FALLBACK} (no JSON on stdin)`;
    const context = {
      ...(input.contextUsedRatio !== undefined ? { usedRatio: input.contextUsedRatio } : {}),
      ...(input.contextSize ? { size: input.contextSize } : {}),
    };
    let recorded = '';
    try {
      recordStatus(opts.stateDir, input.limits, input.sessionId ? { id: input.sessionId, context } : undefined, now);
    } catch (e) {
      recorded = ` (not recorded: ${(e as Error).message})`;
    }
    let state: ReturnType<typeof fromState>;
    try {
      state = fromState(opts.stateDir, now);
    } catch {
      state = { blocks: new UsageBlocks() };
    }
    const f = fields(input, state, opts.color, now);
    const template = opts.format ?? (input.limits.some((l) => l.window === '5h') ? DEFAULT_FORMAT : BLOCK_FORMAT);
    return (
      template.replace(/\{([a-z0-9_]+)\}/g, (whole, name: string) => f[name] ?? (/^(5h|7d)/.test(name) ? '-' : whole)) +
      recorded
    );
  } catch (e) {
    return `${FALLBACK} (${(e as Error).message})`;
  }
}
