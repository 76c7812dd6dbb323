// Opening a file only when it is a regular file: a FIFO or a device put where a file was expected
// would block a read (and with it every scrape) or a write (and with it the hook, and its agent).
// Loaded by the hook command too: it imports nothing else.

import { closeSync, constants, fstatSync, openSync } from 'node:fs';

/**
 * Opens a file, only if it is a regular file (error `ENOTREG` otherwise). It is opened
 * non-blocking, so that a FIFO fails at once instead of waiting for a writer (or a reader); on a
 * regular file the flag changes nothing. `flags`: open(2)'s besides (`O_NOFOLLOW` where a
 * symbolic link must not be followed, `O_RDWR | O_APPEND | O_CREAT` to append), `mode` a created file's.
 */
export function openRegular(path: string, flags = 0, mode?: number): number {
  return openRegularSized(path, flags, mode).fd;
}

/** `openRegular`, with the file's size from the same fstat that checked it. */
export function openRegularSized(path: string, flags = 0, mode?: number): { fd: number; size: number } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | flags, mode);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(`not a regular file: ${path}`), { code: 'ENOTREG' });
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}
