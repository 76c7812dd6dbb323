// How soon a status shows in /metrics, through the real binary with the process scan on: a Claude
// Code agent (a sleeping Node process named `claude`, registered in `~/.claude/sessions` as Claude
// Code does) in an open turn is asked for a permission (its registry file rewritten), then asks a
// question (a line appended to its transcript), then is killed. Each is timed from the write or the
// process's death until /metrics shows it (polled every 10 ms), with a new session and process per trial.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep, startExporter } from './exporter.js';

export interface StatusLatencies {
  permission: number[];
  question: number[];
  kill: number[];
}

const WAIT_MS = 10_000;

/** The status and reason /metrics gives a session, or '' when it has none (idle). */
async function statusOf(url: string, session: string): Promise<string> {
  const text = await (await fetch(url)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('coding_agent_session_status{') && l.includes(`session_id="${session}"`));
  const label = (name: string) => (line ? new RegExp(`${name}="([^"]*)"`).exec(line)?.[1] : undefined);
  return line ? `${label('status')}/${label('reason')}` : '';
}

/** Milliseconds from `since` until the session's status passes `test`; Infinity past WAIT_MS. */
async function until(
  url: string,
  session: string,
  test: (s: string) => boolean,
  since = performance.now(),
): Promise<number> {
  while (performance.now() - since < WAIT_MS) {
    if (test(await statusOf(url, session))) return performance.now() - since;
    await sleep(10);
  }
  return Infinity;
}

export async function statusLatencies(work: string, trials: number): Promise<StatusLatencies> {
  const home = join(work, 'status-home');
  const project = join(work, 'status-project');
  const bin = join(work, 'status-bin');
  const transcripts = join(home, '.claude', 'projects', project.replace(/\//g, '-'));
  const registry = join(home, '.claude', 'sessions');
  for (const d of [project, bin, transcripts, registry]) mkdirSync(d, { recursive: true });
  symlinkSync(process.execPath, join(bin, 'claude'));
  writeFileSync(join(bin, 'agent.js'), 'setInterval(() => {}, 1 << 30);\n');
  const exporter = await startExporter(join(work, 'status-state'), home);
  const agents: ChildProcess[] = [];
  const out: StatusLatencies = { permission: [], question: [], kill: [] };
  try {
    for (let i = 0; i < trials; i++) {
      const session = randomUUID();
      const transcript = join(transcripts, `${session}.jsonl`);
      const record = (o: object) =>
        `${JSON.stringify({ cwd: project, sessionId: session, timestamp: new Date().toISOString(), ...o })}\n`;
      writeFileSync(
        transcript,
        record({ type: 'user', uuid: `${session}-u`, message: { role: 'user', content: 'go' } }),
      );
      const agent = spawn(join(bin, 'claude'), [join(bin, 'agent.js')], { cwd: project, stdio: 'ignore' });
      agents.push(agent);
      const stat = readFileSync(`/proc/${agent.pid}/stat`, 'utf8');
      const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      const register = (status: object) =>
        writeFileSync(
          join(registry, `${agent.pid}.json`),
          JSON.stringify({ pid: agent.pid, sessionId: session, procStart, ...status }),
        );
      register({ status: 'busy' });
      const working = (s: string) => s.startsWith('working/');
      if (!Number.isFinite(await until(exporter.url, session, working)))
        throw new Error(`session ${session} never showed working`);
      // Each action at a random moment of the exporter's one-second process scan, as a person's fall:
      // right after a status showed, a scan has just run, and every wait would be a whole period.
      const anyMoment = () => sleep(Math.random() * 1000);
      await anyMoment();
      register({ status: 'waiting', waitingFor: 'permission prompt' });
      out.permission.push(await until(exporter.url, session, (s) => s === 'asking/approval'));
      register({ status: 'busy' });
      await until(exporter.url, session, working);
      await anyMoment();
      appendFileSync(
        transcript,
        record({
          type: 'assistant',
          uuid: `${session}-a`,
          requestId: `${session}-r`,
          message: {
            id: `${session}-m`,
            model: 'claude-sonnet-4-5',
            content: [{ type: 'tool_use', id: `${session}-t`, name: 'AskUserQuestion', input: {} }],
            stop_reason: 'tool_use',
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        }),
      );
      out.question.push(await until(exporter.url, session, (s) => s === 'asking/question'));
      await anyMoment();
      const died = new Promise<number>((r) => agent.once('exit', () => r(performance.now())));
      agent.kill('SIGKILL');
      out.kill.push(await until(exporter.url, session, (s) => !s.startsWith('asking/') && !working(s), await died));
    }
    return out;
  } finally {
    for (const a of agents) a.kill('SIGKILL');
    await exporter.stop();
  }
}
