// The session store: the sessions and the cumulative counters, changed by the readers' sinks
// (sink.ts) and the process scan, kept until they are committed to the state database with the
// file offsets they came from, and read by the outputs without any I/O. Others read its fields
// and change it only through its methods; the outputs follow its one change signal (`onChange`).

import { catalog, type LabelsOf, type MetricKey } from '../catalog.js';
import type { PriceTable } from '../pricing/prices.js';
import { LabelCap, usageWindow } from '../session/labels.js';
import { ProjectNamer, UNKNOWN_PROJECT, type ProjectOptions } from '../session/project.js';
import {
  PendingCalls,
  ZERO_USAGE,
  type HarnessFacts,
  type HarnessId,
  type HookState,
  type RegistryEntry,
  type Session,
  type TurnOutcome,
} from '../session/types.js';
import { REQUEST_TOKEN_BOUNDARIES } from '../session/vocabulary.js';
import {
  FIRST_READ_KEY,
  type Changes,
  type CounterRow,
  type FileRow,
  type LedgerRow,
  type StateDb,
} from '../state/db.js';
import { EMPTY_VIEW, type ProcessView } from './processes.js';
import { UsageBlocks } from './blocks.js';
import type { LimitWindow } from './limits.js';
import { SpendByDay } from './spend.js';
import { DEFAULT_LEDGER_DAYS, Ledger } from './ledger.js';

// Sessions whose hook state is kept: the oldest go first past this many.
const MAX_HOOK_SESSIONS = 10_000;

// Commit after this much reading or this long, whichever comes first.
const COMMIT_BYTES = 32 << 20;
const COMMIT_MS = 1000;

// The project naming the counters were labelled by (kv): a change of it is told at start.
const NAMING_KEY = 'project:naming';

/** A session as stored: the normalized record plus its project label, fixed when first seen. */
export interface StoredSession extends Session {
  project: string;
}

/** Distinct `model` and `tool` label values per harness exported at most. */
export interface LabelCaps {
  model: number;
  tool: number;
}

