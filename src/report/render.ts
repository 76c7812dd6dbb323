// A report as a table (a header, a row per period, `--breakdown`'s rows under each, a totals row)
// or as ccusage's JSON. Costs in the one format every viewer uses (view/records.ts's `usd`).

import { usd } from '../view/format.js';
import { printable, printableJson } from '../terminal.js';
import { totalsOf, type BlockRow, type PeriodRow, type ProjectRows, type SessionRow, type Usage } from './report.js';
import type { Kind } from './words.js';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/**
 * Where a table is drawn: the terminal's width (none: a pipe, as wide as it takes), colour, the
 * narrow form; and which models the price table in use has no price for (their cost is `unpriced`,
 * as the other views say, not $0.00).
 */
export interface Layout {
  width?: number;
  colour?: boolean;
  compact?: boolean;
  unpriced?: (model: string) => boolean;
}

/**
 * Columns padded to their widest cell (each made printable, a cell's lines one under the other:
 * a model a line); numbers to the right. A row of one cell is a heading across the table (ccusage's
 * `Project: …`): no column is widened for it, and it is cut to `layout.width`. Where the table is
 * wider than `layout.width`, columns go in the order of `drop` (indexes) until it fits; with
 * `compact`, the first `compact` of them whatever the width. The header in cyan and the totals in
 * yellow where `colour`.
 */
