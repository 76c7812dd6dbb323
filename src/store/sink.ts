// The store's side of the reader contract: one sink per file read (or per session of a store),
// applying what the reader reports to the session and to the counters (`FileSink`). Whether the line being
// read may move counters (`muted`) and which record it is (`recordKey`) are the sink's own state:
// two files read one after the other, or a file read while the process scan ends a turn, cannot
// see each other's.

import { UNREPORTED_EVENTS, unreported, type EarlierPart, type SessionEvents } from '../session/events.js';
import {
  addUsage,
  plausibleAmount,
  plausibleCount,
  plausibleUsage,
  type HarnessId,
  type TodoState,
  type TokenType,
  type ToolCall,
  type TurnOutcome,
  type Usage,
  type UsagePart,
} from '../session/types.js';
import { usageWindow } from '../session/labels.js';
import { TOKEN_TYPES } from '../session/vocabulary.js';
import type { LabelsOf, MetricKey } from '../catalog.js';
import {
  dedupeKey,
  type Counter,
  type RequestTokens,
  type SessionStore,
  type StoredSession,
  type Tally,
} from './store.js';
import type { LedgerRequest } from './ledger.js';

/** Where a sink's records come from and where what it cannot use is counted. */
export interface SinkSource {
  harness: HarnessId;
  /** The session the records belong to now (a file's first record may change it). */
  sessionOf: () => string;
  /** Scopes dedupe keys. */
  collector: string;
  onSkip: (reason: string) => void;
  /** Token types the harness never records, and `reasoning` where it records none: no series for them. */
  unrecorded?: readonly UsagePart[];
}

// The usage counters of a project and model, looked up once per file rather than per answer. The
// cost counter is created only for a priced model: an unpriced one shows no $0. A token type the
// harness never records has no counter at all; one a record does not say (Copilot's older CLIs:
// output only, until the run ends) gets its counter when a record says it.
interface UsageCounters {
  labels: LabelsOf<'cost'>;
  tokens: Partial<Record<TokenType, Counter>>;
  /** Made when a record first says reasoning (a harness or record that does not gets no series). */
  reasoning: () => Counter;
  cost: () => Counter;
  /** Tokens of an unpriced model. */
  unpriced: () => Counter;
  /** The histogram of its requests' tokens of a type (`SessionStore.requestTokensOf`). */
  requests: (type: RequestTokens['type']) => RequestTokens;
}

/**
 * The events of one file (or one session of a store) applied to the store, plus the line
 * boundaries the collector marks. Its counts go through it as a Tally: muted, they move nothing.
 */
export class FileSink implements SessionEvents, Tally {
  private readonly harness: HarnessId;
  private readonly collector: string;
  private readonly onSkip: (reason: string) => void;
  private readonly unrecorded: readonly UsagePart[];
  private readonly usageUnrecorded: boolean;
  /**
   * Work recorded, against which no tokens is drift: a finished turn (an answer), or a record of a
   * known type in an unknown shape. Not tool calls alone: a first step cut off before its usage
   * was written has some. Not for a harness that records no tokens, nor for one some of whose
   * sessions record only an unsplit total (Warp's).
   */
  private readonly recordsTokens: boolean;
  readonly usageOnly: boolean;
  /**
   * While set, counters do not move: while the collector re-reads lines it already counted (a
   * file rewritten with the same beginning), to rebuild the reader's state only, and for the rest
   * of a line whose record (`record`) was counted before.
   */
  private muted = false;
  /** The dedupe key of the line being read, until the line moves a counter: then marked seen (`bump`). */
  private recordKey: string | undefined;
  /** The session the records belong to, as last asked (`session`). */
  private id: string | undefined;
  private s: StoredSession | undefined;
  private readonly byModel = new Map<string, UsageCounters>();
  private lastUsage: UsageCounters | undefined;
  private readonly toolCounters = new Map<string, Counter>();

  constructor(
    private readonly store: SessionStore,
    private readonly source: SinkSource,
  ) {
    this.harness = source.harness;
    this.collector = source.collector;
    this.onSkip = source.onSkip;
    this.unrecorded = source.unrecorded ?? [];
    this.usageUnrecorded = TOKEN_TYPES.every((t) => this.unrecorded.includes(t));
    this.recordsTokens = !this.unrecorded.includes('output') && !store.harnessFacts.get(this.harness)?.unsplitTokens;
    // A report's read: what no report sums is not applied.
    this.usageOnly = store.ledgerOnly;
    if (store.ledgerOnly) for (const name of UNREPORTED_EVENTS) this[name] = unreported;
  }

  /**
   * A new line starts: `replay` mutes it (already counted at its offset), and the record key of
   * the line before no longer applies.
   */
  beginLine(replay: boolean): void {
    this.muted = replay;
    this.recordKey = undefined;
  }

