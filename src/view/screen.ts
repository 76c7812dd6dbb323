// What `top` draws: a header of figures (spend, the last 30 days as a sparkline, a bar per
// usage-limit window), then one row per session, fitted to the terminal's width (columns drop by
// priority, never wrap) and height. A pure function of the data, so the same screen comes from
// the exporter's own memory or from a remote exporter's JSON.

import { usedLevel } from '../store/limits.js';
import { compact, costText, elapsed, timeLeft, usd } from './format.js';
import type { SessionRecord } from './records.js';
import type { Summary } from './summary.js';
import { printable } from '../terminal.js';

export const SORTS = ['status', 'cost', 'activity'] as const;
export type Sort = (typeof SORTS)[number];

export interface ScreenOptions {
  width: number;
  height: number;
  color: boolean;
  now: number;
  sort: Sort;
  /** Rows whose harness or project contains this text (case-insensitive). */
  filter: string;
  showIdle: boolean;
  /** The filter being typed, while `/` is active. */
  editing?: string;
  tokensPerMinute?: number;
  /** Where the data comes from (`local` or the exporter's URL). */
  source: string;
  /** The last refresh failed with this. */
  problem?: string;
}

// Those needing a person first.
const STATUS_ORDER = ['asking', 'error', 'working', 'delegating', 'done', 'idle'];

const SGR: Record<string, string> = {
  asking: '1;33',
  error: '1;31',
  working: '32',
  delegating: '36',
  done: '34',
  idle: '2',
  head: '7',
  dim: '2',
  bold: '1',
  // How much of a usage-limit window is used (usedLevel).
  ok: '32',
  near: '33',
  over: '31',
};

interface Column {
  head: string;
  /** Lower is kept longer when the terminal is narrow, and widened first when it is wide. */
  priority: number;
  /** The least it takes. */
  width: number;
  /** The most its cells widen it to where the terminal has room (none: `width`). */
  max?: number;
  right?: true;
  cell(s: SessionRecord, now: number): string;
}

// What is kept longest: which session (harness, project) and what it needs (status, why); what it
// costs and when it last did something; its model; how full its context is; the tool it is running
// and for how long; its process's CPU and memory; how the process was joined to it.
const COLUMNS: Column[] = [
  { head: 'HARNESS', priority: 1, width: 11, max: 15, cell: (s) => s.harness },
  { head: 'PROJECT', priority: 0, width: 10, max: 40, cell: (s) => s.project },
  { head: 'STATUS', priority: 0, width: 10, cell: (s) => s.status },
  { head: 'REASON', priority: 1, width: 12, max: 20, cell: (s) => s.reason },
  { head: 'MODEL', priority: 3, width: 18, max: 30, cell: (s) => s.model ?? '-' },
  { head: 'CONTEXT', priority: 4, width: 17, cell: (s) => contextBar(s) },
  { head: 'COST', priority: 2, width: 9, right: true, cell: (s) => costText(s) },
  { head: 'TOOL', priority: 5, width: 14, max: 30, cell: (s) => s.running_tool?.tool ?? '-' },
  // How long the running tool has run ("Bash for 12m").
  {
    head: 'FOR',
    priority: 5,
    width: 5,
    right: true,
    cell: (s, now) => (s.running_tool?.started_at ? elapsed(now - Date.parse(s.running_tool.started_at)) : '-'),
  },
  // The live agent process with its children, and how it was joined to the session.
  {
    head: 'CPU',
    priority: 6,
    width: 5,
    right: true,
    cell: (s) => (s.process?.cpu_ratio != null ? `${Math.round(s.process.cpu_ratio * 100)}%` : '-'),
  },
  // `999.9MB`: seven characters, the unit never cut off.
  {
    head: 'MEM',
    priority: 6,
    width: 7,
    right: true,
    cell: (s) => (s.process?.resident_memory_bytes != null ? `${compact(s.process.resident_memory_bytes)}B` : '-'),
  },
  { head: 'VIA', priority: 7, width: 15, cell: (s) => s.attribution },
  {
    head: 'LAST',
    priority: 2,
    width: 8,
    right: true,
    cell: (s, now) => (s.last_activity_at ? elapsed(now - Date.parse(s.last_activity_at)) : 'now'),
  },
];

