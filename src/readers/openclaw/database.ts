// Reading one OpenClaw 2026.9 agent database (`agents/<agent>/agent/openclaw-agent.sqlite`)
// incrementally: `transcript_events (session_id, seq, event_json, event_zstd, …)` holds every
// session's transcript, one event a row, `seq` counting from 0 within the session; an event too
// large for the row is zstd-compressed in `event_zstd` instead of `event_json`. The cursor is the
// last `seq` read of each session (exact: a session's rows are only appended).

import type { SessionEvents } from '../../session/events.js';
import { requireColumns, type Db } from '../sqlite.js';
import { MAX_LINE } from '../lines.js';
import { unzstd } from '../zstd.js';
import { readEvent } from './events.js';

export interface DbState {
  /** The store's signature at the last read (see storeChanged). */
  sig?: string;
  /** The last `seq` read, by session id. */
  seqs: Record<string, number>;
}

interface Row {
  seq: number;
  event_json: unknown;
  event_zstd: unknown;
}

export function readTranscripts(db: Db, state: DbState, eventsOf: (id: string) => SessionEvents): void {
  requireColumns(db, 'transcript_events', ['session_id', 'seq', 'event_json', 'event_zstd']);
  // The newest event of each session, from the primary key's index; only sessions that grew are read.
  const heads = db.prepare('SELECT session_id, MAX(seq) AS seq FROM transcript_events GROUP BY session_id').all() as {
    session_id: string;
    seq: number;
  }[];
  const after = db.prepare(
    'SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq',
  );
  for (const head of heads) {
    const from = state.seqs[head.session_id] ?? -1;
    if (head.seq <= from) continue;
    const ev = eventsOf(head.session_id);
    for (const row of after.iterate(head.session_id, from) as IterableIterator<Row>) {
      const bytes = eventBytes(row);
      if (typeof bytes === 'string') ev.skipped(bytes);
      else readEvent(bytes, ev);
      state.seqs[head.session_id] = row.seq;
    }
  }
}

/**
 * The event's JSON: as stored, or decompressed. A compressed event is held to a JSONL line's
 * limit (the same events, in OpenClaw's files before 2026.9): a blob under OpenClaw's own 4 MB
 * can decompress to 100 GB.
 */
function eventBytes(row: Row): Buffer | 'parse_error' | 'line_too_long' {
  if (typeof row.event_json === 'string') return Buffer.from(row.event_json, 'utf8');
  if (!(row.event_zstd instanceof Uint8Array)) return 'parse_error';
  const out = unzstd(row.event_zstd, MAX_LINE);
  return out === 'invalid' ? 'parse_error' : out === 'too_large' ? 'line_too_long' : out;
}
