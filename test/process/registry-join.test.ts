// A Claude Code process rewrites its registry file (`~/.claude/sessions/<pid>.json`) when it asks
// for a permission: while following, that is joined at once (the watcher sees the rewrite), not at
// the next periodic read of the process table. The statusline command's file, rewritten after a
// message, is read at once too, not at the next sample. Neither periodic read runs here: the
// exporter's clock is never set.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { recordStatus } from '../../src/state/statusline.js';
import { fakeProc } from '../helpers/fake-proc.js';
import { tempDir, until } from '../helpers/run.js';

const SID = 'a1b2c3d4-0000-4000-8000-000000000001';
const PID = 4000;
const START = 1000;
const CWD = '/home/dev/src/demo-app';

beforeEach(() => {
  vi.spyOn(Clock.prototype, 'schedule').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('a registry or status file rewritten while following', () => {
  it('shows the permission prompt without waiting for the periodic process scan', async () => {
    const home = tempDir();
    const transcripts = join(home, '.claude', 'projects', '-home-dev-src-demo-app');
    const sessions = join(home, '.claude', 'sessions');
    mkdirSync(transcripts, { recursive: true });
    mkdirSync(sessions, { recursive: true });
    writeFileSync(
      join(transcripts, `${SID}.jsonl`),
      `${JSON.stringify({
        type: 'user',
        uuid: 'u1',
        cwd: CWD,
        sessionId: SID,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: 'go' },
      })}\n`,
    );
    const register = (status: object) =>
      writeFileSync(
        join(sessions, `${PID}.json`),
        JSON.stringify({ pid: PID, sessionId: SID, cwd: CWD, procStart: String(START), ...status }),
      );
    register({ status: 'busy' });
    const proc = fakeProc();
    proc.add(PID, { argv: ['/home/dev/.local/bin/claude'], cwd: CWD, startTicks: START });
    const env = { HOME: home, CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root };
    const agent = new Exporter(
      loadConfig(['--state-dir', tempDir(), '--rescan-seconds', '3600'], env),
      createLogger('error'),
      { env, home },
    );
    const status = () => agent.sessions().map((l) => `${l.status.status}/${l.status.reason}`)[0];
    try {
      await agent.follow();
      expect(status()).toBe('working/process-busy');
      register({ status: 'waiting', waitingFor: 'permission prompt' });
      await until(async () => (status() === 'asking/approval' ? true : undefined), 10_000, 'the permission prompt');
    } finally {
      await agent.stop();
    }
  });

  it('reads the usage limits the statusline command recorded as it records them', async () => {
    const home = tempDir();
    const state = tempDir();
    const env = { HOME: home, CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false' };
    const agent = new Exporter(
      loadConfig(['--state-dir', state, '--rescan-seconds', '3600'], env),
      createLogger('error'),
      { env, home },
    );
    const fiveHour = () => agent.store.usageLimits.get('limit:claude-code/5h')?.usedRatio;
    try {
      await agent.follow();
      expect(fiveHour()).toBeUndefined();
      recordStatus(state, [{ window: '5h', usedRatio: 0.42 }], undefined);
      await until(async () => fiveHour(), 10_000, 'the 5h window');
      expect(fiveHour()).toBe(0.42);
    } finally {
      await agent.stop();
    }
  });
});
