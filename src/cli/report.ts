// `report`: usage per day, week, month, session or 5-hour block. It reads the ledger and the
// sessions of the state database read-only (beside a running exporter, which owns it); only where
// there is no state database yet does it load the readers and read the session files itself, into
// a private state that is never written (like `top`). Without that, it loads the state database,
// the report and the money formatter, and nothing else.

import type { Config } from '../config/load.js';
import { createLogger } from '../log.js';
import { readReportState, type LedgerRow, type LedgerSum } from '../state/db.js';
import { hoursOfDays, quartersPerRow, zoneOffsets } from '../store/ledger.js';
import type { StoredSession } from '../store/store.js';
import { blocksReport, periodReport, sessionReport } from '../report/report.js';
import { blocksTable, periodTable, reportJson, sessionTable } from '../report/render.js';
import type { ReportArgs } from './args.js';

async function readState(config: Config, r: ReportArgs): Promise<{ ledger: LedgerRow[]; sessions: StoredSession[] }> {
  const { fromHour, toHour } = hoursOfDays(r.since, r.until);
  // Summed by the database as far as the report needs: a row per day for days, weeks and months;
  // for blocks, which need hours, an hour's quarters unless a day that cuts one is asked for.
  const state = readReportState(config.stateDir, fromHour, toHour, r.kind === 'session', (first, last): LedgerSum => {
    if (r.kind === 'blocks') return { quarters: r.since || r.until ? quartersPerRow(r.timeZone, first, last) : 4 };
    const days = zoneOffsets(r.timeZone, first, last);
    return days ? { days } : { quarters: 1 };
  });
  if (state) return { ledger: state.ledger, sessions: state.sessions.map((s) => JSON.parse(s.data) as StoredSession) };
  const { Agent } = await import('../agent.js');
  const agent = new Agent(config, createLogger('warn'), { privateState: true });
  try {
    await agent.scanAll();
    agent.store.commit();
    return { ledger: agent.store.ledgerRows(fromHour, toHour), sessions: [...agent.store.sessions.values()] };
  } finally {
    await agent.stop();
  }
}

/** The report's text: a table, or JSON with `json`. */
export async function report(config: Config, r: ReportArgs, json: boolean, now = Date.now()): Promise<string> {
  const { ledger, sessions } = await readState(config, r);
  if (r.kind === 'session') {
    const rows = sessionReport(sessions, r);
    return json ? reportJson('session', rows) : sessionTable(rows);
  }
  if (r.kind === 'blocks') {
    const rows = blocksReport(ledger, r, now);
    return json ? reportJson('blocks', rows) : blocksTable(rows);
  }
  const rows = periodReport(ledger, r.kind, r);
  return json ? reportJson(r.kind, rows) : periodTable(rows, r.kind, r.breakdown);
}