export interface UsageLimit extends LimitWindow {
  harness: HarnessId;
  window: string;
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

export interface Counter {
  key: string;
  metric: MetricKey;
  labels: Record<string, string>;
  value: number;
  /**
   * The value as of the last commit, which is what is served: a restart resumes from the commit,
   * so a value served before it could be served lower after a crash (read by Prometheus as a
   * reset, the total counted again). Absent until the series is first committed.
   */
  committed?: number;
}

// Hook phases after an answer that say its turn went on: a tool about to run, asking, or done.
const WENT_ON: ReadonlySet<HookState['phase']> = new Set(['tool', 'permission', 'tool-done']);

/** Where a counter's increments go: the store itself, or a sink that may be muted. */
export interface Tally {
  /** Whether the counter moved (not when muted). */
  add<K extends MetricKey>(metric: K, labels: LabelsOf<K>, delta: number): boolean;
}

/** A reader's dedupe key `k` as the store keeps it: scoped by the collector that read it. */
export function dedupeKey(collector: string, k: string): string {
  return `${collector}\0${k}`;
}

/** A request histogram's key (in `requestTokens`, and of its row in the state database). */
function requestTokensKey(h: Pick<RequestTokens, 'harness' | 'model' | 'type'>): string {
  return `reqtok:${h.harness}\0${h.model}\0${h.type}`;
}

export class SessionStore implements Tally {
  readonly counters = new Map<string, Counter>();
  readonly sessions = new Map<string, StoredSession>();
  readonly usageLimits = new Map<string, UsageLimit>();
  readonly requestTokens = new Map<string, RequestTokens>();
  /** The histograms as of the last commit: what is served (see Counter.committed). */
  readonly committedRequestTokens = new Map<string, RequestTokens>();
  readonly spend = new SpendByDay();
  /** What was used per quarter hour, harness, project and model since the last commit (ledger.ts). */
  readonly ledger: Ledger;
  /** Where the status contract treats a harness differently, as its reader declared it (`declareFacts`). */
  private readonly facts = new Map<HarnessId, HarnessFacts>();
  /** Each harness's requests of the last 10 hours, for its 5-hour blocks. */
  readonly blocks = new UsageBlocks();
  /** The processes harnesses registered in their files, per harness and root (`setRegistry`), refreshed on every scan. */
  private readonly registries = new Map<string, RegistryEntry[]>();
  /** What the last process scan saw (`setProcessView`; never persisted): replaced whole, read by scrapes without I/O. */
  private view: ProcessView = EMPTY_VIEW;
  /** A process scan runs (`watchProcesses`). */
  private watched = false;
  /**
   * The last hook event of each session that has hooks set up (by key), from the hook spool
   * (`setHook`, from hooks/source.ts); never persisted: the spool is read again on start. Empty
   * without hooks.
   */
  private readonly hookStates = new Map<string, HookState>();
  private readonly projects: ProjectNamer;
  /**
   * The project naming (`project.mode` and `project.aliases`, as JSON) what was counted was
   * labelled by, where it is not the one now: those series keep their labels (see `projectOf`).
   */
  readonly projectNamingWas?: string;
  /** The project naming to persist with the next commit (it changed, or none was persisted). */
  private namingToCommit?: string;
  readonly models: LabelCap;
  readonly tools: LabelCap;
  private readonly dirtyCounters = new Set<string>();
  private readonly dirtySessions = new Set<string>();
  /** The session `changed` last marked, and its key (a reader marks the same one on nearly every event). */
  private lastChanged?: { s: StoredSession; id: string; key: string };
  private readonly removedSessions = new Set<string>();
  private readonly dirtyLimits = new Set<string>();
  private readonly dirtyRequestTokens = new Set<RequestTokens>();
  private readonly pendingSeen = new Set<string>();
  /** What `counter` gives a report's own read. */
  private readonly unkept: Counter = { key: '', metric: 'tokens', labels: {}, value: 0 };
  private readonly stagedFiles = new Map<string, FileRow>();
  private readonly stagedRemoved = new Set<string>();
  private stagedBytes = 0;
  private lastCommit = Date.now();
  /** Rows of the key-value table written with the next commit. */
  private readonly pendingKv = new Map<string, string>();
  /** Told whenever what is served may have changed (`onChange`). */
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly db: StateDb,
    readonly prices: PriceTable,
    projectOptions: ProjectOptions,
    caps: LabelCaps = { model: 50, tool: 100 },
    ledgerDays = DEFAULT_LEDGER_DAYS,
    /**
     * A report's own read (`report` with no state database): its state is private and thrown
     * away, and the report asks the database only for the ledger. So it commits once, at the end
     * of the read, and writes the ledger alone; the dedupe keys stay in memory (still
     * deduplicating), files, sessions, counters and the rest are never written (they were a
     * twentieth of a cold report's time).
     */
    readonly ledgerOnly = false,
  ) {
    this.ledger = new Ledger(ledgerDays);
    for (const row of db.counters()) {
      // A value that is not finite (+Inf, stored by versions that added whatever a record said)
      // can never move again: it starts over, which Prometheus reads as a counter reset.
      const value = Number.isFinite(row.value) ? row.value : 0;
      this.counters.set(row.key, {
        key: row.key,
        metric: row.metric as MetricKey,
        labels: JSON.parse(row.labels) as Record<string, string>,
        value,
        committed: value,
      });
    }
    for (const row of db.sessions()) {
      const s = JSON.parse(row.data) as StoredSession;
      s.pendingTools = PendingCalls.of(s.pendingTools);
      this.sessions.set(row.key, s);
    }
    let namingWas: string | undefined;
    for (const row of db.kv()) {
      if (row.key === NAMING_KEY) namingWas = row.value;
      if (row.key.startsWith('limit:')) {
        // Windows outside the bounded set, kept by older versions, are not exported again.
        const limit = JSON.parse(row.value) as UsageLimit;
        if (usageWindow(limit.window) === limit.window) this.usageLimits.set(row.key, limit);
      }
      if (row.key.startsWith('reqtok:')) {
        this.requestTokens.set(row.key, JSON.parse(row.value) as RequestTokens);
        this.committedRequestTokens.set(row.key, JSON.parse(row.value) as RequestTokens);
      }
      this.spend.load(row.key, row.value);
      this.blocks.load(row.key, row.value);
    }
    const naming = JSON.stringify({ mode: projectOptions.mode, aliases: projectOptions.aliases });
    if (namingWas !== naming) {
      this.namingToCommit = naming;
      if (namingWas !== undefined && this.counters.size > 0) this.projectNamingWas = namingWas;
    }
    const known = [...this.counters.values()].map((c) => c.labels.project).filter((p): p is string => p !== undefined);
    this.projects = new ProjectNamer(projectOptions, known);
    const knownOf = (label: string) =>
      [...this.counters.values()]
        .filter((c) => c.labels[label] !== undefined)
        .map((c): [string, string] => [c.labels.harness!, c.labels[label]!]);
    this.models = new LabelCap(caps.model, knownOf('model'));
    this.tools = new LabelCap(caps.tool, knownOf('tool'));
  }

