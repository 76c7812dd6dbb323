// The reports of the `report` command, from the ledger (daily, weekly, monthly, blocks) or the
// sessions (session): rows of summed usage with ccusage's field names where the same thing is
// meant (input without cache, output with reasoning), so that scripts written for ccusage's
// `--json` keep working. Pure: the command reads the state and prints what these return.

import type { LedgerRow } from '../state/db.js';
import { BLOCK_MS, groupBlocks, projection } from '../store/blocks.js';
import { dayOf, emptyRow, rowStart } from '../store/ledger.js';
import type { StoredSession } from '../store/store.js';
import type { ModelUse } from '../session/types.js';

import type { Breakdown } from './words.js';

export interface ReportOptions {
  /** First and last day (YYYY-MM-DD, both included) in `timeZone`. */
  since?: string;
  until?: string;
  harness?: string;
  project?: string;
  model?: string;
  breakdown?: Breakdown;
  /** An IANA time zone; undefined: the system's. */
  timeZone?: string;
  /** Rows oldest first (`asc`, the default) or newest first. */
  order?: 'asc' | 'desc';
  /** The narrow table: period, models, input, output, cost (ccusage's `--compact`). */
  compact?: true;
  /** The last N days, weeks or months, today's included (sets `since`). */
  last?: number;
  /** The day weeks start on (`report.startOfWeek`), 0 (Sunday, as `ccusage claude weekly`) to 6 (Saturday). */
  startOfWeek?: number;
}

/** Usage summed, as ccusage names it. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  totalTokens: number;
  /** Part of outputTokens (ccusage codex's name); 0 where a harness records none. */
  reasoningOutputTokens: number;
  totalCost: number;
  requests: number;
  sessions: number;
  turns: { completed: number; failed: number; interrupted: number };
}

export interface Breakdowns {
  modelsUsed: string[];
  modelBreakdowns: ({ modelName: string; cost: number } & Omit<Usage, 'totalCost'>)[];
  /** With --breakdown project or harness: that split too. */
  projectBreakdowns?: ({ projectName: string; cost: number } & Omit<Usage, 'totalCost'>)[];
  harnessBreakdowns?: ({ harnessName: string; cost: number } & Omit<Usage, 'totalCost'>)[];
}

export type PeriodRow = Usage & Breakdowns & { period: string };

const zero = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
  totalTokens: 0,
  reasoningOutputTokens: 0,
  totalCost: 0,
  requests: 0,
  sessions: 0,
  turns: { completed: 0, failed: 0, interrupted: 0 },
});

function addRow(u: Usage, r: LedgerRow): void {
  u.inputTokens += r.input;
  u.outputTokens += r.output;
  u.cacheReadTokens += r.cacheRead;
  u.cacheCreationTokens += r.cacheWrite;
  u.totalTokens += r.input + r.output + r.cacheRead + r.cacheWrite;
  u.reasoningOutputTokens += r.reasoning;
  u.totalCost += r.costUsd;
  u.requests += r.requests;
  u.sessions += r.sessions;
  u.turns.completed += r.turnsCompleted;
  u.turns.failed += r.turnsFailed;
  u.turns.interrupted += r.turnsInterrupted;
}

export function addUsage(into: Usage, u: Usage): void {
  for (const k of [
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheCreationTokens',
    'totalTokens',
    'reasoningOutputTokens',
    'totalCost',
    'requests',
    'sessions',
  ] as const)
    into[k] += u[k];
  for (const k of ['completed', 'failed', 'interrupted'] as const) into.turns[k] += u.turns[k];
}

export function totalsOf(rows: readonly Usage[]): Usage {
  const t = zero();
  for (const r of rows) addUsage(t, r);
  return t;
}

/**
 * The period of a day: itself, its week (named by its first day, as ccusage's weeks: the Sunday
 * unless `startOfWeek` says another), or its month. Days are the report zone's, so weeks are exact in every zone.
 */
function periodOf(
  day: string,
  kind: 'daily' | 'weekly' | 'monthly',
  startOfWeek: ReportOptions['startOfWeek'],
): string {
  if (kind === 'daily') return day;
  if (kind === 'monthly') return day.slice(0, 7);
  const t = Date.parse(`${day}T00:00:00Z`);
  const back = (new Date(t).getUTCDay() - (startOfWeek ?? 0) + 7) % 7;
  return new Date(t - back * 86_400_000).toISOString().slice(0, 10);
}

