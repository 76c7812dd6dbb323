// `report`: usage per day, week, month, session or 5-hour block. It reads the ledger and the
// sessions of the state database read-only (beside a running exporter, which owns it); only where
// there is no state database yet does it load the readers and read the session files itself, into
// a private state that is never written (like `top`). Without that, it loads the state database,
// the report and the money formatter, and nothing else.

import { join } from 'node:path';
import { ConfigError, type Config } from '../config/load.js';
import { WEEKDAYS } from '../config/schema.js';
import { configuredPrices, type PriceTable } from '../pricing/prices.js';
import { createLogger } from '../log.js';
import { PendingCalls } from '../session/types.js';
import { readReportState, type LedgerRow, type LedgerSum } from '../state/db.js';
import { hoursOfDays, quartersPerRow, zoneOffsets } from '../store/ledger.js';
import type { StoredSession } from '../store/store.js';
import type { ReadThreads } from '../collectors/read-threads.js';
import { blocksReport, lastSince, periodRows, projectRows, selectRows, sessionReport } from '../report/report.js';
import {
  blocksTable,
  periodTable,
  projectsJson,
  projectsTable,
  reportJson,
  sessionTable,
  type Layout,
} from '../report/render.js';
import type { ReportArgs } from './args.js';

async function readState(
  config: Config,
  r: ReportArgs,
  threads: ReadThreads | undefined,
): Promise<{ ledger: LedgerRow[]; sessions: StoredSession[]; complete: boolean }> {
  const { fromHour, toHour } = hoursOfDays(r.since, r.until);
  // Summed by the database as far as the report needs: a row per day for days, weeks and months;
  // for blocks, which need hours, an hour's quarters unless a day that cuts one is asked for.
  const state = readReportState(config.stateDir, fromHour, toHour, r.kind === 'session', (first, last): LedgerSum => {
    if (r.kind === 'blocks') return { quarters: r.since || r.until ? quartersPerRow(r.timeZone, first, last) : 4 };
    const days = zoneOffsets(r.timeZone, first, last);
    return days ? { days } : { quarters: 1 };
  });
  if (state) {
    const sessions = state.sessions.map((s) => storedSession(s.data)).filter((s) => s !== undefined);
    const skipped = state.skipped + state.sessions.length - sessions.length;
    // Left out, not summed as they are: a report is exact or says what it could not count.
    if (skipped > 0) {
      process.stderr.write(
        `coding-agent-exporter: report: ${skipped} rows of ${join(config.stateDir, 'state.db')} skipped: ` +
          'not as the exporter writes them (a count that is no number, a time no date holds)\n',
      );
    }
    // A first read under way (or killed): what it committed is a part, said on stderr and in the JSON.
    if (state.firstReadSince !== undefined) {
      process.stderr.write(
        `coding-agent-exporter: report: the exporter's first read of the session files, begun ${new Date(state.firstReadSince).toISOString()}, ` +
          'is not done (or was stopped): these totals are partial\n',
      );
    }
    return { ledger: state.ledger, sessions, complete: state.firstReadSince === undefined };
  }
  const { Exporter } = await import('../exporter.js');
  // Read the collectors together (exporter.ts), or one after the other, as `once` reads them;
  // undefined where, read together, projects were folded into `other` (past project.max): which
  // ones depends on the order two collectors' sessions came in, and the report would not be the same.
  const read = async (together: boolean) => {
    // Only the harness asked for is read (a report of one sums no other's files). The threads
    // started for it read the first read; they stop with it, and a second starts its own.
    const exporter = new Exporter(config, createLogger('warn'), {
      privateState: true,
      reportRead: {
        ...(r.harness === undefined ? {} : { harness: r.harness }),
        threads: together ? threads : undefined,
      },
    });
    try {
      await exporter.readUsage(together);
      if (together && exporter.collectors.size > 1 && exporter.store.projectsFolded) return undefined;
      exporter.store.commit();
      return {
        ledger: exporter.store.ledgerRows(fromHour, toHour),
        sessions: [...exporter.store.sessions.values()],
        complete: true,
      };
    } finally {
      await exporter.stop();
    }
  };
  return (await read(true)) ?? (await read(false))!;
}

