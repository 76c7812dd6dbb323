// Reading one OpenClaw 2026.9 agent database (`agents/<agent>/agent/openclaw-agent.sqlite`)
// incrementally: `transcript_events (session_id, seq, event_json, event_zstd, …)` holds every
// session's transcript, one event a row, `seq` counting from 0 within the session; an event too
// large for the row is zstd-compressed in `event_zstd` instead of `event_json`. The cursor is the
// last `seq` read of each session (exact: a session's rows are only appended).

import { createRequire } from 'node:module';
import type { SessionEvents } from '../../session/events.js';
import { requireColumns, type Db } from '../sqlite.js';
import { readEvent } from './events.js';

export interface DbState {
  /** The store's signature at the last read (see storeChanged). */
  sig?: string;
  /** The last `seq` read, by session id. */
  seqs: Record<string, number>;
}

interface Row { seq: number; event_json: unknown; event_zstd: unknown }

export function readTranscripts(db: Db, state: DbState, eventsOf: (id: string) => SessionEvents): void {
  requireColumns(db, 'transcript_events', ['session_id', 'seq', 'event_json', 'event_zstd']);
  // The newest event of each session, from the primary key's index; only sessions that grew are read.
  const heads = db.prepare('SELECT session_id, MAX(seq) AS seq FROM transcript_events GROUP BY session_id').all() as { session_id: string; seq: number }[];
  const after = db.prepare('SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq');
  for (const head of heads) {
    const from = state.seqs[head.session_id] ?? -1;
    if (head.seq <= from) continue;
    const ev = eventsOf(head.session_id);
    for (const row of after.iterate(head.session_id, from) as IterableIterator<Row>) {
      const bytes = eventBytes(row);
      if (bytes) readEvent(bytes, ev);
      else ev.skipped('parse_error');
      state.seqs[head.session_id] = row.seq;
    }
  }
}

// The decompressor is loaded on the first compressed event: every other start-up goes without it.
let decompress: typeof import('fzstd').decompress | undefined;

/** The event's JSON: as stored, or decompressed; undefined for a blob that is not zstd. */
function eventBytes(row: Row): Buffer | undefined {
  if (typeof row.event_json === 'string') return Buffer.from(row.event_json, 'utf8');
  if (!(row.event_zstd instanceof Uint8Array)) return undefined;
  decompress ??= (createRequire(import.meta.url)('fzstd') as typeof import('fzstd')).decompress;
  try {
    const out = decompress(row.event_zstd);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  } catch {
    return undefined;
  }
}
