// The store's side of the reader contract: one sink per file read (or per session of a store),
// applying what the reader reports to the session and to the counters. Whether the line being
// read may move counters (`muted`) and which record it is (`recordKey`) are the sink's own state:
// two files read one after the other, or a file read while the process scan ends a turn, cannot
// see each other's.

import type { SessionEvents } from '../session/events.js';
import { addUsage, plausibleAmount, plausibleCount, plausibleUsage, type HarnessId, type TokenType, type ToolCall, type TurnOutcome, type Usage, type UsagePart } from '../session/types.js';
import { usageWindow } from '../session/labels.js';
import { TOKEN_TYPES } from '../session/vocabulary.js';
import type { LabelsOf, MetricKey } from '../catalog.js';
import type { Counter, SessionStore, StoredSession, Tally } from './store.js';
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

/** The events of one file, plus the line boundaries the collector marks. */
export interface FileSink extends SessionEvents {
  /**
   * A new line starts: `replay` mutes it (already counted at its offset), and the record key of
   * the line before no longer applies.
   */
  beginLine(replay: boolean): void;
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
}

export function fileSink(store: SessionStore, source: SinkSource): FileSink {
  const { harness, collector, onSkip } = source;
  const unrecorded = source.unrecorded ?? [];
  const usageUnrecorded = TOKEN_TYPES.every((t) => unrecorded.includes(t));
  /**
   * While set, counters do not move: while the collector re-reads lines it already counted (a
   * file rewritten with the same beginning), to rebuild the reader's state only, and for the rest
   * of a line whose record (`record`) was counted before.
   */
  let muted = false;
  /** The dedupe key of the line being read, committed once the line moves a counter. */
  let recordKey: string | undefined;

  let id: string | undefined;
  let s: StoredSession | undefined;
  const session = (): StoredSession => {
    const current = source.sessionOf();
    if (current !== id || !s) {
      id = current;
      s = store.sessionFor(harness, id, usageUnrecorded);
    }
    store.changed(s);
    return s;
  };

  const tally: Tally = {
    add(metric, labels, delta) {
      return !muted && bump(store.counter(metric, labels), delta);
    },
  };
  /** Whether the counter moved. */
  function bump(c: Counter, delta: number): boolean {
    if (muted || !store.bump(c, delta)) return false;
    if (recordKey !== undefined) store.markSeen(recordKey);
    return true;
  }
  const add = <K extends MetricKey>(metric: K, labels: LabelsOf<K>, delta: number) => tally.add(metric, labels, delta);
  const hp = () => ({ harness, project: session().project });

  // Work recorded, against which no tokens is drift: a finished turn (an answer), or a record of a
  // known type in an unknown shape. Not tool calls alone: a first step cut off before its usage
  // was written has some. Not for a harness that records no tokens, nor for one some of whose
  // sessions record only an unsplit total (Warp's).
  const recordsTokens = !unrecorded.includes('output') && !store.harnessFacts.get(harness)?.unsplitTokens;
  const didWork = (s: StoredSession) => {
    if (recordsTokens && !muted) s.work = (s.work ?? 0) + 1;
  };
  const endTurn = (s: StoredSession, outcome: TurnOutcome, ts: number, unsure = false) => {
    if (store.endTurn(s, outcome, ts, tally, unsure) && outcome === 'completed') didWork(s);
  };

  /** A request at `ts` (or more of one put at `earlier`) in the session's own split by model, for `report session`. */
  const useOf = (s: StoredSession, model: string, q: LedgerRequest, ts: number, earlier: number | undefined) => {
    const m = ((s.byModel ??= {})[model] ??= { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, costUsd: 0, requests: 0 });
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
  };

  const byModel = new Map<string, UsageCounters>();
  const toolCounters = new Map<string, Counter>();
  const usageCounters = (project: string, model: string) => {
    const k = `${project}\0${model}`;
    let c = byModel.get(k);
    if (!c) {
      const labels = { harness, project, model };
      let cost: Counter | undefined;
      let reasoning: Counter | undefined;
      c = { labels, tokens: {}, reasoning: () => (reasoning ??= store.counter('reasoningTokens', labels)), cost: () => (cost ??= store.counter('cost', labels)) };
      byModel.set(k, c);
    }
    return c;
  };
  const addTokens = (c: UsageCounters, type: TokenType, n: number, unsaid: readonly UsagePart[] | undefined) => {
    if (unrecorded.includes(type) || unsaid?.includes(type)) return;
    bump((c.tokens[type] ??= store.counter('tokens', { ...c.labels, token_type: type })), n);
  };

  return {
    beginLine(replay) {
      muted = replay;
      recordKey = undefined;
    },
    meta(m) {
      const s = session();
      if (m.cwd && !s.cwd) {
        s.cwd = m.cwd;
        s.project = store.projectOf(m.cwd);
        add('sessionsStarted', { harness, project: s.project }, 1);
      }
      if (m.gitBranch) s.gitBranch = m.gitBranch;
      if (m.model) s.model = m.model;
      if (m.hosted) s.hosted = true;
    },
    activity(ts) {
      const s = session();
      if (ts > s.lastActivityAt) s.lastActivityAt = ts;
      if (ts < s.startedAt) s.startedAt = ts;
    },
    usage(model, u, tierInput, ts, recordedCost, unsaid, earlier) {
      // A harness that records no tokens (Qoder's zeros, parsed as Claude Code's) has no usage:
      // no cost, no unpriced count, no request in the ledger or the blocks. One that records a
      // cost without tokens (Crush) has that cost.
      if (muted || (usageUnrecorded && recordedCost === undefined)) return;
      if (!plausibleUsage(u) || (recordedCost !== undefined && !plausibleAmount(recordedCost))) return onSkip('implausible_value');
      const s = session();
      const total = (v: Usage) => v.input + v.output + v.cacheRead + v.cacheWrite;
      const firstOfSession = total(s.tokens) === 0;
      const c = usageCounters(s.project, store.models.label(harness, model));
      addTokens(c, 'input', u.input, unsaid);
      addTokens(c, 'output', u.output, unsaid);
      addTokens(c, 'cache_read', u.cacheRead, unsaid);
      addTokens(c, 'cache_write', u.cacheWrite, unsaid);
      const said = (t: UsagePart) => !unrecorded.includes(t) && !unsaid?.includes(t);
      // Reasoning is a part of output: a harness that records no output records no reasoning; a
      // record that does not say it makes no series (never a false 0).
      const saysReasoning = said('output') && said('reasoning');
      if (saysReasoning) bump(c.reasoning(), u.reasoning);
      if (said('input')) store.observeRequest(harness, c.labels.model, 'input', u.input + u.cacheRead + u.cacheWrite);
      if (said('output')) store.observeRequest(harness, c.labels.model, 'output', u.output);
      s.tokens = addUsage(s.tokens, u);
      const cost = recordedCost ?? store.prices.cost(model, u, tierInput, ts);
      // The ledger counts what the counters count: no token type the harness or the record leaves unsaid.
      const counted = (t: TokenType, n: number) => (said(t) ? n : 0);
      const part = (v: Usage, costUsd: number | undefined, first: boolean) => ({
        input: counted('input', v.input), output: counted('output', v.output), cacheRead: counted('cache_read', v.cacheRead),
        cacheWrite: counted('cache_write', v.cacheWrite), reasoning: saysReasoning ? v.reasoning : 0, costUsd, firstOfSession: first,
      });
      // More of a response put before (streamed as several records): one request, moved to the
      // time of its last record, in the ledger, the blocks and the day's spend alike.
      const before = earlier && (recordedCost === undefined ? store.prices.cost(model, earlier.usage, tierInput, earlier.at) : undefined);
      if (earlier) {
        store.blocks.move(harness, earlier.at, ts, total(earlier.usage), before ?? 0);
        if (before !== undefined) store.spend.move(earlier.at, ts, `${harness}\0${s.project}`, before);
      }
      const q = part(u, cost, firstOfSession);
      store.ledger.request(ts, harness, s.project, c.labels.model, q,
        earlier && { at: earlier.at, part: part(earlier.usage, before, total(s.tokens) === total(u) + total(earlier.usage)) });
      useOf(s, c.labels.model, q, ts, earlier?.at);
      store.blocks.add(harness, ts, total(u), cost ?? 0);
      if (cost === undefined) {
        add('unpricedTokens', { harness, model: c.labels.model }, u.input + u.output + u.cacheRead + u.cacheWrite);
        s.unpriced = true;
      } else {
        bump(c.cost(), cost);
        s.costUsd += cost;
        store.spend.add(ts, `${harness}\0${s.project}`, cost);
      }
    },
    context(model, tokens, limit) {
      // A gauge, not a count: an implausible size is left out (the record's usage, which it
      // comes from, is what is counted as skipped).
      if (!plausibleCount(tokens)) return;
      if (limit !== undefined && !plausibleCount(limit)) limit = undefined;
      const s = session();
      s.contextTokens = tokens;
      s.contextLimit = limit ?? store.prices.contextWindow(model) ?? s.contextLimit;
    },
    prompt() {
      add('prompts', hp(), 1);
    },
    turnStarted(ts, endOpenAs) {
      const s = session();
      // The next prompt: the answer before it did end its turn.
      store.settleTurn(s, 'completed', ts);
      if (endOpenAs) endTurn(s, endOpenAs, ts);
      if (s.turnStartedAt === undefined) s.turnStartedAt = ts;
    },
    turnEnded(outcome, ts, unsure) {
      // Held only where a process scan will settle it, and never while re-reading what was counted.
      endTurn(session(), outcome, ts, unsure && store.processesWatched && !muted);
    },
    turnReopened(endedAs) {
      const s = session();
      if (s.turnStartedAt !== undefined || !s.lastTurn || (endedAs && s.lastTurn.outcome !== endedAs)) return;
      s.turnStartedAt = s.lastTurn.startedAt ?? s.lastTurn.endedAt;
      // An end held unsure was not counted: the turn's own end will be.
      if (s.lastTurn.unsure) {
        delete s.lastTurn.unsure;
        delete s.lastTurn.wentOn;
      } else s.turnCounted = true;
    },
    toolCall(id, call) {
      const s = session();
      // A call reported again while pending (goose asks for approval after writing the call)
      // changes what it waits on; it was counted once.
      const pending = s.pendingTools[id];
      if (pending) {
        s.pendingTools[id] = { ...call, startedAt: pending.startedAt };
        return;
      }
      const tool = store.tools.label(harness, call.tool);
      const k = `${s.project}\0${tool}\0${call.kind}`;
      let c = toolCounters.get(k);
      if (!c) toolCounters.set(k, (c = store.counter('toolCalls', { harness, project: s.project, tool, kind: call.kind })));
      bump(c, 1);
      s.pendingTools[id] = { ...call, startedAt: s.lastActivityAt || undefined };
    },
    toolWaits(id, waits) {
      const c = session().pendingTools[id];
      if (!c) return;
      if (waits) c.waits = waits;
      else delete c.waits;
    },
    subagent(id, running) {
      const s = session();
      if (running) (s.subagents ??= {})[id] = true;
      else if (s.subagents) {
        delete s.subagents[id];
        if (Object.keys(s.subagents).length === 0) delete s.subagents;
      }
    },
    archived(archived) {
      const s = session();
      if (archived) s.archived = true;
      else delete s.archived;
    },
    toolResult(id, failed, call?: ToolCall) {
      const s = session();
      const c = s.pendingTools[id] ?? call;
      delete s.pendingTools[id];
      if (failed && c) add('toolErrors', { ...hp(), tool: store.tools.label(harness, c.tool), kind: c.kind }, 1);
    },
    lines(added, removed) {
      if (!plausibleCount(added) || !plausibleCount(removed)) return onSkip('implausible_value');
      add('linesAdded', hp(), added);
      add('linesRemoved', hp(), removed);
    },
    compaction() {
      add('compactions', hp(), 1);
    },
    premiumRequests(model, n) {
      if (!plausibleAmount(n)) return onSkip('implausible_value');
      add('premiumRequests', { ...hp(), model: store.models.label(harness, model) }, n);
    },
    usageLimit(window, usedRatio, resetsAt) {
      store.setUsageLimit({ harness, window: usageWindow(window), usedRatio, ...(resetsAt ? { resetsAt } : {}) });
    },
    viewed(ts) {
      const s = session();
      if (ts > (s.viewedAt ?? 0)) s.viewedAt = ts;
    },
    todos(byState) {
      session().todos = byState;
    },
    skipped(reason) {
      // A record of a known type whose shape the reader does not know is work it could not count.
      if (reason === 'unknown_shape') didWork(session());
      onSkip(reason);
    },
    firstTime(k) {
      if (store.seen(collector, k)) return false;
      store.markSeen(`${collector}\0${k}`);
      return true;
    },
    record(k) {
      if (store.seen(collector, `record:${k}`)) muted = true;
      else recordKey = `${collector}\0record:${k}`;
    },
  };
}