function contextBar(s: SessionRecord): string {
  if (s.context_tokens === null) return '-';
  if (!s.context_limit_tokens) return compact(s.context_tokens);
  const ratio = Math.min(1, s.context_tokens / s.context_limit_tokens);
  const filled = Math.round(ratio * 8);
  return `[${'#'.repeat(filled)}${'.'.repeat(8 - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}%`;
}

const SPARKS = '▁▂▃▄▅▆▇█';
const LIMIT_BAR = 8;

/** One character a day, its height against the largest day's; a day without spend a dot. */
function sparkline(days: Summary['spend_30d']): string {
  const max = Math.max(...days.map((d) => d.cost_usd));
  return days
    .map((d) =>
      d.cost_usd > 0 ? SPARKS[Math.min(SPARKS.length, Math.ceil((d.cost_usd / max) * SPARKS.length)) - 1] : '·',
    )
    .join('');
}

/**
 * A bar per usage-limit window, as many to a line as fit, after `limits ` (a line never starts
 * with a harness, as a session's row does): `claude-code 5h ▓▓▓▓░░░░  47% resets in 2h13m`; where
 * one does not fit, `claude-code 5h 47% ↻2h13m`. A window whose reset time has passed since the
 * summary was rendered is left out, as the summary leaves it out.
 */
function limitLines(
  limits: Summary['limits'],
  lineWidth: number,
  now: number,
  paint: (code: string, text: string) => string,
): string[] {
  const head = 'limits ';
  const width = Math.max(1, lineWidth - head.length);
  const shown = limits.filter((l) => l.resets_at === null || Date.parse(l.resets_at) > now);
  if (shown.length === 0) return [];
  const label = (l: Summary['limits'][number]) => printable(`${l.harness} ${l.window}`);
  const left = (l: Summary['limits'][number]) =>
    l.resets_at === null ? undefined : timeLeft(Date.parse(l.resets_at), now);
  const labelWidth = Math.max(...shown.map((l) => label(l).length));
  const resetWidth = Math.max(
    ...shown.map((l) => {
      const t = left(l);
      return t === undefined ? 0 : ` resets in ${t}`.length;
    }),
  );
  const itemWidth = labelWidth + 1 + LIMIT_BAR + 1 + 4 + resetWidth;
  const items = shown.map((l) => {
    const ratio = Math.min(1, Math.max(0, l.used_ratio));
    const pct = `${Math.round(ratio * 100)}%`;
    const code = SGR[usedLevel(ratio)]!;
    const t = left(l);
    if (itemWidth > width) return paint(code, fit(`${label(l)} ${pct}${t === undefined ? '' : ` ↻${t}`}`, width));
    const filled = Math.round(ratio * LIMIT_BAR);
    const bar = `${'▓'.repeat(filled)}${'░'.repeat(LIMIT_BAR - filled)} ${pct.padStart(4)}`;
    return `${label(l).padEnd(labelWidth)} ${paint(code, bar)}${(t === undefined ? '' : ` resets in ${t}`).padEnd(resetWidth)}`;
  });
  const perLine = itemWidth > width ? 1 : Math.floor((width + 3) / (itemWidth + 3));
  const lines: string[] = [];
  for (let i = 0; i < items.length; i += perLine) {
    lines.push(`${i === 0 ? head : ' '.repeat(head.length)}${items.slice(i, i + perLine).join('   ')}`);
  }
  return lines;
}

/** Exactly `width` characters, made printable: cut with an ellipsis, or padded. */
function fit(raw: string, width: number, right = false): string {
  const text = printable(raw);
  const chars = [...text];
  if (chars.length > width)
    return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
  return right ? text.padStart(width) : text.padEnd(width);
}

/** The sessions shown, in the order shown. */
export function visibleSessions(
  sessions: readonly SessionRecord[],
  o: Pick<ScreenOptions, 'sort' | 'filter' | 'showIdle' | 'now'>,
): SessionRecord[] {
  const needle = o.filter.toLowerCase();
  // An agent no session file is joined to has no recorded activity: it is running now.
  const activity = (s: SessionRecord) => (s.last_activity_at ? Date.parse(s.last_activity_at) : o.now);
  const by: Record<Sort, (a: SessionRecord, b: SessionRecord) => number> = {
    status: (a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) || activity(b) - activity(a),
    cost: (a, b) => (b.cost_usd ?? 0) - (a.cost_usd ?? 0) || activity(b) - activity(a),
    activity: (a, b) => activity(b) - activity(a),
  };
  return sessions
    .filter((s) => o.showIdle || s.status !== 'idle')
    .filter((s) => !needle || s.harness.toLowerCase().includes(needle) || s.project.toLowerCase().includes(needle))
    .sort(by[o.sort]);
}

