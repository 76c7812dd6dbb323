// A report as a table (a header, a row per period, `--breakdown`'s rows under each, a totals row)
// or as ccusage's JSON. Costs in the one format every viewer uses (view/records.ts's `usd`).

import { usd } from '../view/records.js';
import { printable, printableJson } from '../terminal.js';
import { totalsOf, type BlockRow, type PeriodRow, type SessionRow, type Usage } from './report.js';
import type { Breakdown, Kind } from './words.js';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Columns padded to their widest cell (each made printable); numbers to the right. */
function table(header: string[], cells: string[][], numeric: boolean[]): string {
  const rows = cells.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  const body = rows.slice(0, -1);
  return [line(header), rule, ...body.map(line), rule, line(rows.at(-1)!)].join('\n') + '\n';
}

const usageCells = (u: Pick<Usage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheCreationTokens' | 'totalTokens'>, cost: number): string[] =>
  [int(u.inputTokens), int(u.outputTokens), int(u.cacheReadTokens), int(u.cacheCreationTokens), int(u.totalTokens), usd(cost)];
const USAGE_HEADER = ['Input', 'Output', 'Cache Read', 'Cache Write', 'Total Tokens', 'Cost'];
const USAGE_NUMERIC = USAGE_HEADER.map(() => true);

const PERIOD_NAME = { daily: 'Date', weekly: 'Week', monthly: 'Month' } as const;

export function periodTable(rows: readonly PeriodRow[], kind: 'daily' | 'weekly' | 'monthly', breakdown?: Breakdown): string {
  const cells: string[][] = [];
  for (const r of rows) {
    cells.push([r.period, r.modelsUsed.join(', '), ...usageCells(r, r.totalCost)]);
    const parts = breakdown === 'project' ? r.projectBreakdowns?.map((b) => ({ name: b.projectName, b }))
      : breakdown === 'harness' ? r.harnessBreakdowns?.map((b) => ({ name: b.harnessName, b }))
        : breakdown === 'model' ? r.modelBreakdowns.map((b) => ({ name: b.modelName, b })) : undefined;
    for (const { name, b } of parts ?? []) cells.push([`  └ ${name || '(none)'}`, '', ...usageCells(b, b.cost)]);
  }
  const t = totalsOf(rows);
  cells.push(['Total', '', ...usageCells(t, t.totalCost)]);
  return table([PERIOD_NAME[kind], 'Models', ...USAGE_HEADER], cells, [false, false, ...USAGE_NUMERIC]);
}

export function sessionTable(rows: readonly SessionRow[]): string {
  const cells = rows.map((r) => [r.sessionId, r.harness, r.project, r.modelsUsed.join(', '), ...usageCells(r, r.totalCost), r.lastActivity.slice(0, 16).replace('T', ' ')]);
  const t = totalsOf(rows);
  cells.push(['Total', '', '', '', ...usageCells(t, t.totalCost), '']);
  return table(['Session', 'Harness', 'Project', 'Models', ...USAGE_HEADER, 'Last Activity (UTC)'], cells,
    [false, false, false, false, ...USAGE_NUMERIC, false]);
}

export function blocksTable(rows: readonly BlockRow[]): string {
  const minutes = (r: BlockRow) => Math.round((Date.parse(r.actualEndTime) - Date.parse(r.startTime)) / 60_000);
  const cells = rows.map((r) => [
    r.startTime.slice(0, 16).replace('T', ' '), r.harness, r.isActive ? `ACTIVE, ${r.projection?.remainingMinutes ?? 0}m left` : `${Math.floor(minutes(r) / 60)}h${String(minutes(r) % 60).padStart(2, '0')}m`,
    r.models.join(', '), int(r.entries), int(r.totalTokens), usd(r.costUSD),
    r.projection ? usd(r.projection.totalCost) : '',
  ]);
  cells.push(['Total', '', '', '', int(rows.reduce((a, r) => a + r.entries, 0)), int(rows.reduce((a, r) => a + r.totalTokens, 0)),
    usd(rows.reduce((a, r) => a + r.costUSD, 0)), '']);
  return table(['Block Start (UTC)', 'Harness', 'Duration', 'Models', 'Requests', 'Tokens', 'Cost', 'Projected'], cells,
    [false, false, false, false, true, true, true, true]);
}

/** ccusage's JSON: `daily[]` (`date`), `weekly[]` (`week`), `monthly[]` (`month`), `sessions[]`, `blocks[]`; `totals`. */
export function reportJson(kind: Kind, rows: readonly PeriodRow[] | readonly SessionRow[] | readonly BlockRow[]): string {
  if (kind === 'blocks') return `${printableJson({ blocks: rows })}\n`;
  const totals = totalsOf(rows as readonly Usage[]);
  if (kind === 'session') return `${printableJson({ sessions: rows, totals })}\n`;
  const name = { daily: 'date', weekly: 'week', monthly: 'month' }[kind];
  // `period` too: the name ccusage's report of every agent (`ccusage daily`) gives it.
  return `${printableJson({ [kind]: (rows as readonly PeriodRow[]).map((r) => ({ [name]: r.period, ...r })), totals })}\n`;
}
