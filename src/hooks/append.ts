// The hook's side of the spool: appending one event, with hooks of every agent appending at once
// and the exporter reading, and no event lost or read twice whatever the interleaving.
//
// - An event is one line, one write with O_APPEND: lines of hooks running at once never mix.
// - Past SPOOL_MAX_BYTES, the hook that wrote moves the spool to a name of its own
//   (`hooks.jsonl.<ms>-<pid>-<n>`), never over another file: two hooks moving it at once move the
//   full spool and perhaps a new, nearly empty one, and nothing is lost.
// - The exporter reads a moved spool to its end, appends SPOOL_SEAL, reads up to the seal and
//   then puts the file away (hooks/source.ts).
// - A hook opened the spool before it was moved and wrote after: its line is in the moved file,
//   perhaps after the seal, where the exporter does not read it. So, after writing, the hook
//   checks that its file is still the spool; when it is not, it looks for the seal before its
//   line, and writes the line again when the seal came first.
//
// The spool is a regular file of the state folder and nothing else: a symbolic link is not
// followed (the hook would write where it points), a FIFO fails the open instead of blocking the
// hook (and its agent), and the spool is readable by its owner alone.

import { closeSync, constants, fchmodSync, fstatSync, lstatSync, readSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openRegular } from '../files/open.js';
import { SPOOL_FILE, SPOOL_MAX_BYTES, SPOOL_SEAL } from './spool.js';

const APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
// Writing again after the spool was moved under the write: each time, it must move again in the
// instant between the write and the check. A few tries, then the event is given up (the hook never holds its agent).
const TRIES = 5;

/** Appends `line` (one event, ending in a newline) to the spool in `stateDir`; `maxBytes`: where the spool is moved aside (tests make it small). */
export function appendToSpool(stateDir: string, line: string, maxBytes = SPOOL_MAX_BYTES): void {
  const path = join(stateDir, SPOOL_FILE);
  for (let i = 0; i < TRIES; i++) {
    const fd = openRegular(path, APPEND, 0o600);
    try {
      writeSync(fd, line);
      const mine = fstatSync(fd);
      const now = lstatSync(path, { throwIfNoEntry: false });
      if (now?.ino === mine.ino && now.dev === mine.dev) {
        // A spool created by an earlier version, readable by all.
        if ((mine.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
        if (mine.size >= maxBytes) moveAside(path);
        return;
      }
      if (!afterSeal(fd, mine.size, line)) return;
    } finally {
      closeSync(fd);
    }
  }
  throw new Error(`the spool was moved under each of ${TRIES} writes`);
}

// Moves made by this process: with the time and the process, a name no other move takes.
let moves = 0;

function moveAside(path: string): void {
  try {
    renameSync(path, `${path}.${Date.now()}-${process.pid}-${++moves}`);
  } catch (e) {
    // Another hook moved it first.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Whether `line`, written to the moved spool `fd`, is missing before its seal: the exporter will not read it. */
function afterSeal(fd: number, size: number, line: string): boolean {
  const buf = Buffer.alloc(size);
  for (let n = 0; n < size;) {
    const read = readSync(fd, buf, n, size - n, n);
    if (read === 0) break;
    n += read;
  }
  const seal = buf.indexOf(`\n${SPOOL_SEAL}\n`);
  if (seal < 0) return false;
  // The line on a line of its own (two hooks' identical lines are the same event to the reader).
  const before = buf.subarray(0, seal + 1);
  for (let at = before.indexOf(line); at >= 0; at = before.indexOf(line, at + 1)) {
    if (at === 0 || before[at - 1] === 10) return false;
  }
  return true;
}