  /** Where the status contract treats a harness differently, as its reader declared it. */
  get harnessFacts(): ReadonlyMap<HarnessId, HarnessFacts> {
    return this.facts;
  }

  /** A harness's reader declares where the status contract treats it differently (its collector, once). */
  declareFacts(harness: HarnessId, facts: HarnessFacts): void {
    this.facts.set(harness, facts);
  }

  /** The processes a harness registered in its files under `root`, as its collector last listed them. */
  setRegistry(harness: HarnessId, root: string, entries: RegistryEntry[]): void {
    this.registries.set(`${harness}\0${root}`, entries);
  }

  /** Every harness's registry entries, as the collectors last listed them. */
  registryEntries(): [HarnessId, RegistryEntry][] {
    const out: [HarnessId, RegistryEntry][] = [];
    for (const [key, entries] of this.registries) {
      const harness = key.slice(0, key.indexOf('\0')) as HarnessId;
      for (const e of entries) out.push([harness, e]);
    }
    return out;
  }

  /** What the last process scan saw; EMPTY_VIEW before one (or without one). */
  get processes(): ProcessView {
    return this.view;
  }

  /** The process scan's new view, replacing the last one whole. */
  setProcessView(view: ProcessView): void {
    this.view = view;
  }

  /**
   * Whether a process scan runs: it settles the turns answers ended unsure, by the agent's exit or
   * its absence. Without one, an answer's end is counted at once.
   */
  get processesWatched(): boolean {
    return this.watched;
  }

  /** A process scan runs from now on (the monitor, as it is made). */
  watchProcesses(): void {
    this.watched = true;
  }

  /** The last hook event of each session that has hooks set up, by key. */
  get hooks(): ReadonlyMap<string, HookState> {
    return this.hookStates;
  }

  /** A session's last hook event (merged with the one before by hooks/source.ts): the freshest kept, the oldest dropped past a bound. */
  setHook(key: string, state: HookState): void {
    this.hookStates.delete(key);
    this.hookStates.set(key, state);
    if (this.hookStates.size > MAX_HOOK_SESSIONS) this.hookStates.delete(this.hookStates.keys().next().value!);
  }