function table(
  header: string[],
  cells: string[][],
  numeric: boolean[],
  layout: Layout = {},
  drop: number[] = [],
  compact = 0,
): string {
  const split = cells.map((r) => r.map((c) => c.split('\n').map(printable)));
  const heading = (row: string[][]) => row.length === 1;
  const widthOf = (i: number) =>
    Math.max(
      header[i]!.length,
      ...split.filter((r) => !heading(r)).map((r) => Math.max(...r[i]!.map((l) => l.length))),
    );
  const widths = header.map((_, i) => widthOf(i));
  const shown = new Set(header.map((_, i) => i));
  const total = () => [...shown].reduce((a, i) => a + widths[i]! + 2, -2);
  drop.forEach((i, k) => {
    if ((layout.compact && k < compact) || (layout.width !== undefined && total() > layout.width)) shown.delete(i);
  });
  const keep = <T>(row: T[]) => row.filter((_, i) => shown.has(i));
  const w = keep(widths);
  const num = keep(numeric);
  const line = (cols: string[]) =>
    cols
      .map((c, i) => (num[i] ? c.padStart(w[i]!) : c.padEnd(w[i]!)))
      .join('  ')
      .trimEnd();
  const lines = (row: string[][]) => {
    if (heading(row)) {
      const text = row[0]![0]!;
      return [layout.width !== undefined && text.length > layout.width ? `${text.slice(0, layout.width - 1)}…` : text];
    }
    const cols = keep(row);
    const height = Math.max(...cols.map((c) => c.length));
    return Array.from({ length: height }, (_, k) => line(cols.map((c) => c[k] ?? '')));
  };
  const paint = (code: number, text: string) => (layout.colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const rule = w.map((n) => '─'.repeat(n)).join('  ');
  const body = split.slice(0, -1);
  return (
    [
      paint(36, line(keep(header))),
      rule,
      ...body.flatMap(lines),
      rule,
      ...lines(split.at(-1)!).map((l) => paint(33, l)),
    ].join('\n') + '\n'
  );
}

const usageCells = (
  u: Pick<Usage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheCreationTokens' | 'totalTokens'>,
  cost: string,
): string[] => [
  int(u.inputTokens),
  int(u.outputTokens),
  int(u.cacheReadTokens),
  int(u.cacheCreationTokens),
  int(u.totalTokens),
  cost,
];

/**
 * A cost as a table shows it: `unpriced` where all of it is tokens of models with no price and no
 * cost the harness recorded; marked `*` where some of it is (a note under the table names them).
 */
function costCell(
  cost: number,
  parts: readonly { model: string; cost: number; tokens: number }[],
  layout: Layout,
  marked: Set<string>,
): string {
  const none = parts.filter((p) => p.tokens > 0 && p.cost === 0 && layout.unpriced?.(p.model));
  for (const p of none) marked.add(p.model);
  if (none.length === 0) return usd(cost);
  return none.length === parts.filter((p) => p.tokens > 0).length && cost === 0 ? 'unpriced' : `${usd(cost)}*`;
}

const unpricedNote = (marked: Set<string>): string =>
  marked.size === 0
    ? ''
    : `* without the tokens of ${[...marked].sort().join(', ')}: no price is known for ${marked.size === 1 ? 'it' : 'them'} (unpriced)\n`;

const modelParts = (r: Pick<PeriodRow, 'modelBreakdowns'>) =>
  r.modelBreakdowns.map((b) => ({ model: b.modelName, cost: b.cost, tokens: b.totalTokens }));

const USAGE_HEADER = ['Input', 'Output', 'Cache Read', 'Cache Write', 'Total Tokens', 'Cost'];
const USAGE_NUMERIC = USAGE_HEADER.map(() => true);

const PERIOD_NAME = { daily: 'Date', weekly: 'Week', monthly: 'Month' } as const;

// Of the usage columns, dropped first where a table is too wide (and with --compact, as ccusage's
// compact table): the total, then the cache writes and reads.
const USAGE_DROP = [4, 3, 2];

/** A period's row, and its `--breakdown` split's rows under it. */
function periodCells(r: PeriodRow, breakdown: string | undefined, layout: Layout, marked: Set<string>): string[][] {
  const cells = [
    [
      r.period,
      r.modelsUsed.map((m) => `- ${m}`).join('\n'),
      ...usageCells(r, costCell(r.totalCost, modelParts(r), layout, marked)),
    ],
  ];
  // `<label>Breakdowns` of `<label>Name`s (report.ts's breakdowns), the models' always there.
  type Part = Omit<Usage, 'totalCost'> & { cost: number } & Record<string, unknown>;
  const parts =
    breakdown === undefined
      ? undefined
      : (r as unknown as Record<string, Part[] | undefined>)[`${breakdown}Breakdowns`]?.map((b) => ({
          name: String(b[`${breakdown}Name`]),
          b,
        }));
  for (const { name, b } of parts ?? []) {
    const cost =
      breakdown === 'model'
        ? costCell(b.cost, [{ model: name, cost: b.cost, tokens: b.totalTokens }], layout, marked)
        : usd(b.cost);
    cells.push([`  └ ${name || '(none)'}`, '', ...usageCells(b, cost)]);
  }
  return cells;
}

/** The table of some period rows' cells (headings among them), with the rows' totals under them. */
function periodsTable(
  cells: string[][],
  rows: readonly PeriodRow[],
  kind: 'daily' | 'weekly' | 'monthly',
  layout: Layout,
  marked: Set<string>,
): string {
  const t = totalsOf(rows);
  return (
    table(
      [PERIOD_NAME[kind], 'Models', ...USAGE_HEADER],
      [...cells, ['Total', '', ...usageCells(t, costCell(t.totalCost, rows.flatMap(modelParts), layout, marked))]],
      [false, false, ...USAGE_NUMERIC],
      layout,
      [...USAGE_DROP.map((i) => i + 2), 1],
      USAGE_DROP.length,
    ) + unpricedNote(marked)
  );
}

export function periodTable(
  rows: readonly PeriodRow[],
  kind: 'daily' | 'weekly' | 'monthly',
  breakdown?: string,
  layout: Layout = {},
): string {
  const marked = new Set<string>();
  return periodsTable(
    rows.flatMap((r) => periodCells(r, breakdown, layout, marked)),
    rows,
    kind,
    layout,
    marked,
  );
}

/** ccusage's `-i` table: each project's rows under a `Project: NAME` line across the table. */
export function projectsTable(
  projects: readonly ProjectRows[],
  kind: 'daily' | 'weekly' | 'monthly',
  layout: Layout = {},
): string {
  const marked = new Set<string>();
  return periodsTable(
    projects.flatMap((p) => [
      [`Project: ${p.project || '(none)'}`],
      ...p.rows.flatMap((r) => periodCells(r, undefined, layout, marked)),
    ]),
    projects.flatMap((p) => p.rows),
    kind,
    layout,
    marked,
  );
}

export function sessionTable(rows: readonly SessionRow[], layout: Layout = {}): string {
  const marked = new Set<string>();
  const cells = rows.map((r) => [
    r.sessionId,
    r.harness,
    r.project,
    r.modelsUsed.map((m) => `- ${m}`).join('\n'),
    ...usageCells(r, costCell(r.totalCost, modelParts(r), layout, marked)),
    r.lastActivity.slice(0, 16).replace('T', ' '),
  ]);
  const t = totalsOf(rows);
  cells.push([
    'Total',
    '',
    '',
    '',
    ...usageCells(t, costCell(t.totalCost, rows.flatMap(modelParts), layout, marked)),
    '',
  ]);
  return (
    table(
      ['Session', 'Harness', 'Project', 'Models', ...USAGE_HEADER, 'Last Activity (UTC)'],
      cells,
      [false, false, false, false, ...USAGE_NUMERIC, false],
      layout,
      [...USAGE_DROP.map((i) => i + 4), 10, 1, 3],
      USAGE_DROP.length,
    ) + unpricedNote(marked)
  );
}

export function blocksTable(rows: readonly BlockRow[], layout: Layout = {}): string {
  const marked = new Set<string>();
  // A block has no cost by model: `unpriced` only where it has no cost at all.
  const cost = (r: BlockRow) =>
    r.costUSD === 0
      ? costCell(
          0,
          r.models.map((model) => ({ model, cost: 0, tokens: r.totalTokens })),
          layout,
          marked,
        )
      : usd(r.costUSD);
  const minutes = (r: BlockRow) =>
    Math.round((Date.parse(r.actualEndTime ?? r.endTime) - Date.parse(r.startTime)) / 60_000);
  const span = (r: BlockRow) => `${Math.floor(minutes(r) / 60)}h${String(minutes(r) % 60).padStart(2, '0')}m`;
  const cells = rows.map((r) =>
    r.isGap
      ? [r.startTime.slice(0, 16).replace('T', ' '), r.harness, `${span(r)} gap`, '', '', '', '', '']
      : [
          r.startTime.slice(0, 16).replace('T', ' '),
          r.harness,
          r.isActive ? `ACTIVE, ${r.projection?.remainingMinutes ?? 0}m left` : span(r),
          r.models.map((m) => `- ${m}`).join('\n'),
          int(r.entries),
          int(r.totalTokens),
          cost(r),
          r.projection ? usd(r.projection.totalCost) : '',
        ],
  );
  cells.push([
    'Total',
    '',
    '',
    '',
    int(rows.reduce((a, r) => a + r.entries, 0)),
    int(rows.reduce((a, r) => a + r.totalTokens, 0)),
    usd(rows.reduce((a, r) => a + r.costUSD, 0)),
    '',
  ]);
  return (
    table(
      ['Block Start (UTC)', 'Harness', 'Duration', 'Models', 'Requests', 'Tokens', 'Cost', 'Projected'],
      cells,
      [false, false, false, false, true, true, true, true],
      layout,
      [7, 4, 1, 3],
    ) + unpricedNote(marked)
  );
}

/** Usage without the requests, sessions and turns (a store's report: it has none of them by model), nested splits too. */
function withoutCounts<T extends object>(u: T): T {
  const { requests: _r, sessions: _s, turns: _t, ...rest } = u as T & Partial<Usage>;
  for (const [k, v] of Object.entries(rest))
    if (k.endsWith('Breakdowns') && Array.isArray(v))
      (rest as Record<string, unknown>)[k] = v.map((b: object) => withoutCounts(b));
  return rest as T;
}

/** Usage as a report shows it: with its counts, or without them (`counts` false: a store's report). */
const shownWith = (counts: boolean) => (u: object) => (counts ? u : withoutCounts(u));

/** A period row as ccusage's JSON has it: its period under the kind's name too (`date`, `week`, `month`). */
const periodJson = (kind: 'daily' | 'weekly' | 'monthly', r: PeriodRow) => ({
  [{ daily: 'date', weekly: 'week', monthly: 'month' }[kind]]: r.period,
  ...r,
});

/**
 * ccusage's JSON: `daily[]` (`date`), `weekly[]` (`week`), `monthly[]` (`month`), `sessions[]`,
 * `blocks[]`; `totals`; and `"complete": false` where the exporter's first read is not done.
 * Without `counts` (a store's report), no requests, sessions or turns: the store has none by model.
 */
export function reportJson(
  kind: Kind,
  rows: readonly PeriodRow[] | readonly SessionRow[] | readonly BlockRow[],
  complete = true,
  counts = true,
): string {
  const partial = complete ? {} : { complete: false };
  if (kind === 'blocks') return `${printableJson({ blocks: rows, ...partial })}\n`;
  const totals = totalsOf(rows as readonly Usage[]);
  if (kind === 'session') return `${printableJson({ sessions: rows, totals, ...partial })}\n`;
  const shown = shownWith(counts);
  // `period` too: the name ccusage's report of every agent (`ccusage daily`) gives it.
  return `${printableJson({ [kind]: (rows as readonly PeriodRow[]).map((r) => shown(periodJson(kind, r))), totals: shown(totals), ...partial })}\n`;
}

/**
 * ccusage's `-i --json` (`ccusage claude daily -i`): `{"projects": {"<project>": [rows]}, "totals"}`,
 * each row as reportJson's with `project`, the key; `complete` and `counts` as there.
 */
export function projectsJson(
  kind: 'daily' | 'weekly' | 'monthly',
  projects: readonly ProjectRows[],
  complete = true,
  counts = true,
): string {
  const shown = shownWith(counts);
  const totals = totalsOf(projects.flatMap((p) => p.rows));
  return `${printableJson({
    projects: Object.fromEntries(projects.map((p) => [p.project, p.rows.map((r) => shown(periodJson(kind, r)))])),
    totals: shown(totals),
    ...(complete ? {} : { complete: false }),
  })}\n`;
}
