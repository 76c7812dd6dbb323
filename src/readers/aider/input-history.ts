// Aider's input history, `.aider.input.history` beside the chat history: prompt_toolkit's record
// of every line typed (prompts, commands, answers to confirmations), each under the time it was
// entered (`# 2026-11-30 11:46:39.803596`, local time, then `+<line>` per line). The chat history
// has no time but a session's start: this gives each prompt its own.

import { statSync } from 'node:fs';
import { readLines } from '../lines.js';

export interface Input {
  /** ms, local time */
  at: number;
  /** The first line typed. */
  text: string;
}

// Read on from where each file was last read; a restart reads it again (a few lines a prompt).
const histories = new Map<string, { offset: number; entries: Input[] }>();

const STAMP = /^# (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)$/;

/** The entries of an input history, oldest first (none when it cannot be read). */
export function inputHistory(path: string): readonly Input[] {
  let h = histories.get(path);
  // Most repositories have none: no exception for them (stat is asked not to throw).
  const size = statSync(path, { throwIfNoEntry: false })?.size;
  if (size === undefined) return h?.entries ?? [];
  // A history rewritten shorter is read again from its start.
  if (!h || size < h.offset) histories.set(path, (h = { offset: 0, entries: [] }));
  if (size === h.offset) return h.entries;
  const entries = h.entries;
  // An entry whose first line is still to come (it may be an empty one: `+`).
  let open: Input | undefined;
  h.offset = readLines(path, h.offset, (line) => {
    const text = line.toString('utf8').trimEnd();
    const stamp = STAMP.exec(text);
    if (stamp) {
      // Milliseconds: Date.parse takes at most three fraction digits.
      const at = Date.parse(`${stamp[1]}T${stamp[2]!.slice(0, 12)}`);
      open = Number.isNaN(at) ? undefined : { at, text: '' };
    } else if (open && text.startsWith('+')) {
      open.text = text.slice(1).trim();
      entries.push(open);
      open = undefined;
    }
  }).offset;
  return entries;
}

// Entries looked at past the last one matched: a prompt Aider wrote that was not typed (the text a
// command sends) finds none, and must not cost a scan of the whole history.
const LOOKAHEAD = 32;

/** The index of the entry typed as `text`, from `from` on and not before `notBefore` (ms). */
export function findInput(
  entries: readonly Input[],
  from: number,
  text: string,
  notBefore: number,
): number | undefined {
  let i = from;
  while (i < entries.length && entries[i]!.at < notBefore) i++;
  for (const end = Math.min(entries.length, i + LOOKAHEAD); i < end; i++) if (entries[i]!.text === text) return i;
  return undefined;
}
