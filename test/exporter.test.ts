// The exporter's lifecycle, for a report's own read (`report` with no state database): the usage
// of the harness asked for, and nothing else.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReadThreads } from '../src/collectors/read-threads.js';
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

  it('hands threads started before it every backlog, however small, and counts what the main thread alone counts', async () => {
    const env = { HOME: home };
    const config = loadConfig(['--state-dir', join(tempDir(), 'none'), '--ledger.days', '100000'], env);
    const lines: string[] = [];
    const threads = new ReadThreads(1);
    threads.start();
    const onThreads = new Exporter(
      config,
      createLogger('info', (l) => lines.push(l)),
      {
        env,
        home,
        privateState: true,
        reportRead: { threads },
      },
    );
    const alone = new Exporter({ ...config, readThreads: 0 }, createLogger('error'), {
      env,
      home,
      privateState: true,
      reportRead: {},
    });
    try {
      await onThreads.readUsage();
      await alone.readUsage();
      // The fixtures' histories are far below the 256 MB a first read's threads wait for.
      const handed = lines.map((l) => JSON.parse(l) as { msg: string; collector?: string });
      expect(handed.filter((l) => l.msg === 'reading a backlog on threads').map((l) => l.collector)).toEqual(
        expect.arrayContaining(['claude-code', 'codex']),
      );
      const sessions = (a: Exporter) =>
        [...a.store.sessions.values()].map((s) => [s.harness, s.id, s.tokens, s.costUsd]).sort();
      expect(sessions(onThreads).length).toBeGreaterThan(0);
      expect(sessions(onThreads)).toEqual(sessions(alone));
      onThreads.store.commit();
      alone.store.commit();
      expect(onThreads.store.ledgerRows(0, Number.MAX_SAFE_INTEGER)).toEqual(
        alone.store.ledgerRows(0, Number.MAX_SAFE_INTEGER),
      );
    } finally {
      await onThreads.stop();
      await alone.stop();
    }
  });
});