  /**
   * Calls `listener` whenever what is served may have changed: after every commit (the counters
   * are served at their committed values: Counter.committed), and when `touch` says so. The one
   * signal the outputs follow: the server renders again, the pushes take a new snapshot.
   */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * What is served changed without a commit: the process view, a hook event, a usage limit read
   * beside the files, a collector's stats, or time alone (statuses, the process's own metrics).
   */
  touch(): void {
    for (const l of this.listeners) l();
  }

  /** Whether a dedupe key (`dedupeKey`) was seen (committed, or since the last commit). */
  seen(key: string): boolean {
    return this.pendingSeen.has(key) || this.db.seen(key);
  }

  /** A dedupe key (`dedupeKey`) seen: committed with the next commit. */
  markSeen(key: string): void {
    this.pendingSeen.add(key);
  }

  /**
   * The project label of a folder (for processes no session file names). A session's label is
   * fixed when it is first seen, and a counter is kept per label, not per folder: after a change
   * of `project.mode` or of the aliases, what was counted keeps its label (a `name` label may hold
   * two repositories of one name, which no later mode could split: a counter never goes
   * backwards), and only sessions first seen after it take the new one.
   */
  projectOf(cwd: string): string {
    return this.projects.label(cwd);
  }

  /** Whether a project was folded into `other` (past `project.max`): which ones depends on the order sessions came in. */
  get projectsFolded(): boolean {
    return this.projects.folded;
  }

  /** A session of `harness`, created on its first record: every change to it is committed with the next commit. */
  sessionFor(harness: HarnessId, id: string, usageUnrecorded: boolean): StoredSession {
    const key = `${harness}/${id}`;
    let s = this.sessions.get(key);
    if (!s) {
      s = {
        harness,
        id,
        project: UNKNOWN_PROJECT,
        startedAt: Date.now(),
        lastActivityAt: 0,
        pendingTools: new PendingCalls(),
        tokens: { ...ZERO_USAGE },
        costUsd: 0,
        ...(usageUnrecorded ? { usageUnrecorded: true as const } : {}),
      };
      this.sessions.set(key, s);
    }
    return s;
  }

  /** A session changed (or is about to): committed with the next commit. */
  changed(s: StoredSession): void {
    const last = this.lastChanged;
    // Its key built once: a new string per event cost a build and a hash of it each time.
    if (last?.s === s && last.id === s.id && this.dirtySessions.has(last.key)) return;
    const key = `${s.harness}/${s.id}`;
    this.dirtySessions.add(key);
    this.lastChanged = { s, id: s.id, key };
  }

  /**
   * Renames the sessions of `harness` that `rename` gives another id (ids of an older release,
   * its reader's `renamedSession`): what a session holds goes on under its new id, and the old
   * one is deleted with the next commit. Where the new id is taken, the old session is dropped.
   */
  renameSessions(harness: HarnessId, rename: (id: string) => string | undefined): void {
    for (const [key, s] of [...this.sessions]) {
      if (s.harness !== harness) continue;
      const id = rename(s.id);
      if (id === undefined || id === s.id) continue;
      this.sessions.delete(key);
      this.dirtySessions.delete(key);
      this.removedSessions.add(key);
      const to = `${harness}/${id}`;
      if (this.sessions.has(to)) continue;
      s.id = id;
      this.sessions.set(to, s);
      this.removedSessions.delete(to);
      this.changed(s);
    }
  }

  /** The harness archived a session (its file moved away, so its records cannot say). */
  archive(key: string): void {
    const s = this.sessions.get(key);
    if (!s || s.archived) return;
    s.archived = true;
    this.changed(s);
  }

  /**
   * The process that owns a session now (persisted, so that a process that dies while the
   * exporter is down still ends its open turn), or none: then an open turn was cut off and ends
   * now, counted once as interrupted (a harness killed mid-turn writes nothing).
   */
  setOwner(key: string, owner: StoredSession['owner'], at: number): void {
    const s = this.sessions.get(key);
    if (!s) return;
    if (owner) s.owner = owner;
    else {
      delete s.owner;
      if (this.endTurn(s, 'interrupted', at, this)) delete s.subagents;
      else this.settleTurn(s, this.wentOn(s, this.hookStates.get(key)) ? 'interrupted' : 'completed', at);
    }
    this.changed(s);
  }

  /** A tool ran after the answer that seemed to end a session's turn: the turn went on (Gemini CLI). */
  toolRanAfterAnswer(s: StoredSession): void {
    if (!s.lastTurn?.unsure || s.lastTurn.wentOn) return;
    s.lastTurn.wentOn = true;
    this.changed(s);
  }

  /**
   * Whether a turn an answer seemed to end went on after it: a tool of the agent's was seen
   * running, or the last hook event, after the answer, is a tool's or a permission's.
   */
  private wentOn(s: StoredSession, hook: HookState | undefined): boolean {
    const last = s.lastTurn;
    if (!last?.unsure) return false;
    return last.wentOn === true || (hook !== undefined && hook.at >= last.endedAt && WENT_ON.has(hook.phase));
  }

  /**
   * Counts the end of a turn an answer ended unsure (SessionEvents.turnEnded) as `outcome`: as
   * the answer's end where the turn completed, at `at` where it was cut off. False when none waits.
   */
  settleTurn(s: StoredSession, outcome: TurnOutcome, at: number): boolean {
    const last = s.lastTurn;
    if (!last?.unsure) return false;
    const endedAt = outcome === 'completed' ? last.endedAt : at;
    this.countTurn(s, outcome, endedAt, this);
    s.lastTurn = { outcome, endedAt, ...(last.startedAt !== undefined ? { startedAt: last.startedAt } : {}) };
    this.changed(s);
    return true;
  }

  /**
   * Ends a session's open turn as `outcome` at `ts`, counted once on `tally`; false when none is
   * open (a turn's end can be written more than once: an answer's end, then the turn summary).
   */
  endTurn(s: StoredSession, outcome: TurnOutcome, ts: number, tally: Tally, unsure = false): boolean {
    if (s.turnStartedAt === undefined) return false;
    // A turn reopened after its end was counted is counted already: its end is sure.
    const hold = unsure && !s.turnCounted;
    if (!s.turnCounted && !hold) this.countTurn(s, outcome, ts, tally);
    s.lastTurn = { outcome, endedAt: ts, startedAt: s.turnStartedAt, ...(hold ? { unsure: true as const } : {}) };
    s.turnStartedAt = undefined;
    delete s.turnCounted;
    s.pendingTools = new PendingCalls();
    return true;
  }

  private countTurn(s: StoredSession, outcome: TurnOutcome, ts: number, tally: Tally): void {
    if (tally.add('turns', { harness: s.harness, project: s.project, outcome }, 1)) {
      (s.turnsByOutcome ??= {})[outcome] = (s.turnsByOutcome[outcome] ?? 0) + 1;
      this.ledger.turn(
        ts,
        s.harness,
        s.project,
        s.model === undefined ? '' : this.models.label(s.harness, s.model),
        outcome,
      );
    }
  }

  /** The counter of a series, created at 0 (tokens of every type show once a model is used). */
  counter<K extends MetricKey>(metric: K, labels: LabelsOf<K>): Counter {
    // A report's own read keeps no counter (`bump` tells only whether one would move, and a counter
    // it never moves is 0): one stands for all, with no key built per call.
    if (this.ledgerOnly) return this.unkept;
    // Keyed and kept in the catalog's label order, whatever order the labels were written in: one
    // series, one key (also the key of its row in the state database).
    const names = catalog[metric].labels as readonly (keyof LabelsOf<K>)[];
    const key = `${metric}\0${names.map((n) => labels[n]).join('\0')}`;
    let c = this.counters.get(key);
    if (!c) {
      c = { key, metric, labels: Object.fromEntries(names.map((n) => [n, labels[n]])), value: 0 };
      this.counters.set(key, c);
      this.dirtyCounters.add(key);
    }
    return c;
  }

  /** Adds to a counter; never lowers one, never makes it infinite. Whether it moved. */
  bump(c: Counter, delta: number): boolean {
    if (!(delta > 0) || !Number.isFinite(c.value + delta)) return false;
    // A report's own read commits no counter: whether one moves is all it asks (a record that moved
    // one is not counted again).
    if (this.ledgerOnly) return true;
    c.value += delta;
    this.dirtyCounters.add(c.key);
    return true;
  }

  add<K extends MetricKey>(metric: K, labels: LabelsOf<K>, delta: number): boolean {
    return this.bump(this.counter(metric, labels), delta);
  }

  /**
   * The histogram of the requests of one harness, model and token type, made empty where there is
   * none: a sink looks it up once per model, not on every request (`observeRequest`).
   */
  requestTokensOf(harness: string, model: string, type: RequestTokens['type']): RequestTokens {
    const key = requestTokensKey({ harness, model, type });
    let h = this.requestTokens.get(key);
    if (!h) {
      h = { harness, model, type, counts: new Array<number>(REQUEST_TOKEN_BOUNDARIES.length + 1).fill(0), sum: 0 };
      this.requestTokens.set(key, h);
    }
    return h;
  }

  /** One model request's tokens into its histogram (`requestTokensOf`). */
  observeRequest(h: RequestTokens, tokens: number): void {
    if (this.ledgerOnly) return; // a report's own read commits the ledger alone
    let bucket = 0;
    while (bucket < REQUEST_TOKEN_BOUNDARIES.length && !(tokens <= REQUEST_TOKEN_BOUNDARIES[bucket]!)) bucket++;
    h.counts[bucket]!++;
    h.sum += tokens;
    this.dirtyRequestTokens.add(h);
  }

  /** A usage-limit window as the harness last reported it. */
  setUsageLimit(limit: UsageLimit): void {
    const k = `limit:${limit.harness}/${limit.window}`;
    this.usageLimits.set(k, limit);
    this.dirtyLimits.add(k);
  }

  /**
   * The committed ledger's rows of the hours from `fromHour` up to `toHour` (a query of the state
   * database: for a report or after a commit, never on a scrape; what is not committed yet is not in it).
   */
  ledgerRows(fromHour: number, toHour: number): LedgerRow[] {
    return this.db.ledger(fromHour, toHour);
  }

  /** A file read up to `row.offset`: committed with the changes its lines made. */
  stageFile(row: FileRow, bytesRead: number): void {
    if (this.ledgerOnly) return;
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
   * A collector's scan is done: its changes committed (which tells the outputs). A report's read
   * commits once, at its end, as `commitIfDue` says: its collectors are read together, and one's
   * end would commit a part of another's sums.
   */
  scanned(): void {
    if (!this.ledgerOnly) this.commit();
  }

  /**
   * Commits when a second has passed or enough was read since the last commit: one transaction
   * per file would cost more than reading the file.
   */
  commitIfDue(): void {
    // A report's read commits once, at its end: floating-point sums grouped by where a commit fell
    // (a second's timing) would change a cost's last digits from run to run.
    if (this.ledgerOnly) return;
    if (this.stagedBytes >= COMMIT_BYTES || Date.now() - this.lastCommit >= COMMIT_MS) this.commit();
  }

  /**
   * A first read of the files starts (`underWay`) or is done: committed at once, so that `report`,
   * reading beside, says its totals are a part while it runs (or after it was killed).
   */
  markFirstRead(underWay: boolean): void {
    this.pendingKv.set(FIRST_READ_KEY, underWay ? String(Date.now()) : '');
    this.commit();
  }

  /**
   * Commits what changed outside a file's read (a process scan ending a turn, settling one): such
   * a change is served once committed, and a change there is rare, so it is not left waiting.
   * Whether it committed.
   */
  commitIfChanged(): boolean {
    const changed =
      this.dirtyCounters.size > 0 ||
      this.dirtySessions.size > 0 ||
      this.dirtyLimits.size > 0 ||
      this.stagedFiles.size > 0;
    if (changed) this.commit();
    return changed;
  }

  /**
   * Writes every change since the last commit together with the offsets of every file they came
   * from, in one transaction: whatever was not committed is read again after a crash. Only then
   * are the counters served at their new values (Counter.committed): nothing is served that a
   * restart would not resume from. The store is whole at every point a read yields (between
   * files), so a commit may come from anywhere that runs then.
   */
  commit(): void {
    const ledger = this.ledger.changes();
    const changes: Changes = this.ledgerOnly
      ? { ...ledger, files: [], removedFiles: [], sessions: [], counters: [], seen: [], kv: [] }
      : {
          ...ledger,
          files: [...this.stagedFiles.values()],
          removedFiles: [...this.stagedRemoved],
          removedSessions: [...this.removedSessions],
          sessions: [...this.dirtySessions].map((key) => ({ key, data: JSON.stringify(this.sessions.get(key)) })),
          counters: [...this.dirtyCounters].map((key): CounterRow => {
            const c = this.counters.get(key)!;
            return { key, metric: c.metric, labels: JSON.stringify(c.labels), value: c.value };
          }),
          seen: [...this.pendingSeen],
          kv: [
            ...[...this.dirtyLimits].map((key) => ({ key, value: JSON.stringify(this.usageLimits.get(key)) })),
            ...[...this.dirtyRequestTokens].map((h) => ({ key: requestTokensKey(h), value: JSON.stringify(h) })),
            ...this.spend.changes(),
            ...this.blocks.changes(),
            ...(this.namingToCommit !== undefined ? [{ key: NAMING_KEY, value: this.namingToCommit }] : []),
            ...[...this.pendingKv].map(([key, value]) => ({ key, value })),
          ],
        };
    this.db.commit(changes);
    for (const key of this.dirtyCounters) {
      const c = this.counters.get(key)!;
      c.committed = c.value;
    }
    for (const h of this.dirtyRequestTokens)
      this.committedRequestTokens.set(requestTokensKey(h), { ...h, counts: [...h.counts] });
    this.stagedFiles.clear();
    this.stagedRemoved.clear();
    this.stagedBytes = 0;
    this.lastCommit = Date.now();
    this.dirtyCounters.clear();
    this.dirtySessions.clear();
    this.removedSessions.clear();
    this.dirtyLimits.clear();
    this.dirtyRequestTokens.clear();
    this.spend.committed();
    this.blocks.committed();
    this.ledger.committed(ledger);
    if (!this.ledgerOnly) this.pendingSeen.clear();
    this.namingToCommit = undefined;
    this.pendingKv.clear();
    this.touch();
  }
}