/**
 * The columns that fit `width` at their least, dropped by priority (the rightmost of the least
 * kept first); then the room left widens each, by priority, to its widest cell (up to its `max`).
 * Room left after that stays empty: a wide terminal does not stretch a column past what it shows.
 */
function layout(width: number, rows: readonly SessionRecord[], now: number): Column[] {
  let cols = COLUMNS;
  const total = (cs: Column[]) => cs.reduce((a, c) => a + c.width, 0) + cs.length - 1;
  while (total(cols) > width && cols.length > 1) {
    const drop = Math.max(...cols.map((c) => c.priority));
    if (drop === 0) break;
    const i = cols.map((c) => c.priority).lastIndexOf(drop);
    cols = cols.filter((_, j) => j !== i);
  }
  let spare = Math.max(0, width - total(cols));
  const widths = new Map(cols.map((c) => [c, c.width]));
  for (const c of [...cols].sort((a, b) => a.priority - b.priority)) {
    if (!c.max || spare === 0) continue;
    const widest = Math.min(c.max, Math.max(c.head.length, ...rows.map((s) => [...printable(c.cell(s, now))].length)));
    const wider = Math.min(spare, Math.max(0, widest - c.width));
    widths.set(c, c.width + wider);
    spare -= wider;
  }
  return cols.map((c) => ({ ...c, width: widths.get(c)! }));
}

export function renderScreen(summary: Summary, sessions: readonly SessionRecord[], o: ScreenOptions): string[] {
  const paint = (code: string, text: string) => (o.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const line = (text: string) => fit(text, o.width);
  const clock = new Date(o.now).toTimeString().slice(0, 8);
  const rate = o.tokensPerMinute === undefined ? '-' : compact(o.tokensPerMinute);
  const counts = STATUS_ORDER.map(
    (s) => `${summary.sessions_by_status[s as keyof Summary['sessions_by_status']] ?? 0} ${s}`,
  ).join('  ');
  const out = [
    line(`coding-agent-exporter top  ${clock}  ${o.source}`),
    line(`spend today ${usd(summary.spend_today_usd)}  this week ${usd(summary.spend_week_usd)}  tokens/min ${rate}`),
    ...(summary.spend_30d.length > 0
      ? [
          line(
            `last 30 days ${usd(summary.spend_30d.reduce((a, d) => a + d.cost_usd, 0))} ${sparkline(summary.spend_30d)}`,
          ),
        ]
      : []),
    ...limitLines(summary.limits, o.width, o.now, paint),
    line(`sessions: ${counts}`),
    o.problem
      ? paint(SGR.error!, line(`refresh failed: ${o.problem}`))
      : line(`sort: ${o.sort}  filter: ${o.filter || '-'}  idle: ${o.showIdle ? 'shown' : 'hidden'}`),
  ];
  const rows = visibleSessions(sessions, o);
  const room = Math.max(0, o.height - out.length - 2);
  const shown = rows.slice(0, room);
  const cols = layout(o.width, shown, o.now);
  out.push(paint(SGR.head!, line(cols.map((c) => fit(c.head, c.width, c.right)).join(' '))));
  for (const s of shown) {
    const code = SGR[s.status] ?? '';
    out.push(
      cols
        .map((c) => {
          const text = fit(c.cell(s, o.now), c.width, c.right);
          return c.head === 'STATUS' || c.head === 'REASON' || s.status === 'asking' || s.status === 'error'
            ? paint(code, text)
            : text;
        })
        .join(' '),
    );
  }
  if (rows.length === 0)
    out.push(line(sessions.length === 0 ? 'no session active in the activity window' : 'no session matches'));
  while (out.length < o.height - 1) out.push('');
  const more = rows.length > room ? `  (${rows.length - room} more)` : '';
  const keys =
    o.editing !== undefined
      ? `filter: ${o.editing}_   (Enter apply, Esc cancel)`
      : `q quit  s sort  / filter  i idle${more}`;
  out.push(paint(SGR.dim!, line(keys)));
  return out.slice(0, o.height);
}