  add<K extends MetricKey>(metric: K, labels: LabelsOf<K>, delta: number): boolean {
    return !this.muted && this.bump(this.store.counter(metric, labels), delta);
  }

  meta(m: { cwd?: string; gitBranch?: string; model?: string; hosted?: true }): void {
    const s = this.session();
    if (m.cwd && !s.cwd) {
      s.cwd = m.cwd;
      s.project = this.store.projectOf(m.cwd);
      this.add('sessionsStarted', { harness: this.harness, project: s.project }, 1);
    }
    if (m.gitBranch) s.gitBranch = m.gitBranch;
    if (m.model) s.model = m.model;
    if (m.hosted) s.hosted = true;
  }

  activity(ts: number): void {
    const s = this.session();
    if (ts > s.lastActivityAt) s.lastActivityAt = ts;
    if (ts < s.startedAt) s.startedAt = ts;
  }

  usage(
    model: string,
    u: Usage,
    tierInput: number,
    ts: number,
    recordedCost?: number,
    unsaid?: readonly UsagePart[],
    earlier?: EarlierPart,
  ): void {
    const { store, harness } = this;
    // A harness that records no tokens (Qoder's zeros, parsed as Claude Code's) has no usage:
    // no cost, no unpriced count, no request in the ledger or the blocks. One that records a
    // cost without tokens (Crush) has that cost.
    if (this.muted || (this.usageUnrecorded && recordedCost === undefined)) return;
    if (!plausibleUsage(u) || (recordedCost !== undefined && !plausibleAmount(recordedCost)))
      return this.onSkip('implausible_value');
    const s = this.session();
    const firstOfSession = total(s.tokens) === 0;
    const c = this.usageCounters(s.project, store.models.label(harness, model));
    this.addTokens(c, 'input', u.input, unsaid);
    this.addTokens(c, 'output', u.output, unsaid);
    this.addTokens(c, 'cache_read', u.cacheRead, unsaid);
    this.addTokens(c, 'cache_write', u.cacheWrite, unsaid);
    // Reasoning is a part of output: a harness that records no output records no reasoning; a
    // record that does not say it makes no series (never a false 0).
    const saysReasoning = this.said('output', unsaid) && this.said('reasoning', unsaid);
    if (saysReasoning) this.bump(c.reasoning(), u.reasoning);
    if (this.said('input', unsaid)) store.observeRequest(c.requests('input'), u.input + u.cacheRead + u.cacheWrite);
    if (this.said('output', unsaid)) store.observeRequest(c.requests('output'), u.output);
    s.tokens = addUsage(s.tokens, u);
    const cost = recordedCost ?? store.prices.cost(model, u, tierInput, ts);
    // More of a response put before (streamed as several records): one request, moved to the
    // time of its last record, in the ledger, the blocks and the day's spend alike.
    const before =
      earlier &&
      (recordedCost === undefined ? store.prices.cost(model, earlier.usage, tierInput, earlier.at) : undefined);
    const q = this.part(u, cost, firstOfSession, saysReasoning, unsaid);
    store.ledger.request(
      ts,
      harness,
      s.project,
      c.labels.model,
      q,
      earlier && {
        at: earlier.at,
        part: this.part(
          earlier.usage,
          before,
          total(s.tokens) === total(u) + total(earlier.usage),
          saysReasoning,
          unsaid,
        ),
      },
    );
    useOf(s, c.labels.model, q, ts, earlier?.at);
    if (cost === undefined) {
      this.bump(c.unpriced(), total(u));
      s.unpriced = true;
    } else {
      this.bump(c.cost(), cost);
      s.costUsd += cost;
    }
    // The 5-hour blocks and the day's spend: what the live metrics and the statusline show, which no
    // report sums (a report's read keeps none).
    if (this.usageOnly) return;
    const spendKey = `${harness}\0${s.project}`;
    if (earlier) {
      store.blocks.move(harness, earlier.at, ts, total(earlier.usage), before ?? 0);
      if (before !== undefined) store.spend.move(earlier.at, ts, spendKey, before);
    }
    store.blocks.add(harness, ts, total(u), cost ?? 0);
    if (cost !== undefined) store.spend.add(ts, spendKey, cost);
  }

  context(model: string, tokens: number, limit?: number): void {
    // A gauge, not a count: an implausible size is left out (the record's usage, which it
    // comes from, is what is counted as skipped).
    if (!plausibleCount(tokens)) return;
    if (limit !== undefined && !plausibleCount(limit)) limit = undefined;
    const s = this.session();
    s.contextTokens = tokens;
    s.contextLimit = limit ?? this.store.prices.contextWindow(model) ?? s.contextLimit;
  }

  prompt(): void {
    this.add('prompts', this.hp(), 1);
  }

