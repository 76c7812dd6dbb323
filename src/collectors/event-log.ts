// A reader's events, written down on one thread and played back on another. A file read on a
// read thread reports to an `EventLog` instead of the store; the main thread, which owns the
// store, plays the log back into the store's events as if the reader were running there. The
// reader cannot tell the difference, with one exception the log keeps: `firstTime` must answer at
// once, so the log answers from the keys it saw itself and writes the answer down; the main thread
// plays a log back only if the store gives every one of those answers too (`answersHold`).

import { UNREPORTED_EVENTS, unreported, type SessionEvents } from '../session/events.js';
import type { Usage } from '../session/types.js';

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
const USAGE = EVENTS.indexOf('usage');
const RECORD = EVENTS.indexOf('record');

// What kind of value an argument is, written before it.
const NUMBER = 0;
const STRING = 1; // then its place among the log's strings
const UNDEFINED = 2;
const NULL = 3;
const TRUE = 4;
const FALSE = 5;
const TOKENS = 6; // a `Usage`: its six counts
const OBJECT = 7; // then its number of members, and each one's name (a string) and value
const ARRAY = 8; // then its length and its elements

// The most words a value takes where it is written (a usage's tag and counts); an object or an
// array makes room for its members.
const WORST_VALUE = 7;

// Arguments an event has, at most (`usage`'s), for the places of their strings (LogWriter.string).
const SLOTS = 7;

// An activity entry (its code, size, tag) and where its time is in it.
const ACTIVITY_WORDS = 4;
const ACTIVITY_TIME = 3;

/**
 * A log of events as it crosses threads: numbers in one typed array, which is copied whole, and
 * the strings they name. Each entry is a code (an event's position in EVENTS, or one of the
 * negative codes above), the number of words after it, then the arguments, each a tag (above) and
 * its value. (A log of mixed values in one array took 40 % longer to write down, send and play
 * back, and the objects it gave back were not of the shapes the readers make.)
 */
export interface Log {
  words: Float64Array;
  strings: string[];
}

/** A log being written. */
class LogWriter {
  words = new Float64Array(1024);
  length = 0;
  readonly strings: string[] = [];
  private readonly stringAt = new Map<string, number>();
  private readonly lastString: (string | undefined)[] = [];
  private readonly lastIndex: number[] = [];

  /**
   * Room for `values` more values (a usage or a scalar: 7 words at most; an object or array makes
   * room for its own members) after `words` more words. Values are written straight into the
   * words: a call per word cost a fifth of writing a log down.
   */
  room(words: number, values: number): void {
    const needed = this.length + words + WORST_VALUE * values;
    if (needed <= this.words.length) return;
    const bigger = new Float64Array(Math.max(this.words.length * 2, needed));
    bigger.set(this.words.subarray(0, this.length));
    this.words = bigger;
  }

  /**
   * Where a string is among the log's. An argument's (`slot`: the event and the argument's place)
   * is written once where it is the same as that argument's last time (a model, a session, an
   * outcome); a key, new each time, is not looked up. A member's, and its name, once in all.
   */
  private string(s: string, slot: number): number {
    if (slot >= 0 && this.lastString[slot] === s) return this.lastIndex[slot]!;
    let at = slot >= 0 ? undefined : this.stringAt.get(s);
    if (at === undefined) {
      at = this.strings.push(s) - 1;
      if (slot >= 0) {
        this.lastString[slot] = s;
        this.lastIndex[slot] = at;
      } else this.stringAt.set(s, at);
    }
    return at;
  }

  /** A value, where `room` was made for it; `slot`: an argument's (`string`), or -1. */
  value(v: unknown, slot = -1): void {
    const w = this.words;
    const n = this.length;
    switch (typeof v) {
      case 'number':
        w[n] = NUMBER;
        w[n + 1] = v;
        this.length = n + 2;
        return;
      case 'string':
        w[n] = STRING;
        w[n + 1] = this.string(v, slot);
        this.length = n + 2;
        return;
      case 'boolean':
        w[n] = v ? TRUE : FALSE;
        this.length = n + 1;
        return;
      case 'undefined':
        w[n] = UNDEFINED;
        this.length = n + 1;
        return;
    }
    if (v === null) {
      w[n] = NULL;
      this.length = n + 1;
      return;
    }
    if (typeof v !== 'object') throw new TypeError(`an event's argument cannot be a ${typeof v}`);
    if (Array.isArray(v)) {
      const elements = v as unknown[];
      this.room(2, elements.length);
      this.words[this.length++] = ARRAY;
      this.words[this.length++] = elements.length;
      for (const e of elements) this.value(e);
      return;
    }
    const members = Object.entries(v);
    this.room(2, 2 * members.length);
    this.words[this.length++] = OBJECT;
    this.words[this.length++] = members.length;
    for (const [name, value] of members) {
      this.value(name);
      this.value(value);
    }
  }

