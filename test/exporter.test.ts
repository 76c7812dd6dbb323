// The exporter's lifecycle, for a report's own read (`report` with no state database): the usage
// of the harness asked for, and nothing else.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Exporter } from '../src/exporter.js';
import { loadConfig } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { EMPTY_VIEW } from '../src/store/processes.js';
import { fakeProc } from './helpers/fake-proc.js';
import { FIXTURES, tempDir } from './helpers/run.js';

describe("a report's read", () => {
  const home = join(FIXTURES, 'home');

  /** The agents a `claude` process would be, running where no session file is (the process table sees it). */
  const table = () => {
    const proc = fakeProc();
    proc.add(1, { argv: ['/sbin/init'] });
    proc.add(4100, { argv: ['/usr/local/bin/claude'], comm: 'claude', cwd: '/src/elsewhere' });
    return proc.root;
  };

  it('reads only the collector of the harness asked for, and never the process table', async () => {
    const env = { HOME: home, CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: table() };
    const config = loadConfig(['--state-dir', join(tempDir(), 'none'), '--ledger.days', '100000'], env);
    const all = new Exporter(config, createLogger('error'), { env, home, privateState: true });
    const codex = new Exporter(config, createLogger('error'), {
      env,
      home,
      privateState: true,
      reportRead: { harness: 'codex' },
    });
    try {
      await all.scanAll();
      await codex.readUsage();
      // What a report of Codex sums is read all the same: its sessions, as the whole read has them.
      const sessionsOf = (a: Exporter) =>
        [...a.store.sessions.values()].filter((s) => s.harness === 'codex').map((s) => [s.id, s.tokens]);
      expect(sessionsOf(codex).length).toBeGreaterThan(0);
      expect(sessionsOf(codex)).toEqual(sessionsOf(all));
      expect([...codex.collectors.keys()]).toEqual(['codex']);
      expect(new Set([...codex.store.sessions.values()].map((s) => s.harness))).toEqual(new Set(['codex']));
      // The whole read saw the process; the report's read never looked.
      expect(all.store.processes.unowned.length).toBeGreaterThan(0);
      expect(codex.store.processes).toBe(EMPTY_VIEW);
    } finally {
      await all.stop();
      await codex.stop();
    }
  });
});
