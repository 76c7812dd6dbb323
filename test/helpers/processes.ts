// Starting and stopping the real servers end-to-end tests need (Prometheus, VictoriaMetrics,
// vmalert), on loopback, each stopped by the test that started it.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port free now (for servers that cannot report the port they bound to 0). */
export function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/** Servers started by a test; `stopAll` in its afterAll. */
export class Processes {
  private readonly children: ChildProcess[] = [];
  private readonly cleanups: (() => Promise<void>)[] = [];

  add(child: ChildProcess): ChildProcess {
    this.children.push(child);
    return child;
  }

  /** Starts `cmd` and resolves once its stderr matches `ready`; rejects if it exits first. */
  start(cmd: string, args: string[], ready: RegExp): Promise<RegExpExecArray> {
    const child = this.add(spawn(cmd, args, { env: { PATH: process.env.PATH, HOME: '/nonexistent' } }));
    return new Promise((res, rej) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        const m = ready.exec(err);
        if (m) res(m);
      });
      child.on('exit', (code) => rej(new Error(`${cmd} exited ${code}: ${err.slice(-2000)}`)));
    });
  }

  /** Something else to stop with the children (an in-process server). */
  onStop(cleanup: () => Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  /** Stops every child and waits until each has exited. */
  async stopAll(): Promise<void> {
    await Promise.all(this.cleanups.splice(0).map((c) => c()));
    await Promise.all(
      this.children.splice(0).map(
        (c) =>
          new Promise<void>((res) => {
            if (c.exitCode !== null || c.signalCode !== null) return res();
            c.once('exit', () => res());
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
  }
}
