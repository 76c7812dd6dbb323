// A Claude Code process rewrites its registry file (`~/.claude/sessions/<pid>.json`) when it asks
// for a permission: while following, that is joined at once (the watcher sees the rewrite), not at
// the next periodic read of the process table. The periodic read never runs here (its timer is faked).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../src/agent.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { fakeProc } from '../helpers/fake-proc.js';
import { tempDir, until } from '../helpers/run.js';

const SID = 'a1b2c3d4-0000-4000-8000-000000000001';
const PID = 4000;
const START = 1000;
const CWD = '/home/dev/src/demo-app';

afterEach(() => {
  vi.useRealTimers();
});

describe('a registry rewritten while following', () => {
  it('shows the permission prompt without waiting for the periodic process scan', async () => {
    const home = tempDir();
    const transcripts = join(home, '.claude', 'projects', '-home-dev-src-demo-app');
    const sessions = join(home, '.claude', 'sessions');
    mkdirSync(transcripts, { recursive: true });
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(transcripts, `${SID}.jsonl`), `${JSON.stringify({ type: 'user', uuid: 'u1', cwd: CWD, sessionId: SID, timestamp: new Date().toISOString(),
      message: { role: 'user', content: 'go' } })}\n`);
    const register = (status: object) => writeFileSync(join(sessions, `${PID}.json`), JSON.stringify({ pid: PID, sessionId: SID, cwd: CWD, procStart: String(START), ...status }));
    register({ status: 'busy' });
    const proc = fakeProc();
    proc.add(PID, { argv: ['/home/dev/.local/bin/claude'], cwd: CWD, startTicks: START });
    const env = { HOME: home, CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root };
    const agent = new Agent(loadConfig(['--state-dir', tempDir(), '--rescan-seconds', '3600'], env), createLogger('error'), { env, home });
    vi.useFakeTimers({ toFake: ['setInterval'] });
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
});