  turnStarted(ts: number, endOpenAs?: TurnOutcome): void {
    const s = this.session();
    // The next prompt: the answer before it did end its turn.
    this.store.settleTurn(s, 'completed', ts);
    if (endOpenAs) this.endTurn(s, endOpenAs, ts);
    if (s.turnStartedAt === undefined) s.turnStartedAt = ts;
  }

  turnEnded(outcome: TurnOutcome, ts: number, unsure?: true): void {
    // Held only where a process scan will settle it, and never while re-reading what was counted.
    this.endTurn(this.session(), outcome, ts, unsure && this.store.processesWatched && !this.muted);
  }

  turnReopened(endedAs?: TurnOutcome): void {
    const s = this.session();
    if (s.turnStartedAt !== undefined || !s.lastTurn || (endedAs && s.lastTurn.outcome !== endedAs)) return;
    s.turnStartedAt = s.lastTurn.startedAt ?? s.lastTurn.endedAt;
    // An end held unsure was not counted: the turn's own end will be.
    if (s.lastTurn.unsure) {
      delete s.lastTurn.unsure;
      delete s.lastTurn.wentOn;
    } else s.turnCounted = true;
  }

  toolCall(id: string, call: ToolCall): void {
    const s = this.session();
    // A call reported again while pending (goose asks for approval after writing the call)
    // changes what it waits on; it was counted once.
    const pending = s.pendingTools.get(id);
    if (pending) {
      s.pendingTools.set(id, { ...call, startedAt: pending.startedAt });
      return;
    }
    const { harness } = this;
    const tool = this.store.tools.label(harness, call.tool);
    const k = `${s.project}\0${tool}\0${call.kind}`;
    let c = this.toolCounters.get(k);
    if (!c)
      this.toolCounters.set(
        k,
        (c = this.store.counter('toolCalls', { harness, project: s.project, tool, kind: call.kind })),
      );
    this.bump(c, 1);
    s.pendingTools.set(id, { ...call, startedAt: s.lastActivityAt || undefined });
  }

  toolWaits(id: string, waits: ToolCall['waits']): void {
    const c = this.session().pendingTools.get(id);
    if (!c) return;
    if (waits) c.waits = waits;
    else delete c.waits;
  }

  subagent(id: string, running: boolean): void {
    const s = this.session();
    if (running) (s.subagents ??= {})[id] = true;
    else if (s.subagents) {
      delete s.subagents[id];
      if (Object.keys(s.subagents).length === 0) delete s.subagents;
    }
  }

  archived(archived: boolean): void {
    const s = this.session();
    if (archived) s.archived = true;
    else delete s.archived;
  }

  toolResult(id: string, failed: boolean, call?: ToolCall): void {
    const s = this.session();
    const c = s.pendingTools.get(id) ?? call;
    s.pendingTools.delete(id);
    if (failed && c)
      this.add('toolErrors', { ...this.hp(), tool: this.store.tools.label(this.harness, c.tool), kind: c.kind }, 1);
  }

  lines(added: number, removed: number): void {
    if (!plausibleCount(added) || !plausibleCount(removed)) return this.onSkip('implausible_value');
    this.add('linesAdded', this.hp(), added);
    this.add('linesRemoved', this.hp(), removed);
  }

  compaction(): void {
    this.add('compactions', this.hp(), 1);
  }

  premiumRequests(model: string, n: number): void {
    if (!plausibleAmount(n)) return this.onSkip('implausible_value');
    this.add('premiumRequests', { ...this.hp(), model: this.store.models.label(this.harness, model) }, n);
  }

  usageLimit(window: string, usedRatio: number, resetsAt: number | undefined): void {
    this.store.setUsageLimit({
      harness: this.harness,
      window: usageWindow(window),
      usedRatio,
      ...(resetsAt ? { resetsAt } : {}),
    });
  }

  viewed(ts: number): void {
    const s = this.session();
    if (ts > (s.viewedAt ?? 0)) s.viewedAt = ts;
  }

  asks(since: number | undefined): void {
    const s = this.session();
    if (since === undefined) delete s.asksSince;
    else s.asksSince = since;
  }

  todos(byState: Partial<Record<TodoState, number>>): void {
    this.session().todos = byState;
  }

  skipped(reason: string): void {
    // A record of a known type whose shape the reader does not know is work it could not count.
    if (reason === 'unknown_shape') this.didWork(this.session());
    this.onSkip(reason);
  }

  firstTime(k: string): boolean {
    const key = dedupeKey(this.collector, k);
    if (this.store.seen(key)) return false;
    this.store.markSeen(key);
    return true;
  }

  /** A `firstTime` asked of the store already, with its answer (a document read in turns): only marked. */
  answered(k: string, first: boolean): void {
    if (first) this.store.markSeen(dedupeKey(this.collector, k));
  }