// The last time a date holds (ms).
const LAST_MS = 8.64e15;

/** A session record read back, or undefined where it is none the exporter writes (what a report sums and dates is checked). */
function storedSession(data: string): StoredSession | undefined {
  let s: Partial<StoredSession> | null;
  try {
    s = JSON.parse(data) as Partial<StoredSession> | null;
  } catch {
    return undefined;
  }
  const t = s?.tokens;
  const sums = [t?.input, t?.output, t?.cacheRead, t?.cacheWrite, t?.reasoning, s?.costUsd];
  const times = [s?.startedAt, s?.lastActivityAt];
  return typeof s?.id === 'string' &&
    typeof s.harness === 'string' &&
    typeof s.project === 'string' &&
    (s.model === undefined || typeof s.model === 'string') &&
    sums.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0) &&
    times.every((ms) => typeof ms === 'number' && Math.abs(ms) <= LAST_MS)
    ? ({ ...s, pendingTools: PendingCalls.of(s.pendingTools) } as StoredSession)
    : undefined;
}

/**
 * A table for where stdout goes: a terminal's width and colour (none with NO_COLOR); a pipe's as wide as it takes,
 * plain; colour on or off whatever it is with --color or --no-color.
 */
function terminalLayout(r: ReportArgs): Layout {
  const tty = process.stdout.isTTY === true;
  return {
    ...(tty ? { width: process.stdout.columns } : {}),
    colour: r.colour ?? (tty && !process.env.NO_COLOR),
    ...(r.compact ? { compact: true } : {}),
  };
}

/** The report's text: a table, or JSON with `json`. */
export async function report(
  config: Config,
  args: ReportArgs,
  json: boolean,
  threads?: ReadThreads,
  now = Date.now(),
  layout: Layout = terminalLayout(args),
): Promise<string> {
  const r: ReportArgs = { ...args, startOfWeek: WEEKDAYS.indexOf(config.report.startOfWeek) };
  if (!json && layout.unpriced === undefined) {
    let prices: PriceTable;
    try {
      prices = configuredPrices(config.pricing.overridesFile);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
    layout = { ...layout, unpriced: (model) => !prices.has(model) };
  }
  if (r.last !== undefined && r.kind !== 'session' && r.kind !== 'blocks') r.since = lastSince(r.kind, r.last, r, now);
  if (r.from !== undefined && r.kind !== 'session' && r.kind !== 'blocks') {
    const { readStore } = await import('./store.js');
    const rows = await readStore({ ...r, from: r.from }, now);
    return periods(rows, r.kind, r, r.by ?? r.breakdown, json, layout, true, false);
  }
  // One harness's blocks, Claude Code's unless --harness says (as ccusage): two harnesses'
  // blocks overlap, and their gaps would not be gaps.
  if (r.kind === 'blocks') r.harness ??= 'claude-code';
  const { ledger, sessions, complete } = await readState(config, r, threads);
  if (r.kind === 'session') {
    const rows = sessionReport(sessions, r);
    return json ? reportJson('session', rows, complete) : sessionTable(rows, layout);
  }
  if (r.kind === 'blocks') {
    const rows = blocksReport(ledger, r, now);
    return json ? reportJson('blocks', rows, complete) : blocksTable(rows, layout);
  }
  return periods(selectRows(ledger, r), r.kind, r, r.breakdown, json, layout, complete);
}

/**
 * A daily, weekly or monthly report of dated rows (the ledger's or a store's): each project's
 * periods with -i, else the periods split by `by`; `complete` and `counts` as reportJson's.
 */
function periods(
  rows: readonly (LedgerRow & { day: string })[],
  kind: 'daily' | 'weekly' | 'monthly',
  r: ReportArgs,
  by: string | undefined,
  json: boolean,
  layout: Layout,
  complete: boolean,
  counts = true,
): string {
  if (r.instances) {
    const projects = projectRows(rows, kind, r);
    return json ? projectsJson(kind, projects, complete, counts) : projectsTable(projects, kind, layout);
  }
  const list = periodRows(rows, kind, r, by);
  return json ? reportJson(kind, list, complete, counts) : periodTable(list, kind, by, layout);
}
