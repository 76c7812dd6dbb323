// A folder the exporter may not read (the Docker case: the container's user is not the harness's
// user) must fail its collector, named in the log; never look like a folder with no sessions.
//
// Tests run as root here, and root reads through `chmod 000`: the binary runs under setpriv
// without the two capabilities that let root ignore permissions (CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH), so the file modes apply to it as to any user.

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, FIXTURES, MAIN, sum, tempDir } from '../helpers/run.js';

const DROP = ['--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search'];
const canDrop = spawnSync('setpriv', [...DROP, 'true']).status === 0;

function onceWithout(home: string): { stdout: string; warnings: { path: string; collector: string }[] } {
  const r = spawnSync('setpriv', [...DROP, process.execPath, MAIN, 'once', '--state-dir', tempDir()], { env: envFor(home), encoding: 'utf8', timeout: 60_000 });
  expect(r.status).toBe(0);
  const warnings = r.stderr.split('\n').filter((l) => l.includes('"cannot read folder"')).map((l) => JSON.parse(l) as { path: string; collector: string });
  return { stdout: r.stdout, warnings };
}

describe.skipIf(!canDrop)('a folder the exporter cannot read', () => {
  const cases: [string, string, string][] = [
    ['~/.claude', '.claude', 'claude-code'],
    ['~/.claude/projects', '.claude/projects', 'claude-code'],
    ['a project folder', '.claude/projects/-home-dev-src-demo-app', 'claude-code'],
    ['~/.codex/sessions', '.codex/sessions', 'codex'],
  ];
  it.each(cases)('chmod 000 on %s: its collector fails, the folder is named at warn', (_name, folder, collector) => {
    const home = tempDir();
    cpSync(join(FIXTURES, 'home'), home, { recursive: true });
    chmodSync(join(home, folder), 0);
    const { stdout, warnings } = onceWithout(home);
    expect(sum(stdout, 'coding_agent_exporter_collector_success', { collector })).toBe(0);
    expect(warnings.filter((w) => w.collector === collector).map((w) => w.path).join()).toContain(join(home, folder));
    // The other harnesses are read as before.
    const other = collector === 'codex' ? 'claude-code' : 'codex';
    expect(sum(stdout, 'coding_agent_exporter_collector_success', { collector: other })).toBe(1);
    expect(sum(stdout, 'coding_agent_tokens_total', { harness: other })).toBeGreaterThan(0);
  }, 60_000);
});
