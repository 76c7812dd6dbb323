// The process table as the last process scan left it in the store: which sessions a live process
// owns, the agents no session file is joined to, and the totals per harness. Replaced whole by
// each scan (never persisted), read by scrapes without I/O.

import type { HarnessId, ProcessState } from '../session/types.js';

/** An agent process no session file could be joined to (a harness we cannot read, or before its first record). */
export interface UnownedAgent {
  harness: HarnessId;
  project: string;
  /** Its process tree uses CPU above the threshold: taken as working. */
  busy: boolean;
  cpuRatio: number;
  residentBytes: number;
  pid: number;
}

export interface ProcessTotals {
  processes: number;
  cpuRatio: number;
  residentBytes: number;
}

export interface ProcessView {
  /** Harnesses whose processes can be seen: a session of theirs no process owns has no live agent. */
  visible: ReadonlySet<HarnessId>;
  /** Sessions of another machine (their folder is not on this one), by key: their processes cannot be seen here. */
  elsewhere: ReadonlySet<string>;
  /** The live process of each owned session, by session key (`harness/id`). */
  owners: ReadonlyMap<string, ProcessState>;
  unowned: readonly UnownedAgent[];
  /** Agent processes per harness, with their children's CPU and memory. */
  totals: ReadonlyMap<HarnessId, ProcessTotals>;
}

export const EMPTY_VIEW: ProcessView = {
  visible: new Set(),
  elsewhere: new Set(),
  owners: new Map(),
  unowned: [],
  totals: new Map(),
};
