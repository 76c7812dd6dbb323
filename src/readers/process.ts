// Whether a process a harness registered is still running: its registry or lock file stays behind
// after a crash.

/** True while a process with this pid exists (signal 0 only checks; EPERM: it exists, owned by another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
