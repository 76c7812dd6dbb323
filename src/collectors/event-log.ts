// A reader's events, written down on one thread and played back on another. A file read on a
// read thread reports to an `EventLog` instead of the store; the main thread, which owns the
// store, plays the log back into the store's events as if the reader were running there. The
// reader cannot tell the difference, with one exception the log keeps: `firstTime` must answer at
// once, so the log answers from the keys it saw itself and writes the answer down; the main thread
// plays a log back only if the store gives every one of those answers too (`answersHold`).

import { UNREPORTED_EVENTS, type SessionEvents } from '../session/events.js';

// Every event, by its position in the log. `satisfies` and `Unlisted` keep the list complete.
const EVENTS = [
  'meta',
  'activity',
  'usage',
  'context',
  'premiumRequests',
  'prompt',
  'turnStarted',
  'turnEnded',
  'turnReopened',
  'toolCall',
  'toolWaits',
  'subagent',
  'archived',
  'toolResult',
  'lines',
  'compaction',
  'usageLimit',
  'viewed',
  'asks',
  'todos',
  'skipped',
  'firstTime',
  'record',
] as const satisfies readonly (keyof SessionEvents)[];
// Every event but the flag of a report's read (`usageOnly`), which is no event.
type Unlisted = Exclude<keyof SessionEvents, (typeof EVENTS)[number] | 'usageOnly'>;
const complete: Unlisted extends never ? true : never = true;
void complete;

// What is not an event: the session later events belong to (a file's records may name another
// one), a new line after a line that named its record (which mutes only its own line), and a
// reader that threw on a line.
const SESSION = -1;
const LINE = -2;
const READER_ERROR = -3;
const FIRST_TIME = EVENTS.indexOf('firstTime');
const ACTIVITY = EVENTS.indexOf('activity');
const META = EVENTS.indexOf('meta');

/**
 * A log of events: flat, so that it crosses threads as one array. Each entry is a code (an
 * event's position in EVENTS, or one of the negative codes above), the number of arguments, then
 * the arguments.
 */
export type Log = unknown[];

export class EventLog {
  readonly log: Log = [];
  private session: string | undefined;
  private recordNamed = false;
  private lastMeta: Parameters<SessionEvents['meta']>[0] | undefined;
  private run: number[] = [];
  /** A report's read: where each session's two activity entries are (`sessionActivity`). */
  private readonly activity = new Map<string, number>();
  /** The sink a reader reports to. */
  readonly events: SessionEvents;

  /**
   * `sessionOf` names the session of the next event; `keys` are the dedupe keys this thread has
   * seen (shared by every file it reads for one collector); `seen`, where the log is written on
   * the thread that owns the store (a large document read in turns), the keys the store has;
   * `usageOnly`, for a report's read: the events no report sums are not written down.
   */
  constructor(
    private readonly sessionOf: () => string,
    private readonly keys: Set<string>,
    private readonly seen?: (key: string) => boolean,
    private readonly usageOnly = false,
  ) {
    const events: Record<string, unknown> = { usageOnly };
    const unreported: readonly string[] = usageOnly ? UNREPORTED_EVENTS : [];
    EVENTS.forEach((name, code) => {
      events[name] = unreported.includes(name) ? () => undefined : (...args: unknown[]) => this.write(code, args);
    });
    events.firstTime = (key: unknown) => {
      const first = !this.keys.has(key as string) && !this.seen?.(key as string);
      if (first) this.keys.add(key as string);
      this.write(FIRST_TIME, [key, first]);
      return first;
    };
    events.record = (key: unknown) => {
      this.recordNamed = true;
      this.write(EVENTS.indexOf('record'), [key]);
    };
    this.events = events as unknown as SessionEvents;
  }

  /** A line starts. */
  line(): void {
    if (!this.recordNamed) return;
    this.recordNamed = false;
    this.push(LINE, []);
  }

  /** The reader threw on the line at byte `at`. */
  readerError(at: number, error: string): void {
    this.push(READER_ERROR, [at, error]);
  }

