// Stopping while a change waits for its read (a burst's read is put off to the end of its window):
// the read is dropped, not run against a state database already closed.

import { appendFileSync, mkdirSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Exporter } from '../src/exporter.js';
import { loadConfig } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { tempDir } from './helpers/run.js';

const line = (uuid: string) =>
  `${JSON.stringify({ type: 'user', uuid, cwd: '/src/app', sessionId: 's1', timestamp: new Date().toISOString(), message: { role: 'user', content: 'go' } })}\n`;

describe('stopping', () => {
  it('drops a read still waiting for its turn, rather than reading into the closed state database', async () => {
    const home = tempDir();
    const transcripts = join(home, '.claude', 'projects', '-src-app');
    mkdirSync(transcripts, { recursive: true });
    const transcript = join(transcripts, 's1.jsonl');
    writeFileSync(transcript, line('u1'));
    const logged: string[] = [];
    const env = { HOME: home, CODING_AGENT_EXPORTER_PROCESSES_ENABLED: 'false' };
    const agent = new Exporter(
      loadConfig(['--state-dir', tempDir(), '--rescan-seconds', '3600'], env),
      createLogger('warn', (l) => logged.push(l)),
      { env, home },
    );
    await agent.follow();
    // Watching the folder after the exporter does, this hears of the change just after it: the
    // exporter's read is then set for the next turn of the event loop, and it stops before that.
    const stopped = new Promise<void>((resolve) => {
      const w = watch(transcripts, () => {
        w.close();
        void agent.stop().then(resolve);
      });
    });
    appendFileSync(transcript, line('u2'));
    await stopped;
    await new Promise((r) => setTimeout(r, 0));
    await Promise.all([...agent.collectors.values()].map((c) => c.idle()));
    expect(logged.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });
});