/** The first day of the last `n` days, weeks or months up to today (in `o.timeZone`), as `--last` reaches back. */
export function lastSince(kind: 'daily' | 'weekly' | 'monthly', n: number, o: ReportOptions, now: number): string {
  const today = dayOf(now, o.timeZone);
  const t = Date.parse(`${today}T00:00:00Z`);
  if (kind === 'daily') return new Date(t - (n - 1) * 86_400_000).toISOString().slice(0, 10);
  if (kind === 'weekly')
    return new Date(Date.parse(`${periodOf(today, 'weekly', o.startOfWeek)}T00:00:00Z`) - (n - 1) * 7 * 86_400_000)
      .toISOString()
      .slice(0, 10);
  const d = new Date(t);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (n - 1), 1)).toISOString().slice(0, 10);
}

/** Rows oldest first, or newest first with `--order desc`. */
const ordered = <T>(rows: T[], o: ReportOptions): T[] => (o.order === 'desc' ? rows.reverse() : rows);

/** A row whose every request moved to a later quarter hour (a response streamed across it): no day of its own. */
const holdsNothing = (r: LedgerRow) =>
  r.requests === 0 &&
  r.sessions === 0 &&
  r.input === 0 &&
  r.output === 0 &&
  r.cacheRead === 0 &&
  r.cacheWrite === 0 &&
  r.turnsCompleted === 0 &&
  r.turnsFailed === 0 &&
  r.turnsInterrupted === 0;

/**
 * The ledger's rows the filters keep, each with its day in the report's time zone: the day its
 * quarter hour falls on, exact in every zone (their offsets are whole quarters).
 */
export function selectRows(rows: readonly LedgerRow[], o: ReportOptions): (LedgerRow & { day: string })[] {
  const days = new Map<number, string>();
  const out: (LedgerRow & { day: string })[] = [];
  for (const r of rows) {
    if (
      (o.harness && r.harness !== o.harness) ||
      (o.project && r.project !== o.project) ||
      (o.model && r.model !== o.model)
    )
      continue;
    if (holdsNothing(r)) continue;
    const start = rowStart(r);
    let day = days.get(start);
    if (day === undefined) days.set(start, (day = dayOf(start, o.timeZone)));
    if ((o.since && day < o.since) || (o.until && day > o.until)) continue;
    out.push({ ...r, day });
  }
  return out;
}

/** A row's value of a label: the ledger's own three, or any other a store's series carries ('' where it has none). */
const labelOf = (r: LedgerRow & { labels?: Readonly<Record<string, string>> }, label: string): string =>
  label === 'harness' || label === 'project' || label === 'model' ? r[label] : (r.labels?.[label] ?? '');

/** The split of some rows by one label, largest cost first (then name). */
function split(rows: readonly LedgerRow[], by: string): { name: string; cost: number; usage: Usage }[] {
  const groups = new Map<string, Usage>();
  for (const r of rows) {
    const name = labelOf(r, by);
    let u = groups.get(name);
    if (!u) groups.set(name, (u = zero()));
    addRow(u, r);
  }
  return [...groups]
    .map(([name, usage]) => ({ name, cost: usage.totalCost, usage }))
    .sort((a, b) => b.cost - a.cost || a.name.localeCompare(b.name));
}

/**
 * The models, and with a breakdown by another label its split too, as `<label>Breakdowns` of
 * `<label>Name`s (projectBreakdowns, harnessBreakdowns; from a store userBreakdowns, instanceBreakdowns, …).
 */
function breakdowns(rows: readonly LedgerRow[], by: string | undefined): Breakdowns {
  // A model of '' holds a session's turns ended before any of its requests named a model.
  const models = split(rows, 'model').filter((m) => m.name !== '');
  const b: Breakdowns = {
    modelsUsed: models.map((m) => m.name).sort(),
    modelBreakdowns: models.map(({ name, cost, usage: { totalCost: _, ...u } }) => ({ modelName: name, cost, ...u })),
  };
  if (by !== undefined && by !== 'model') {
    (b as unknown as Record<string, unknown>)[`${by}Breakdowns`] = split(rows, by).map(
      ({ name, cost, usage: { totalCost: _, ...u } }) => ({ [`${by}Name`]: name, cost, ...u }),
    );
  }
  return b;
}