  private write(code: number, args: unknown[]): void {
    const session = this.sessionOf();
    if (session !== this.session) {
      this.session = session;
      this.lastMeta = undefined;
      this.push(SESSION, [session]);
    }
    if (code === ACTIVITY && this.usageOnly) return this.sessionActivity(session, args[0] as number);
    if (code === ACTIVITY && this.activityRun(args[0] as number)) return;
    if (code === META) {
      // Readers repeat a session's folder and branch on every record: the same again changes nothing.
      const m = args[0] as Parameters<SessionEvents['meta']>[0];
      const last = this.lastMeta;
      if (last && last.cwd === m.cwd && last.gitBranch === m.gitBranch && last.model === m.model) return;
      this.lastMeta = { ...m };
    }
    // Objects are copied: a reader may change one it reported after the call returned.
    this.push(
      code,
      args.map((a) => (a !== null && typeof a === 'object' && !Array.isArray(a) ? { ...a } : a)),
    );
  }

  /**
   * A run of activity with nothing between is kept as two entries, the earliest time and the
   * latest: all the store keeps of it (a session's first and last activity). True when `ts` was
   * taken into the run.
   */
  private activityRun(ts: number): boolean {
    const [first, second] = this.run;
    if (second === undefined) return false;
    this.log[first! + 2] = Math.min(this.log[first! + 2] as number, ts);
    this.log[second + 2] = Math.max(this.log[second + 2] as number, ts);
    return true;
  }

  /**
   * A report's read: a session's activity is kept as two entries where it first shows, the
   * earliest time and the latest. No event a report sums reads them in between (a tool call's
   * start does, and is dropped), so the store ends as it would have.
   */
  private sessionActivity(session: string, ts: number): void {
    const entries = this.activity.get(session);
    if (entries) {
      this.log[entries + 2] = Math.min(this.log[entries + 2] as number, ts);
      this.log[entries + 5] = Math.max(this.log[entries + 5] as number, ts);
      return;
    }
    this.activity.set(session, this.log.length);
    this.push(ACTIVITY, [ts]);
    this.push(ACTIVITY, [ts]);
  }

  private push(code: number, args: unknown[]): void {
    const at = this.log.length;
    this.log.push(code, args.length, ...args);
    // Where the entries of the activity run ending here are: none, the first, or both.
    this.run = code !== ACTIVITY ? [] : this.run.length === 0 ? [at] : [this.run[0]!, at];
  }
}

/**
 * Whether the store answers every `firstTime` of a log as the log did: `seen(key)` says whether
 * the store has the key, before any of the log's own.
 */
export function answersHold(log: Log, seen: (key: string) => boolean): boolean {
  const own = new Set<string>();
  for (let i = 0; i < log.length; i += 2 + (log[i + 1] as number)) {
    if (log[i] !== FIRST_TIME) continue;
    const key = log[i + 2] as string;
    const first = !own.has(key) && !seen(key);
    own.add(key);
    if (first !== log[i + 3]) return false;
  }
  return true;
}

export interface PlaybackTarget {
  /** The sink the reader would have reported to, for the session `session` last named. */
  events: SessionEvents;
  session(id: string): void;
  /** A new line starts (see `SessionStore.beginLine`). */
  line(): void;
  readerError(at: number, error: string): void;
  /**
   * A `firstTime` the log's writer asked the store itself (`seen`) and the log holds the answer
   * of: where this is given, it takes the answer in place of the sink asking the store again.
   */
  answered?(key: string, first: boolean): void;
}

/** Plays a log back, in order. */
export function play(log: Log, target: PlaybackTarget): void {
  const events = target.events as unknown as Record<string, (...a: unknown[]) => void>;
  for (let i = 0; i < log.length;) {
    const code = log[i] as number;
    const argc = log[i + 1] as number;
    const a = i + 2;
    i = a + argc;
    if (code === SESSION) target.session(log[a] as string);
    else if (code === LINE) target.line();
    else if (code === READER_ERROR) target.readerError(log[a] as number, log[a + 1] as string);
    else if (code === FIRST_TIME && target.answered) target.answered(log[a] as string, log[a + 1] as boolean);
    else call(events, EVENTS[code]!, log, a, argc);
  }
}

/** Calls an event with its `argc` arguments from `log[a]` on, without copying them out for the common counts. */
function call(
  events: Record<string, (...a: unknown[]) => void>,
  name: string,
  log: Log,
  a: number,
  argc: number,
): void {
  const f = events[name]!;
  switch (argc) {
    case 0:
      return f.call(events);
    case 1:
      return f.call(events, log[a]);
    case 2:
      return f.call(events, log[a], log[a + 1]);
    case 3:
      return f.call(events, log[a], log[a + 1], log[a + 2]);
    default:
      return f.apply(events, log.slice(a, a + argc));
  }
}