  record(k: string): void {
    const key = dedupeKey(this.collector, `record:${k}`);
    if (this.store.seen(key)) this.muted = true;
    else this.recordKey = key;
  }

  /** The session the records belong to now, created on its first record; changed (committed with the next commit). */
  private session(): StoredSession {
    const current = this.source.sessionOf();
    if (current !== this.id || !this.s) {
      this.id = current;
      this.s = this.store.sessionFor(this.harness, current, this.usageUnrecorded);
    }
    this.store.changed(this.s);
    return this.s;
  }

  /** Whether the counter moved. */
  private bump(c: Counter, delta: number): boolean {
    if (this.muted || !this.store.bump(c, delta)) return false;
    // Marked once: a usage moves up to six counters.
    if (this.recordKey !== undefined) this.store.markSeen(this.recordKey);
    this.recordKey = undefined;
    return true;
  }

  private hp(): { harness: HarnessId; project: string } {
    return { harness: this.harness, project: this.session().project };
  }

  private didWork(s: StoredSession): void {
    if (this.recordsTokens && !this.muted) s.work = (s.work ?? 0) + 1;
  }

  private endTurn(s: StoredSession, outcome: TurnOutcome, ts: number, unsure = false): void {
    if (this.store.endTurn(s, outcome, ts, this, unsure) && outcome === 'completed') this.didWork(s);
  }

  private usageCounters(project: string, model: string): UsageCounters {
    // A file's usages are nearly all of one project and model: the last pair's, with no key built.
    const last = this.lastUsage;
    if (last?.labels.project === project && last.labels.model === model) return last;
    const k = `${project}\0${model}`;
    let c = this.byModel.get(k);
    if (!c) {
      const labels = { harness: this.harness, project, model };
      let cost: Counter | undefined;
      let reasoning: Counter | undefined;
      let unpriced: Counter | undefined;
      const requests: Partial<Record<RequestTokens['type'], RequestTokens>> = {};
      c = {
        labels,
        tokens: {},
        reasoning: () => (reasoning ??= this.store.counter('reasoningTokens', labels)),
        cost: () => (cost ??= this.store.counter('cost', labels)),
        unpriced: () => (unpriced ??= this.store.counter('unpricedTokens', { harness: this.harness, model })),
        requests: (type) => (requests[type] ??= this.store.requestTokensOf(this.harness, model, type)),
      };
      this.byModel.set(k, c);
    }
    return (this.lastUsage = c);
  }

  /** Whether the harness records a token type, and the record says it (`unsaid`: what it leaves out). */
  private said(t: UsagePart, unsaid: readonly UsagePart[] | undefined): boolean {
    return !this.unrecorded.includes(t) && !unsaid?.includes(t);
  }

  /** A request (or more of one) as the ledger counts it: what the counters count, no token type left unsaid. */
  private part(
    v: Usage,
    costUsd: number | undefined,
    firstOfSession: boolean,
    saysReasoning: boolean,
    unsaid: readonly UsagePart[] | undefined,
  ): LedgerRequest {
    return {
      input: this.said('input', unsaid) ? v.input : 0,
      output: this.said('output', unsaid) ? v.output : 0,
      cacheRead: this.said('cache_read', unsaid) ? v.cacheRead : 0,
      cacheWrite: this.said('cache_write', unsaid) ? v.cacheWrite : 0,
      reasoning: saysReasoning ? v.reasoning : 0,
      costUsd,
      firstOfSession,
    };
  }

  private addTokens(c: UsageCounters, type: TokenType, n: number, unsaid: readonly UsagePart[] | undefined): void {
    if (!this.said(type, unsaid)) return;
    this.bump((c.tokens[type] ??= this.store.counter('tokens', { ...c.labels, token_type: type })), n);
  }
}

/** All the tokens of a usage. */
function total(v: Usage): number {
  return v.input + v.output + v.cacheRead + v.cacheWrite;
}

/** A request at `ts` (or more of one put at `earlier`) in the session's own split by model, for `report session`. */
function useOf(s: StoredSession, model: string, q: LedgerRequest, ts: number, earlier: number | undefined): void {
  const m = ((s.byModel ??= {})[model] ??= {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    reasoning: 0,
    costUsd: 0,
    requests: 0,
  });
  m.input += q.input;
  m.output += q.output;
  m.cacheRead += q.cacheRead;
  m.cacheWrite += q.cacheWrite;
  m.reasoning += q.reasoning;
  m.costUsd += q.costUsd ?? 0;
  if (earlier === undefined) m.requests++;
  else if (s.firstRequestAt === earlier) s.firstRequestAt = ts;
  if (s.firstRequestAt === undefined || ts < s.firstRequestAt) s.firstRequestAt = ts;
  if (s.lastRequestAt === undefined || ts > s.lastRequestAt) s.lastRequestAt = ts;
}
