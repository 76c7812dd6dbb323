// Five-hour usage blocks per harness, as ccusage computes them: a block starts at its first
// request's time floored to the hour (UTC) and lasts 5 hours; a request after the block's end, or
// 5 hours after the request before it, starts the next one. An estimate of the subscription
// windows where no harness reports them (API keys, harnesses without limits).
//
// What it needs of the history is each request's time, tokens and cost for the last 10 hours: the
// current block started at most 5 hours ago, and the 5 hours before that show whether a block was
// still running then (activity unbroken for more than 10 hours can shift where the current block
// starts, which ccusage would take from the whole history). Requests are kept per minute (the
// first and last request's time, summed tokens and cost): a block's bounds are whole hours, so a
// minute never straddles two blocks, and the gaps and the burn rate are measured between exact
// request times. At most 600 minutes per harness, persisted with the next commit.

const HOUR_MS = 3_600_000;
export const BLOCK_MS = 5 * HOUR_MS;
// Requests older than this are not kept (see above).
const KEEP_MS = 2 * BLOCK_MS;
const KEY_PREFIX = 'blocks:';

/** The requests of one minute of one harness: first and last request time (ms), tokens, cost (USD). */
type Minute = [first: number, last: number, tokens: number, costUsd: number];

/** The block running now. */
export interface Block {
  startMs: number;
  endMs: number;
  /** The first and the last request's time (ms). */
  firstMs: number;
  lastMs: number;
  tokens: number;
  costUsd: number;
}

/**
 * A block's burn rate and projected cost at its end, as ccusage gives them, once its requests span
 * a minute: a rate over less is no rate (two requests milliseconds apart made 631 M tokens a
 * minute of a few thousand), and a minute is what the blocks keep of a request's time anyway.
 */
export function projection(b: Block, now: number): { tokensPerMinute: number; projectedCostUsd: number } | undefined {
  const minutes = (b.lastMs - b.firstMs) / 60_000;
  if (!(minutes >= 1)) return undefined;
  const remaining = Math.max(0, (b.endMs - now) / 60_000);
  return { tokensPerMinute: b.tokens / minutes, projectedCostUsd: b.costUsd + (b.costUsd / minutes) * remaining };
}

/**
 * Requests (each span: the first and last request's time of a minute, or an hour of the ledger,
 * in ms) grouped into blocks, oldest first. A span never straddles two blocks: a block's bounds
 * are whole hours.
 */
export function groupBlocks<S extends { firstMs: number; lastMs: number }>(
  spans: readonly S[],
): (Omit<Block, 'tokens' | 'costUsd'> & { spans: S[] })[] {
  const blocks: (Omit<Block, 'tokens' | 'costUsd'> & { spans: S[] })[] = [];
  for (const span of [...spans].sort((a, b) => a.firstMs - b.firstMs)) {
    const block = blocks.at(-1);
    if (block && span.firstMs - block.startMs <= BLOCK_MS && span.firstMs - block.lastMs <= BLOCK_MS) {
      block.lastMs = Math.max(block.lastMs, span.lastMs);
      block.spans.push(span);
    } else {
      const startMs = Math.floor(span.firstMs / HOUR_MS) * HOUR_MS;
      blocks.push({ startMs, endMs: startMs + BLOCK_MS, firstMs: span.firstMs, lastMs: span.lastMs, spans: [span] });
    }
  }
  return blocks;
}

/** The state database's key of a harness's recent requests. */
export const blocksKey = (harness: string): string => `${KEY_PREFIX}${harness}`;

export class UsageBlocks {
  /** Harness → minute (ms since the epoch / 60 000) → its requests. */
  private readonly minutes = new Map<string, Map<number, Minute>>();
  private readonly dirty = new Set<string>();

  /** A row of the state database's key-value table, if it is a harness's recent requests. */
  load(key: string, value: string): void {
    if (!key.startsWith(KEY_PREFIX)) return;
    const rows = JSON.parse(value) as Minute[] | null;
    if (rows) this.minutes.set(key.slice(KEY_PREFIX.length), new Map(rows.map((m) => [Math.floor(m[0] / 60_000), m])));
  }

  /** One request at `ts` (ms); one older than 10 hours is not needed. */
  add(harness: string, ts: number, tokens: number, costUsd: number, now = Date.now()): void {
    if (now - ts > KEEP_MS || !Number.isFinite(ts)) return;
    let byMinute = this.minutes.get(harness);
    if (!byMinute) this.minutes.set(harness, (byMinute = new Map<number, Minute>()));
    const minute = Math.floor(ts / 60_000);
    const m = byMinute.get(minute);
    if (m) {
      m[0] = Math.min(m[0], ts);
      m[1] = Math.max(m[1], ts);
      m[2] += tokens;
      m[3] += costUsd;
    } else {
      byMinute.set(minute, [ts, ts, tokens, costUsd]);
      this.prune(byMinute, now);
    }
    this.dirty.add(harness);
  }

  /**
   * A request put at `from` is of the time `to` after all (more of a streamed response came):
   * its `tokens` and `costUsd` move to the minute of `to`, an emptied minute goes.
   */
  move(harness: string, from: number, to: number, tokens: number, costUsd: number, now = Date.now()): void {
    const byMinute = this.minutes.get(harness);
    const m = byMinute?.get(Math.floor(from / 60_000));
    if (!byMinute || !m || Math.floor(from / 60_000) === Math.floor(to / 60_000)) return;
    m[2] -= tokens;
    m[3] -= costUsd;
    if (m[2] <= 0) byMinute.delete(Math.floor(from / 60_000));
    this.dirty.add(harness);
    this.add(harness, to, tokens, costUsd, now);
  }

  /** The harnesses with requests in the last 10 hours. */
  harnesses(): string[] {
    return [...this.minutes.keys()];
  }

  /** The block of `harness` running at `now` (its last request less than 5 hours ago), if any. */
  current(harness: string, now: number): Block | undefined {
    const byMinute = this.minutes.get(harness);
    if (!byMinute) return undefined;
    const recent = [...byMinute.values()]
      .filter((m) => now - m[1] <= KEEP_MS)
      .map(([firstMs, lastMs, tokens, costUsd]) => ({ firstMs, lastMs, tokens, costUsd }));
    const last = groupBlocks(recent).at(-1);
    if (!last || now >= last.endMs || now - last.lastMs >= BLOCK_MS) return undefined;
    const { spans, ...bounds } = last;
    return {
      ...bounds,
      tokens: spans.reduce((a, m) => a + m.tokens, 0),
      costUsd: spans.reduce((a, m) => a + m.costUsd, 0),
    };
  }

  /** The rows changed since the last commit (a harness without recent requests as null, which `load` skips). */
  changes(now = Date.now()): { key: string; value: string }[] {
    return [...this.dirty].map((harness) => {
      const byMinute = this.minutes.get(harness);
      if (byMinute) this.prune(byMinute, now);
      return { key: blocksKey(harness), value: JSON.stringify(byMinute?.size ? [...byMinute.values()] : null) };
    });
  }

  committed(): void {
    this.dirty.clear();
  }

  private prune(byMinute: Map<number, Minute>, now: number): void {
    for (const [minute, m] of byMinute) if (now - m[1] > KEEP_MS) byMinute.delete(minute);
  }
}
