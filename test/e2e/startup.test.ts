// Start-up as a new user meets it: a setting that cannot work stops the binary with one line that
// names the setting (no stack trace), and `demo` leaves nothing behind when it cannot start.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, run, tempDir } from '../helpers/run.js';

const home = tempDir();

/** Exit code 2 and exactly one line on stderr, matching `message`. */
function refusedWith(r: { status: number; stderr: string; stdout: string }, message: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(/^coding-agent-exporter: /);
  expect(r.stderr).toMatch(message);
  expect(r.stdout).toBe('');
}

async function takenPort(): Promise<{ port: number; close: () => void }> {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  return { port: (taken.address() as AddressInfo).port, close: () => taken.close() };
}

describe('start-up errors', () => {
  it('demo on a taken port: one line naming listenAddress, and its temporary folder removed', async () => {
    const tmp = tempDir();
    const { port, close } = await takenPort();
    const r = run(['demo', '--listen-address', `127.0.0.1:${port}`], envFor(home, { TMPDIR: tmp }));
    close();
    refusedWith(r, new RegExp(`listenAddress 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a state folder that is a file', () => {
    const file = join(tempDir(), 'state');
    writeFileSync(file, '');
    refusedWith(run(['once', '--state-dir', file], envFor(home)), /stateDir \(.*state\) is a file, not a folder/);
    refusedWith(
      run(['once', '--state-dir', join(file, 'below')], envFor(home)),
      /stateDir \(.*below\) is a file, not a folder/,
    );
  });

  it('a state folder that cannot be written', () => {
    // root writes anywhere a mode bit forbids: there, a folder of the kernel's read-only /sys.
    let dir = '/sys/coding-agent-exporter-test';
    if (process.getuid?.() !== 0) {
      dir = join(tempDir(), 'state');
      mkdirSync(dir, { mode: 0o555 });
    }
    refusedWith(run(['once', '--state-dir', dir], envFor(home)), /stateDir \(.*\) cannot be written/);
  });

  it('an OTLP endpoint that is not a URL', () => {
    refusedWith(
      run(['once', '--state-dir', tempDir(), '--otlp-endpoint', 'notaurl'], envFor(home)),
      /otlp\.endpoint: expected an http:\/\/ or https:\/\/ URL, got "notaurl"/,
    );
  });
});
