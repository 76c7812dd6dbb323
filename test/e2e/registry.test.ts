// A Claude Code process (a sleeping Node process named `claude`) rewrites its registry file twice in
// quick succession, as when a permission is asked and granted at once: the real binary, following
// with its process scan on, shows the last rewrite. chokidar, the watcher before, dropped a file's
// change that came within 50 ms of its last one: the first status stayed until the next rescan.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envFor, listening, ready, tempDir, until } from '../helpers/run.js';

const SID = 'b2c3d4e5-0000-4000-8000-000000000002';
const home = tempDir('cae-home-');
const project = join(tempDir('cae-src-'), 'demo-app');
const bin = tempDir('cae-bin-');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** The status/reason /metrics gives the session ('' when none). */
async function statusOf(base: string): Promise<string> {
  const line = (await (await fetch(`${base}/metrics`)).text())
    .split('\n')
    .find((l) => l.startsWith('coding_agent_session_status{') && l.includes(`session_id="${SID}"`));
  return line ? `${/status="([^"]*)"/.exec(line)![1]}/${/reason="([^"]*)"/.exec(line)![1]}` : '';
}

describe('a registry rewritten twice in a row', () => {
  it('shows the last rewrite, through the real binary', async () => {
    const transcripts = join(home, '.claude', 'projects', project.replace(/\//g, '-'));
    const sessions = join(home, '.claude', 'sessions');
    for (const d of [project, transcripts, sessions]) mkdirSync(d, { recursive: true });
    writeFileSync(
      join(transcripts, `${SID}.jsonl`),
      `${JSON.stringify({
        type: 'user',
        uuid: 'u1',
        cwd: project,
        sessionId: SID,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: 'go' },
      })}\n`,
    );
    symlinkSync(process.execPath, join(bin, 'claude'));
    writeFileSync(join(bin, 'agent.js'), 'setInterval(() => {}, 1 << 30);\n');
    const agent = spawn(join(bin, 'claude'), [join(bin, 'agent.js')], { cwd: project, stdio: 'ignore' });
    children.push(agent);
    const stat = readFileSync(`/proc/${agent.pid}/stat`, 'utf8');
    const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const register = (status: object) =>
      writeFileSync(
        join(sessions, `${agent.pid}.json`),
        JSON.stringify({ pid: agent.pid, sessionId: SID, procStart, ...status }),
      );
    register({ status: 'busy' });
    const server = listening(
      ['--listen-address', '127.0.0.1:0', '--state-dir', tempDir(), '--rescan-seconds', '3600'],
      envFor(home, { CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'true' }),
    );
    children.push(server.child);
    const base = await server.url;
    await ready(base);
    const shows = (s: string, everyMs = 20) =>
      until(async () => ((await statusOf(base)) === s ? true : undefined), 10_000, s, everyMs);
    await shows('working/process-busy');
    // Ten times: each rewrite comes within 50 ms of the change before it most times, on any machine.
    for (let i = 0; i < 10; i++) {
      register({ status: 'waiting', waitingFor: 'permission prompt' });
      await shows('asking/approval', 5);
      register({ status: 'busy' });
      await shows('working/process-busy');
    }
    expect(await statusOf(base)).toBe('working/process-busy');
  });
});