/** The rows of some dated rows (the ledger's as selectRows dates them, or a store's), split by `by` too. */
export function periodRows(
  rows: readonly (LedgerRow & { day: string })[],
  kind: 'daily' | 'weekly' | 'monthly',
  o: ReportOptions,
  by?: string,
): PeriodRow[] {
  const byPeriod = new Map<string, LedgerRow[]>();
  for (const r of rows) {
    const p = periodOf(r.day, kind, o.startOfWeek);
    let list = byPeriod.get(p);
    if (!list) byPeriod.set(p, (list = []));
    list.push(r);
  }
  return ordered(
    [...byPeriod.keys()].sort().map((period) => {
      const list = byPeriod.get(period)!;
      const u = zero();
      for (const r of list) addRow(u, r);
      return { period, ...u, ...breakdowns(list, by) };
    }),
    o,
  );
}

/** ccusage's `-i`: a project's period rows, each naming it (`project`, its label as the metrics and `--project` write it). */
export interface ProjectRows {
  project: string;
  rows: (PeriodRow & { project: string })[];
}

/** Each project's rows of some dated rows (periodRows of its rows alone: its own models), projects sorted by name. */
export function projectRows(
  rows: readonly (LedgerRow & { day: string })[],
  kind: 'daily' | 'weekly' | 'monthly',
  o: ReportOptions,
): ProjectRows[] {
  const byProject = new Map<string, (LedgerRow & { day: string })[]>();
  for (const r of rows) {
    let list = byProject.get(r.project);
    if (!list) byProject.set(r.project, (list = []));
    list.push(r);
  }
  return [...byProject.keys()].sort().map((project) => ({
    project,
    rows: periodRows(byProject.get(project)!, kind, o).map((r) => ({ ...r, project })),
  }));
}

export interface SessionRow extends Usage, Breakdowns {
  sessionId: string;
  harness: string;
  /** The session's working folder, as ccusage gives it ('' where the harness records none). */
  projectPath: string;
  /** Its project label, as the metrics name it. */
  project: string;
  firstActivity: string;
  lastActivity: string;
}

/** A session's use of each model as ledger rows (its own split, or its whole use under its last model). */
function sessionRows(s: StoredSession): LedgerRow[] {
  const row = (model: string, m: ModelUse): LedgerRow => ({ ...emptyRow(0, 0, s.harness, s.project, model), ...m });
  if (s.byModel) return Object.entries(s.byModel).map(([model, m]) => row(model, m));
  const t = s.tokens;
  return s.model ? [row(s.model, { ...t, costUsd: s.costUsd, requests: 0 })] : [];
}

/**
 * One row per session last active in the range, most recent last (as ccusage lists them). From the
 * session records: a session's tokens and cost over its whole life, split by model, its requests,
 * turns, and first and last request (sessions last read by versions before 0.2 have no split:
 * their whole use under their last model, no requests or turns, their first and last record).
 */
export function sessionReport(sessions: readonly StoredSession[], o: ReportOptions): SessionRow[] {
  const rows: SessionRow[] = [];
  for (const s of sessions) {
    if (
      !s.lastActivityAt ||
      (o.harness && s.harness !== o.harness) ||
      (o.project && s.project !== o.project) ||
      (o.model && !(s.byModel ? o.model in s.byModel : s.model === o.model))
    )
      continue;
    const day = dayOf(s.lastActivityAt, o.timeZone);
    if ((o.since && day < o.since) || (o.until && day > o.until)) continue;
    const t = s.tokens;
    if (t.input + t.output + t.cacheRead + t.cacheWrite === 0) continue;
    const turns = s.turnsByOutcome ?? {};
    const u: Usage = {
      ...zero(),
      inputTokens: t.input,
      outputTokens: t.output,
      cacheReadTokens: t.cacheRead,
      cacheCreationTokens: t.cacheWrite,
      totalTokens: t.input + t.output + t.cacheRead + t.cacheWrite,
      reasoningOutputTokens: t.reasoning,
      totalCost: s.costUsd,
      sessions: 1,
      requests: Object.values(s.byModel ?? {}).reduce((n, m) => n + m.requests, 0),
      turns: { completed: turns.completed ?? 0, failed: turns.failed ?? 0, interrupted: turns.interrupted ?? 0 },
    };
    rows.push({
      sessionId: s.id,
      harness: s.harness,
      projectPath: s.cwd ?? '',
      project: s.project,
      ...u,
      firstActivity: new Date(s.firstRequestAt ?? s.startedAt).toISOString(),
      lastActivity: new Date(s.lastRequestAt ?? s.lastActivityAt).toISOString(),
      ...breakdowns(sessionRows(s), undefined),
    });
  }
  return ordered(
    // Sessions ending in the same millisecond in a fixed order, whichever order they were read in.
    rows.sort(
      (a, b) =>
        a.lastActivity.localeCompare(b.lastActivity) ||
        a.harness.localeCompare(b.harness) ||
        a.sessionId.localeCompare(b.sessionId),
    ),
    o,
  );
}

