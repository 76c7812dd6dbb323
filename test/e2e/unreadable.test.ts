// A folder the exporter may not read (the Docker case: the container's user is not the harness's
// user) must fail its collector, named in the log; never look like a folder with no sessions.
//
// Tests run as root here, and root reads through `chmod 000`: the binary runs under setpriv
// without the two capabilities that let root ignore permissions (CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH), so the file modes apply to it as to any user.

import { spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envFor, FIXTURES, listening, MAIN, ready, sum, tempDir, until } from '../helpers/run.js';

const DROP = ['--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search'];
const canDrop = spawnSync('setpriv', [...DROP, 'true']).status === 0;

function onceWithout(home: string): { stdout: string; warnings: { path: string; collector: string }[] } {
  const r = spawnSync('setpriv', [...DROP, process.execPath, MAIN, 'once', '--state-dir', tempDir()], {
    env: envFor(home),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status).toBe(0);
  const warnings = r.stderr
    .split('\n')
    .filter((l) => l.includes('"cannot read folder"'))
    .map((l) => JSON.parse(l) as { path: string; collector: string });
  return { stdout: r.stdout, warnings };
}

describe.skipIf(!canDrop)('a folder the exporter cannot read', () => {
  const cases: [string, string, string][] = [
    ['~/.claude', '.claude', 'claude-code'],
    ['~/.claude/projects', '.claude/projects', 'claude-code'],
    ['a project folder', '.claude/projects/-home-dev-src-demo-app', 'claude-code'],
    ['~/.codex/sessions', '.codex/sessions', 'codex'],
  ];
  it.each(cases)(
    'chmod 000 on %s: its collector fails, the folder is named at warn',
    (_name, folder, collector) => {
      const home = tempDir();
      cpSync(join(FIXTURES, 'home'), home, { recursive: true });
      chmodSync(join(home, folder), 0);
      const { stdout, warnings } = onceWithout(home);
      expect(sum(stdout, 'coding_agent_exporter_collector_success', { collector })).toBe(0);
      expect(
        warnings
          .filter((w) => w.collector === collector)
          .map((w) => w.path)
          .join(),
      ).toContain(join(home, folder));
      // The other harnesses are read as before.
      const other = collector === 'codex' ? 'claude-code' : 'codex';
      expect(sum(stdout, 'coding_agent_exporter_collector_success', { collector: other })).toBe(1);
      expect(sum(stdout, 'coding_agent_tokens_total', { harness: other })).toBeGreaterThan(0);
    },
    60_000,
  );
});

describe.skipIf(!canDrop)('a folder that becomes unreadable while the exporter runs', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('chmod 000 on a project folder listed before: its collector fails, the folder is named once at warn', async () => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'home'), home, { recursive: true });
    const folder = join(home, '.claude/projects/-home-dev-src-demo-app');
    // Settled long ago: its listing is kept between scans (a chmod leaves its mtime as it was).
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(folder, old, old);
    let stderr = '';
    const { child, url } = listening(
      [
        ...DROP,
        process.execPath,
        MAIN,
        '--listen-address',
        '127.0.0.1:0',
        '--state-dir',
        tempDir(),
        '--rescan-seconds',
        '1',
      ],
      envFor(home),
      'setpriv',
    );
    children.push(child);
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = await url;
    await ready(base);
    const success = async () =>
      sum(await (await fetch(`${base}/metrics`)).text(), 'coding_agent_exporter_collector_success', {
        collector: 'claude-code',
      });
    expect(await success()).toBe(1);
    chmodSync(folder, 0);
    await until(async () => ((await success()) === 0 ? true : undefined), 20_000, 'the claude-code collector to fail');
    const warnings = stderr
      .split('\n')
      .filter((l) => l.includes('"level":"warn"'))
      .map((l) => JSON.parse(l) as { msg: string; path?: string });
    expect(warnings.filter((w) => w.path === folder).map((w) => w.msg)).toEqual(['cannot read folder']);
  }, 60_000);
});
