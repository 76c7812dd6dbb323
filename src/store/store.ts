// The session store: applies what readers report to the sessions and to the cumulative counters,
// keeps the changes until they are committed to the state database with the file offsets they
// came from, and answers snapshots for the metrics outputs without any I/O.

import { type LabelsOf, type MetricKey } from '../metrics/catalog.js';
import { REQUEST_TOKEN_BOUNDARIES, TOKEN_TYPES } from '../session/vocabulary.js';
import type { PriceTable } from '../pricing/prices.js';
import type { SessionEvents } from '../session/events.js';
import type { Changes, CounterRow, FileRow, StateDb } from '../state/db.js';
import { LabelCap } from '../session/labels.js';
import { ProjectNamer, UNKNOWN_PROJECT, type ProjectOptions } from '../session/project.js';
import { addUsage, plausibleAmount, plausibleCount, plausibleUsage, ZERO_USAGE, type HarnessId, type ProcessState, type RegistryEntry, type Session, type TokenType, type ToolCall, type TurnOutcome } from '../session/types.js';

// Commit after this much reading or this long, whichever comes first.
const COMMIT_BYTES = 32 << 20;
const COMMIT_MS = 1000;

/** A session as stored: the normalized record plus its project label, fixed when first seen. */
export interface StoredSession extends Session {
  project: string;
}

/** Distinct `model` and `tool` label values per harness exported at most. */
export interface LabelCaps {
  model: number;
  tool: number;
}

export interface UsageLimit {
  harness: HarnessId;
  window: string;
  usedRatio: number;
  resetsAt?: number;
}

/**
 * How many tokens each model request of a harness and model used, as a histogram over
 * REQUEST_TOKEN_BOUNDARIES (`counts` has one more bucket, above the last boundary). Kept for the
 * OTLP GenAI view (src/metrics/views.ts); it only grows, like a counter.
 */
export interface RequestTokens {
  harness: string;
  model: string;
  /** input: prompt tokens with cache reads and writes (as the GenAI conventions count input); output: with reasoning. */
  type: 'input' | 'output';
  counts: number[];
  sum: number;
}

/** Spend of one local calendar day (`YYYY-MM-DD`), by `harness\0project`. */
export type DaySpend = Record<string, number>;

// Days of spend kept: today and the six before it ("this week" in the viewers).
const SPEND_DAYS = 7;

