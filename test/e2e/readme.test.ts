// Every command the README shows, run as shown on a fixture home: those that end exit 0, and those
// that serve (`serve`, `demo`) answer `/-/ready`.

import { cpSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeCommands } from '../helpers/readme.js';
import { envFor, FIXTURES, listening, ready, run, tempDir } from '../helpers/run.js';

const README = readFileSync(resolve(__dirname, '../../README.md'), 'utf8');
const SERVES = new Set(['', 'serve', 'demo']);

describe("the README's commands, run as shown", () => {
  const home = tempDir();
  cpSync(join(FIXTURES, 'home'), home, { recursive: true });
  const env = envFor(home, { CODING_AGENT_EXPORTER_STATE_DIR: tempDir() });
  const kill: (() => void)[] = [];
  let url = '';

  beforeAll(async () => {
    const serving = listening(['--listen-address', '127.0.0.1:0'], env);
    kill.push(() => serving.child.kill('SIGKILL'));
    url = await serving.url;
    await ready(url);
  });
  afterAll(() => kill.forEach((k) => k()));

  const shown = readmeCommands(README, 'URL');
  it('shows commands that end and commands that serve', () => {
    expect(shown.filter((a) => SERVES.has(a[0] ?? '')).length).toBeGreaterThan(0);
    expect(shown.filter((a) => !SERVES.has(a[0] ?? '')).length).toBeGreaterThan(5);
  });

  it.each(shown.filter((a) => !SERVES.has(a[0] ?? '')).map((a) => [a.join(' '), a] as const))(
    '%s exits 0',
    (_, args) => {
      const r = run(
        args.map((a) => (a === 'URL' ? url : a)),
        env,
      );
      expect(r.status, r.stderr).toBe(0);
    },
  );

  it.each(shown.filter((a) => SERVES.has(a[0] ?? '')).map((a) => [a.join(' ') || '(no command)', a] as const))(
    '%s serves',
    async (_, args) => {
      const { child, url: base } = listening([...args, '--listen-address', '127.0.0.1:0'], {
        ...env,
        CODING_AGENT_EXPORTER_STATE_DIR: tempDir(),
      });
      kill.push(() => child.kill('SIGKILL'));
      await ready(await base);
      expect(child.exitCode).toBeNull();
      child.kill('SIGTERM');
    },
  );
});