  /** A usage, as its six counts where they are all numbers (as they are, but for damage); `room` was made for it. */
  usage(u: Usage): void {
    const { input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning } = u;
    if (
      typeof input !== 'number' ||
      typeof output !== 'number' ||
      typeof cacheRead !== 'number' ||
      typeof cacheWrite !== 'number' ||
      typeof cacheWrite1h !== 'number' ||
      typeof reasoning !== 'number' ||
      Object.keys(u).length !== 6
    )
      return this.value(u);
    const w = this.words;
    const n = this.length;
    w[n] = TOKENS;
    w[n + 1] = input;
    w[n + 2] = output;
    w[n + 3] = cacheRead;
    w[n + 4] = cacheWrite;
    w[n + 5] = cacheWrite1h;
    w[n + 6] = reasoning;
    this.length = n + 7;
  }

  /** The log as written; the writer goes on from its end. */
  log(): Log {
    return { words: this.words.slice(0, this.length), strings: [...this.strings] };
  }
}

export class EventLog {
  private readonly writer = new LogWriter();
  private session: string | undefined;
  private recordNamed = false;
  private lastMeta: Parameters<SessionEvents['meta']>[0] | undefined;
  /** Where the entries of the activity run ending here are: none, the first, or both. */
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
    const dropped: readonly string[] = usageOnly ? UNREPORTED_EVENTS : [];
    const firstTime = (key: string) => {
      const first = !this.keys.has(key) && !this.seen?.(key);
      if (first) this.keys.add(key);
      this.write(FIRST_TIME, [key, first]);
      return first;
    };
    const record = (key: string) => {
      this.recordNamed = true;
      this.write(RECORD, [key]);
    };
    const written =
      (code: number) =>
      (...args: unknown[]) =>
        this.write(code, args);
    // Made whole (Object.fromEntries): an object given its members one by one is kept by V8 as a
    // dictionary past a dozen, and each event a reader reported was looked up in it by name.
    this.events = Object.fromEntries([
      ['usageOnly', usageOnly],
      ...EVENTS.map((name, code) => [
        name,
        name === 'firstTime'
          ? firstTime
          : name === 'record'
            ? record
            : dropped.includes(name)
              ? unreported
              : written(code),
      ]),
    ]) as SessionEvents;
  }

  /** The log written so far. */
  get log(): Log {
    return this.writer.log();
  }

  /** A line starts. */
  line(): void {
    if (!this.recordNamed) return;
    this.recordNamed = false;
    this.entry(LINE, []);
  }

  /** The reader threw on the line at byte `at`. */
  readerError(at: number, error: string): void {
    this.entry(READER_ERROR, [at, error]);
  }

  private write(code: number, args: unknown[]): void {
    const session = this.sessionOf();
    if (session !== this.session) {
      this.session = session;
      this.lastMeta = undefined;
      this.entry(SESSION, [session]);
    }
    // Activity is kept as its earliest and latest time (a time that is no number is written as it is).
    const time = code === ACTIVITY && typeof args[0] === 'number' ? args[0] : undefined;
    if (time !== undefined && this.usageOnly) return this.sessionActivity(session, time);
    if (time !== undefined && this.activityRun(time)) return;
    if (code === META) {
      // Readers repeat a session's folder and branch on every record: the same again changes nothing.
      const m = args[0] as Parameters<SessionEvents['meta']>[0];
      const last = this.lastMeta;
      if (last && last.cwd === m.cwd && last.gitBranch === m.gitBranch && last.model === m.model) return;
      this.lastMeta = { ...m };
    }
    // Objects are written down by value: a reader may change one it reported after the call returned.
    this.entry(code, args);
  }

  /**
   * A run of activity with nothing between is kept as two entries, the earliest time and the
   * latest: all the store keeps of it (a session's first and last activity). True when `ts` was
   * taken into the run; false when it starts one (written as it is).
   */
  private activityRun(ts: number): boolean {
    const [first] = this.run;
    if (first === undefined) return false;
    // The run's second entry starts as its first's time: each time is then taken into both.
    if (this.run.length === 1) this.entry(ACTIVITY, [this.writer.words[first + ACTIVITY_TIME]]);
    this.widen(first, this.run[1]!, ts);
    return true;
  }

  /**
   * A report's read: a session's activity is kept as two entries where it first shows, the
   * earliest time and the latest. No event a report sums reads them in between (a tool call's
   * start does, and is dropped), so the store ends as it would have.
   */
  private sessionActivity(session: string, ts: number): void {
    const entries = this.activity.get(session);
    if (entries !== undefined) return this.widen(entries, entries + ACTIVITY_WORDS, ts);
    this.activity.set(session, this.writer.length);
    this.entry(ACTIVITY, [ts]);
    this.entry(ACTIVITY, [ts]);
  }

  /** Takes `ts` into the activity entries at `earliest` and `latest`. */
  private widen(earliest: number, latest: number, ts: number): void {
    const words = this.writer.words;
    words[earliest + ACTIVITY_TIME] = Math.min(words[earliest + ACTIVITY_TIME]!, ts);
    words[latest + ACTIVITY_TIME] = Math.max(words[latest + ACTIVITY_TIME]!, ts);
  }

  private entry(code: number, args: unknown[]): void {
    const w = this.writer;
    w.room(2, args.length);
    const at = w.length;
    w.words[at] = code;
    w.length = at + 2; // its size once written, between
    for (let i = 0; i < args.length; i++) {
      if (code === USAGE && i === 1) w.usage(args[i] as Usage);
      else w.value(args[i], (code - READER_ERROR) * SLOTS + i);
    }
    w.words[at + 1] = w.length - at - 2;
    const time = code === ACTIVITY && w.words[at + 2] === NUMBER;
    this.run = !time ? [] : this.run.length === 0 ? [at] : [this.run[0]!, at];
  }
}