/** The local calendar day of a time (ms), as `YYYY-MM-DD`. */
export function localDay(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** An agent process no session file could be joined to (a harness we cannot read, or before its first record). */
export interface UnownedAgent {
  harness: HarnessId;
  project: string;
  /** Its process tree uses CPU above the threshold: taken as working. */
  busy: boolean;
  cpuRatio: number;
  residentBytes: number;
  pid: number;
}

export interface ProcessTotals {
  processes: number;
  cpuRatio: number;
  residentBytes: number;
}

/** The process table as the last process scan saw it. */
export interface ProcessView {
  /** Harnesses whose processes can be seen: a session of theirs no process owns has no live agent. */
  visible: ReadonlySet<HarnessId>;
  /** Sessions of another machine (their folder is not on this one), by key: their processes cannot be seen here. */
  elsewhere: ReadonlySet<string>;
  /** The live process of each owned session, by session key (`harness/id`). */
  owners: ReadonlyMap<string, ProcessState>;
  unowned: readonly UnownedAgent[];
  /** Agent processes per harness, with their children's CPU and memory. */
  totals: ReadonlyMap<HarnessId, ProcessTotals>;
}

const EMPTY_VIEW: ProcessView = { visible: new Set(), elsewhere: new Set(), owners: new Map(), unowned: [], totals: new Map() };

export interface Counter {
  key: string;
  metric: MetricKey;
  labels: Record<string, string>;
  value: number;
}

export class SessionStore {
  readonly counters = new Map<string, Counter>();
  readonly sessions = new Map<string, StoredSession>();
  readonly usageLimits = new Map<string, UsageLimit>();
  readonly requestTokens = new Map<string, RequestTokens>();
  /**
   * Dollars spent per local day, by the time of the request (not of the reading): the viewers'
   * "spend today" and "this week", which a counter's rate cannot give after a restart.
   */
  readonly spendByDay = new Map<string, DaySpend>();
  /** The processes harnesses registered in their files, per harness and root, refreshed on every scan. */
  readonly registries = new Map<string, RegistryEntry[]>();
  /** What the last process scan saw (never persisted): replaced whole, read by scrapes without I/O. */
  processes: ProcessView = EMPTY_VIEW;
  private readonly projects: ProjectNamer;
  readonly models: LabelCap;
  readonly tools: LabelCap;
  private readonly dirtyCounters = new Set<string>();
  private readonly dirtySessions = new Set<string>();
  private readonly dirtyLimits = new Set<string>();
  private readonly dirtyRequestTokens = new Set<string>();
  private readonly dirtySpend = new Set<string>();
  private readonly pendingSeen = new Set<string>();
  private readonly stagedFiles = new Map<string, FileRow>();
  private readonly stagedRemoved = new Set<string>();
  private stagedBytes = 0;
  private lastCommit = Date.now();
  /** Called after each commit: what is served is rendered again. */
  onCommit?: () => void;

  constructor(
    private readonly db: StateDb,
    readonly prices: PriceTable,
    projectOptions: ProjectOptions,
    caps: LabelCaps = { model: 50, tool: 100 },
  ) {
    for (const row of db.counters()) {
      // A value that is not finite (+Inf, stored by versions that added whatever a record said)
      // can never move again: it starts over, which Prometheus reads as a counter reset.
      const value = Number.isFinite(row.value) ? row.value : 0;
      this.counters.set(row.key, { key: row.key, metric: row.metric as MetricKey, labels: JSON.parse(row.labels), value });
    }
    for (const row of db.sessions()) this.sessions.set(row.key, JSON.parse(row.data) as StoredSession);
    for (const row of db.kv()) {
      if (row.key.startsWith('limit:')) this.usageLimits.set(row.key, JSON.parse(row.value) as UsageLimit);
      if (row.key.startsWith('reqtok:')) this.requestTokens.set(row.key, JSON.parse(row.value) as RequestTokens);
      const spend = row.key.startsWith('spend:') ? (JSON.parse(row.value) as DaySpend | null) : null;
      if (spend) this.spendByDay.set(row.key.slice('spend:'.length), spend);
    }
    const known = [...this.counters.values()].map((c) => c.labels.project).filter((p): p is string => p !== undefined);
    this.projects = new ProjectNamer(projectOptions, known);
    const knownOf = (label: string) => [...this.counters.values()]
      .filter((c) => c.labels[label] !== undefined).map((c): [string, string] => [c.labels.harness!, c.labels[label]!]);
    this.models = new LabelCap(caps.model, knownOf('model'));
    this.tools = new LabelCap(caps.tool, knownOf('tool'));
  }

  /**
   * While set, counters do not move: while the collector re-reads lines it already counted (a
   * file rewritten with the same beginning), to rebuild the reader's state only, and for the rest
   * of a line whose record (`SessionEvents.record`) was counted before.
   */
  muted = false;
  /** The dedupe key of the line being read, committed once the line moves a counter. */
  private recordKey: string | undefined;

  /** Whether `collector` saw the dedupe key `k` (committed, or since the last commit). */
  seen(collector: string, k: string): boolean {
    const key = `${collector}\0${k}`;
    return this.pendingSeen.has(key) || this.db.seen(key);
  }

  /** A new line starts: `replay` mutes it (already counted at its offset). */
  beginLine(replay: boolean): void {
    this.muted = replay;
    this.recordKey = undefined;
  }

  /** The project label of a folder (for processes no session file names). */
  projectOf(cwd: string): string {
    return this.projects.label(cwd);
  }

  /** A session changed outside a reader (archived, its process gone): committed with the next commit. */
  touch(key: string): void {
    this.dirtySessions.add(key);
  }

  /**
   * The process that ran a session's open turn is gone: the turn ends now, counted once as
   * interrupted (a harness killed mid-turn writes nothing).
   */
  interrupt(key: string, at: number): void {
    const s = this.sessions.get(key);
    if (!s || !this.endTurn(s, 'interrupted', at)) return;
    delete s.subagents;
    this.dirtySessions.add(key);
  }

  /**
   * Ends a session's open turn as `outcome` at `ts`, counted once; false when none is open (a
   * turn's end can be written more than once: an answer's end, then the turn summary).
   */
  private endTurn(s: StoredSession, outcome: TurnOutcome, ts: number): boolean {
    if (s.turnStartedAt === undefined) return false;
    if (!s.turnCounted) this.add('turns', { harness: s.harness, project: s.project, outcome }, 1);
    s.lastTurn = { outcome, endedAt: ts, startedAt: s.turnStartedAt };
    s.turnStartedAt = undefined;
    delete s.turnCounted;
    s.pendingTools = {};
    return true;
  }

  /** The counter of a series, created at 0 (tokens of every type show once a model is used). */
  counter<K extends MetricKey>(metric: K, labels: LabelsOf<K>): Counter {
    // Label objects are always built in the catalog's label order, so their values name the series.
    const key = `${metric}\0${Object.values(labels).join('\0')}`;
    let c = this.counters.get(key);
    if (!c) {
      c = { key, metric, labels: { ...labels }, value: 0 };
      this.counters.set(key, c);
      this.dirtyCounters.add(key);
    }
    return c;
  }

  /** Adds to a counter; never lowers one, never makes it infinite. */
  bump(c: Counter, delta: number): void {
    if (!(delta > 0) || this.muted || !Number.isFinite(c.value + delta)) return;
    c.value += delta;
    this.dirtyCounters.add(c.key);
    if (this.recordKey !== undefined) this.pendingSeen.add(this.recordKey);
  }

  add<K extends MetricKey>(metric: K, labels: LabelsOf<K>, delta: number): void {
    if (!this.muted) this.bump(this.counter(metric, labels), delta);
  }

  /** One model request's tokens of one type into its histogram. */
  private observeRequest(harness: string, model: string, type: RequestTokens['type'], tokens: number): void {
    const key = `reqtok:${harness}\0${model}\0${type}`;
    let h = this.requestTokens.get(key);
    if (!h) {
      h = { harness, model, type, counts: new Array<number>(REQUEST_TOKEN_BOUNDARIES.length + 1).fill(0), sum: 0 };
      this.requestTokens.set(key, h);
    }
    const bucket = REQUEST_TOKEN_BOUNDARIES.findIndex((b) => tokens <= b);
    h.counts[bucket === -1 ? REQUEST_TOKEN_BOUNDARIES.length : bucket]!++;
    h.sum += tokens;
    this.dirtyRequestTokens.add(key);
  }

  /**
   * The event sink for one file; `sessionOf` names the session its records belong to (which a
   * file's first record may change), `collector` scopes dedupe keys, `onSkip` hears of records
   * the reader could not use.
   */
  events(
    harness: HarnessId, sessionOf: () => string, collector: string, onSkip: (reason: string) => void,
    unrecorded: readonly TokenType[] = [],
  ): SessionEvents {
    const store = this;
    let id: string | undefined;
    let key = '';
    let s: StoredSession | undefined;
    const session = (): StoredSession => {
      const current = sessionOf();
      if (current !== id) {
        id = current;
        key = `${harness}/${id}`;
        s = store.sessions.get(key);
      }
      if (!s) {
        const now = Date.now();
        s = {
          harness, id, project: UNKNOWN_PROJECT, startedAt: now, lastActivityAt: 0,
          pendingTools: {}, tokens: { ...ZERO_USAGE }, costUsd: 0,
          ...(TOKEN_TYPES.every((t) => unrecorded.includes(t)) ? { usageUnrecorded: true as const } : {}),
        };
        store.sessions.set(key, s);
      }
      store.dirtySessions.add(key);
      return s;
    };
    const hp = () => ({ harness, project: session().project });
    // Work recorded, against which no tokens is drift: a finished turn (an answer), or a record of
    // a known type in an unknown shape. Not tool calls alone: a first step cut off before its usage
    // was written has some. Not for a harness that records no tokens.
    const recordsTokens = !unrecorded.includes('output');
    const didWork = (s: StoredSession) => {
      if (recordsTokens && !store.muted) s.work = (s.work ?? 0) + 1;
    };
    // The usage counters of a project and model, looked up once per file rather than per answer.
    // The cost counter is created only for a priced model: an unpriced one shows no $0. A token
    // type the harness never records has no counter at all; one a record does not say (Copilot's
    // older CLIs: output only, until the run ends) gets its counter when a record says it.
    type UsageCounters = { labels: LabelsOf<'cost'>; tokens: Partial<Record<TokenType, Counter>>; reasoning?: Counter; cost: () => Counter };
    const byModel = new Map<string, UsageCounters>();
    const toolCounters = new Map<string, Counter>();
    const usageCounters = (project: string, model: string) => {
      const k = `${project}\0${model}`;
      let c = byModel.get(k);
      if (!c) {
        const labels = { harness, project, model };
        let cost: Counter | undefined;
        // Reasoning is a part of output: a harness that records no output records no reasoning.
        const reasoning = unrecorded.includes('output') ? undefined : store.counter('reasoningTokens', labels);
        c = { labels, tokens: {}, reasoning, cost: () => (cost ??= store.counter('cost', labels)) };
        byModel.set(k, c);
      }
      return c;
    };
    const endTurn = (s: StoredSession, outcome: TurnOutcome, ts: number) => {
      if (store.endTurn(s, outcome, ts) && outcome === 'completed') didWork(s);
    };
    const addTokens = (c: UsageCounters, type: TokenType, n: number, unsaid: readonly TokenType[] | undefined) => {
      if (unrecorded.includes(type) || unsaid?.includes(type)) return;
      store.bump((c.tokens[type] ??= store.counter('tokens', { ...c.labels, token_type: type })), n);
    };
    return {
      meta(m) {
        const s = session();
        if (m.cwd && !s.cwd) {
          s.cwd = m.cwd;
          s.project = store.projects.label(m.cwd);
          store.add('sessionsStarted', { harness, project: s.project }, 1);
        }
        if (m.gitBranch) s.gitBranch = m.gitBranch;
        if (m.model) s.model = m.model;
      },
      activity(ts) {
        const s = session();
        if (ts > s.lastActivityAt) s.lastActivityAt = ts;
        if (ts < s.startedAt) s.startedAt = ts;
      },
      usage(model, u, tierInput, ts, recordedCost, unsaid) {
        if (store.muted) return;
        if (!plausibleUsage(u) || (recordedCost !== undefined && !plausibleAmount(recordedCost))) return onSkip('implausible_value');
        const s = session();
        const c = usageCounters(s.project, store.models.label(harness, model));
        addTokens(c, 'input', u.input, unsaid);
        addTokens(c, 'output', u.output, unsaid);
        addTokens(c, 'cache_read', u.cacheRead, unsaid);
        addTokens(c, 'cache_write', u.cacheWrite, unsaid);
        if (c.reasoning) store.bump(c.reasoning, u.reasoning);
        const said = (t: TokenType) => !unrecorded.includes(t) && !unsaid?.includes(t);
        if (said('input')) store.observeRequest(harness, c.labels.model, 'input', u.input + u.cacheRead + u.cacheWrite);
        if (said('output')) store.observeRequest(harness, c.labels.model, 'output', u.output);
        s.tokens = addUsage(s.tokens, u);
        const cost = recordedCost ?? store.prices.cost(model, u, tierInput, ts);
        if (cost === undefined) {
          store.add('unpricedTokens', { harness, model: c.labels.model }, u.input + u.output + u.cacheRead + u.cacheWrite);
          s.unpriced = true;
        } else {
          store.bump(c.cost(), cost);
          s.costUsd += cost;
          store.spent(ts, `${harness}\0${s.project}`, cost);
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
        store.add('prompts', hp(), 1);
      },
      turnStarted(ts, endOpenAs) {
        const s = session();
        if (endOpenAs) endTurn(s, endOpenAs, ts);
        if (s.turnStartedAt === undefined) s.turnStartedAt = ts;
      },
      turnEnded(outcome, ts) {
        endTurn(session(), outcome, ts);
      },
      turnReopened(endedAs) {
        const s = session();
        if (s.turnStartedAt !== undefined || !s.lastTurn || (endedAs && s.lastTurn.outcome !== endedAs)) return;
        s.turnStartedAt = s.lastTurn.startedAt ?? s.lastTurn.endedAt;
        s.turnCounted = true;
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
        store.bump(c, 1);
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
        if (failed && c) store.add('toolErrors', { ...hp(), tool: store.tools.label(harness, c.tool), kind: c.kind }, 1);
      },
      lines(added, removed) {
        if (!plausibleCount(added) || !plausibleCount(removed)) return onSkip('implausible_value');
        store.add('linesAdded', hp(), added);
        store.add('linesRemoved', hp(), removed);
      },
      compaction() {
        store.add('compactions', hp(), 1);
      },
      premiumRequests(model, n) {
        if (!plausibleAmount(n)) return onSkip('implausible_value');
        store.add('premiumRequests', { ...hp(), model: store.models.label(harness, model) }, n);
      },
      usageLimit(window, usedRatio, resetsAt) {
        const k = `limit:${harness}/${window}`;
        store.usageLimits.set(k, { harness, window, usedRatio, ...(resetsAt ? { resetsAt } : {}) });
        store.dirtyLimits.add(k);
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
        store.pendingSeen.add(`${collector}\0${k}`);
        return true;
      },
      record(k) {
        if (store.seen(collector, `record:${k}`)) store.muted = true;
        else store.recordKey = `${collector}\0record:${k}`;
      },
    };
  }

  /** Adds to the spend of the day of `ts`, keeping only the last week's days. */
  private spent(ts: number, key: string, usd: number): void {
    if (!(usd > 0) || Date.now() - ts > SPEND_DAYS * 86_400_000) return;
    const day = localDay(ts);
    let spend = this.spendByDay.get(day);
    if (!spend) {
      this.spendByDay.set(day, (spend = {}));
      const days = [...this.spendByDay.keys()].sort();
      for (const old of days.slice(0, Math.max(0, days.length - SPEND_DAYS))) {
        this.spendByDay.delete(old);
        this.dirtySpend.add(old);
      }
    }
    spend[key] = (spend[key] ?? 0) + usd;
    this.dirtySpend.add(day);
  }

  /** A file read up to `row.offset`: committed with the changes its lines made. */
  stageFile(row: FileRow, bytesRead: number): void {
    this.stagedFiles.set(row.path, row);
    this.stagedRemoved.delete(row.path);
    this.stagedBytes += bytesRead;
  }

  /** A file gone (deleted or moved): its offset is forgotten at the next commit. */
  stageRemoval(path: string): void {
    this.stagedFiles.delete(path);
    this.stagedRemoved.add(path);
  }

  /**
   * Commits when a second has passed or enough was read since the last commit: one transaction
   * per file would cost more than reading the file.
   */
  commitIfDue(): void {
    if (this.stagedBytes >= COMMIT_BYTES || Date.now() - this.lastCommit >= COMMIT_MS) this.commit();
  }

  /**
   * Writes every change since the last commit together with the offsets of every file they came
   * from, in one transaction: whatever was not committed is read again after a crash.
   */
  commit(): void {
    const changes: Changes = {
      files: [...this.stagedFiles.values()],
      removedFiles: [...this.stagedRemoved],
      sessions: [...this.dirtySessions].map((key) => ({ key, data: JSON.stringify(this.sessions.get(key)) })),
      counters: [...this.dirtyCounters].map((key): CounterRow => {
        const c = this.counters.get(key)!;
        return { key, metric: c.metric, labels: JSON.stringify(c.labels), value: c.value };
      }),
      seen: [...this.pendingSeen],
      kv: [
        ...[...this.dirtyLimits].map((key) => ({ key, value: JSON.stringify(this.usageLimits.get(key)) })),
        ...[...this.dirtyRequestTokens].map((key) => ({ key, value: JSON.stringify(this.requestTokens.get(key)) })),
        // A day dropped from the week is written as null, which start-up skips.
        ...[...this.dirtySpend].map((day) => ({ key: `spend:${day}`, value: JSON.stringify(this.spendByDay.get(day) ?? null) })),
      ],
    };
    this.db.commit(changes);
    this.stagedFiles.clear();
    this.stagedRemoved.clear();
    this.stagedBytes = 0;
    this.lastCommit = Date.now();
    this.dirtyCounters.clear();
    this.dirtySessions.clear();
    this.dirtyLimits.clear();
    this.dirtyRequestTokens.clear();
    this.dirtySpend.clear();
    this.pendingSeen.clear();
    this.onCommit?.();
  }
}