export interface BlockRow {
  id: string;
  harness: string;
  startTime: string;
  endTime: string;
  /** The last request's time; null in a gap. */
  actualEndTime: string | null;
  isActive: boolean;
  /** A gap: from 5 hours after a block's last request to the next block's first, nothing used (as ccusage lists it). */
  isGap: boolean;
  /** Model requests (ccusage: entries). */
  entries: number;
  tokenCounts: {
    inputTokens: number;
    outputTokens: number;
    cacheCreationInputTokens: number;
    cacheReadInputTokens: number;
  };
  totalTokens: number;
  costUSD: number;
  models: string[];
  burnRate: { tokensPerMinute: number; costPerHour: number } | null;
  projection: { totalCost: number; remainingMinutes: number } | null;
}

/** A gap between two blocks of a harness, as ccusage writes one (id `gap-<start>`). */
function gapRow(harness: string, startMs: number, endMs: number): BlockRow {
  const start = new Date(startMs).toISOString();
  return {
    id: `gap-${start}`,
    harness,
    startTime: start,
    endTime: new Date(endMs).toISOString(),
    actualEndTime: null,
    isActive: false,
    isGap: true,
    entries: 0,
    tokenCounts: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    totalTokens: 0,
    costUSD: 0,
    models: [],
    burnRate: null,
    projection: null,
  };
}

/**
 * Each harness's 5-hour blocks (store/blocks.ts: as ccusage computes them), oldest first, with the
 * gaps between them where a block's last request was more than 5 hours before the next's first:
 * the ledger keeps each quarter hour's first and last request time, summed here per hour, and a
 * block's bounds are whole hours, so the blocks are those of the single requests.
 */
export function blocksReport(rows: readonly LedgerRow[], o: ReportOptions, now: number): BlockRow[] {
  type Hour = { firstMs: number; lastMs: number; rows: LedgerRow[] };
  const byHarness = new Map<string, Map<number, Hour>>();
  for (const r of selectRows(rows, o)) {
    if (r.firstMs === null || r.lastMs === null) continue;
    let hours = byHarness.get(r.harness);
    if (!hours) byHarness.set(r.harness, (hours = new Map<number, Hour>()));
    const h = hours.get(r.hour);
    if (h) {
      h.firstMs = Math.min(h.firstMs, r.firstMs);
      h.lastMs = Math.max(h.lastMs, r.lastMs);
      h.rows.push(r);
    } else hours.set(r.hour, { firstMs: r.firstMs, lastMs: r.lastMs, rows: [r] });
  }
  const out: BlockRow[] = [];
  for (const [harness, hours] of byHarness) {
    let before: { lastMs: number } | undefined;
    for (const b of groupBlocks([...hours.values()])) {
      if (before && b.firstMs - before.lastMs > BLOCK_MS)
        out.push(gapRow(harness, before.lastMs + BLOCK_MS, b.firstMs));
      before = b;
      const u = zero();
      const list = b.spans.flatMap((s) => s.rows);
      for (const r of list) addRow(u, r);
      const isActive = now < b.endMs && now - b.lastMs < BLOCK_MS;
      const p = isActive ? projection({ ...b, tokens: u.totalTokens, costUsd: u.totalCost }, now) : undefined;
      const minutes = (b.lastMs - b.firstMs) / 60_000;
      out.push({
        id: new Date(b.startMs).toISOString(),
        harness,
        startTime: new Date(b.startMs).toISOString(),
        endTime: new Date(b.endMs).toISOString(),
        actualEndTime: new Date(b.lastMs).toISOString(),
        isActive,
        isGap: false,
        entries: u.requests,
        tokenCounts: {
          inputTokens: u.inputTokens,
          outputTokens: u.outputTokens,
          cacheCreationInputTokens: u.cacheCreationTokens,
          cacheReadInputTokens: u.cacheReadTokens,
        },
        totalTokens: u.totalTokens,
        costUSD: u.totalCost,
        models: breakdowns(list, undefined).modelsUsed,
        burnRate: p ? { tokensPerMinute: p.tokensPerMinute, costPerHour: (u.totalCost / minutes) * 60 } : null,
        projection: p
          ? { totalCost: p.projectedCostUsd, remainingMinutes: Math.max(0, Math.round((b.endMs - now) / 60_000)) }
          : null,
      });
    }
  }
  return ordered(
    out.sort((a, b) => a.startTime.localeCompare(b.startTime) || a.harness.localeCompare(b.harness)),
    o,
  );
}