/**
 * A number read from the log as the readers make it: a whole number as V8's small integer where it
 * is one. An element of a Float64Array comes back boxed (a heap number, even for 16), and a usage
 * of boxed counts made V8 widen the readers' usage shape to doubles: the store's code for usage was
 * thrown away and compiled again, and each count boxed from then on.
 */
function small(x: number): number {
  return (x | 0) === x && (x !== 0 || 1 / x > 0) ? x | 0 : x;
}

/** Reads a log's values back. */
class LogReader {
  at = 0;

  constructor(private readonly log: Log) {}

  value(): unknown {
    const words = this.log.words;
    const tag = words[this.at++];
    switch (tag) {
      case NUMBER:
        return small(words[this.at++]!);
      case STRING:
        return this.log.strings[words[this.at++]!];
      case UNDEFINED:
        return undefined;
      case NULL:
        return null;
      case TRUE:
        return true;
      case FALSE:
        return false;
      case TOKENS: {
        const at = this.at;
        this.at += 6;
        // A literal of the readers' own shape.
        const u: Usage = {
          input: small(words[at]!),
          output: small(words[at + 1]!),
          cacheRead: small(words[at + 2]!),
          cacheWrite: small(words[at + 3]!),
          cacheWrite1h: small(words[at + 4]!),
          reasoning: small(words[at + 5]!),
        };
        return u;
      }
      case OBJECT: {
        const o: Record<string, unknown> = {};
        for (let n = words[this.at++]!; n > 0; n--) {
          const name = this.value() as string;
          o[name] = this.value();
        }
        return o;
      }
      case ARRAY: {
        const a: unknown[] = [];
        for (let n = words[this.at++]!; n > 0; n--) a.push(this.value());
        return a;
      }
    }
    throw new Error(`not a log: tag ${tag} at word ${this.at - 1}`);
  }
}

/**
 * Whether the store answers every `firstTime` of a log as the log did: `seen(key)` says whether
 * the store has the key, before any of the log's own.
 */
export function answersHold(log: Log, seen: (key: string) => boolean): boolean {
  const { words, strings } = log;
  const own = new Set<string>();
  // A firstTime entry: its code, size, the key (a string: tag and place), the answer (a tag).
  for (let i = 0; i < words.length; i += 2 + words[i + 1]!) {
    if (words[i] !== FIRST_TIME) continue;
    const key = strings[words[i + 3]!]!;
    const first = !own.has(key) && !seen(key);
    own.add(key);
    if (first !== (words[i + 4] === TRUE)) return false;
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
  const words = log.words;
  const reader = new LogReader(log);
  const args: unknown[] = [];
  for (let i = 0; i < words.length;) {
    const code = words[i]!;
    const end = i + 2 + words[i + 1]!;
    reader.at = i + 2;
    let argc = 0;
    while (reader.at < end) args[argc++] = reader.value();
    i = end;
    if (code === SESSION) target.session(args[0] as string);
    else if (code === LINE) target.line();
    else if (code === READER_ERROR) target.readerError(args[0] as number, args[1] as string);
    else if (code === FIRST_TIME && target.answered) target.answered(args[0] as string, args[1] as boolean);
    else call(events, EVENTS[code]!, args, argc);
  }
}

/** Calls an event with the first `argc` of `args`, without copying them out for the common counts. */
function call(events: Record<string, (...a: unknown[]) => void>, name: string, args: unknown[], argc: number): void {
  const f = events[name]!;
  switch (argc) {
    case 0:
      return f.call(events);
    case 1:
      return f.call(events, args[0]);
    case 2:
      return f.call(events, args[0], args[1]);
    case 3:
      return f.call(events, args[0], args[1], args[2]);
    case 4:
      return f.call(events, args[0], args[1], args[2], args[3]);
    case 5:
      return f.call(events, args[0], args[1], args[2], args[3], args[4]);
    case 6:
      return f.call(events, args[0], args[1], args[2], args[3], args[4], args[5]);
    case 7:
      return f.call(events, args[0], args[1], args[2], args[3], args[4], args[5], args[6]);
    default:
      return f.apply(events, args.slice(0, argc));
  }
}
