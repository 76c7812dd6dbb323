// Aider keeps no record of its sessions but a history file at the top of each repository it runs
// in, found by searching the home folder at a rescan (which backs off while nothing changes). An
// Aider process the process scan finds with no session of its own has its history looked for
// where it works, at any depth, and read and watched at once. The rescan is an hour away here.

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Exporter } from '../../src/exporter.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { fakeProc } from '../helpers/fake-proc.js';
import { tempDir, until } from '../helpers/run.js';

const answer = (n: number) => `#### go\n\n> Tokens: ${n} sent, 1 received.\n\nDone.\n`;

describe('an Aider process with no session of its own', () => {
  it('has its history read where it works, deeper than the search goes, and followed as it grows', async () => {
    const home = tempDir();
    // Six levels below the home folder: the search stops at four.
    const repo = join(home, 'work', 'clients', 'acme', 'services', 'billing', 'api');
    mkdirSync(join(repo, 'src'), { recursive: true });
    const history = join(repo, '.aider.chat.history.md');
    writeFileSync(
      history,
      `# aider chat started at 2026-11-30 10:00:00\n\n> Main model: gpt-5 with diff edit format\n\n${answer(100)}`,
    );
    // A Claude Code transcript, whose change has the process table read within a second.
    const transcripts = join(home, '.claude', 'projects', '-src-app');
    mkdirSync(transcripts, { recursive: true });
    const transcript = join(transcripts, 'a1b2c3d4-0000-4000-8000-000000000001.jsonl');
    writeFileSync(transcript, '');
    const proc = fakeProc();
    proc.add(1, { argv: ['/sbin/init'] });
    const env = { HOME: home, CODING_AGENT_EXPORTER_PROCESSES_PROC_ROOT: proc.root };
    const agent = new Exporter(
      loadConfig(['--state-dir', tempDir(), '--rescan-seconds', '3600'], env),
      createLogger('error'),
      { env, home },
    );
    const sent = () =>
      [...agent.store.counters.values()]
        .filter((c) => c.metric === 'tokens' && c.labels.harness === 'aider' && c.labels.token_type === 'input')
        .reduce((a, c) => a + c.value, 0);
    try {
      await agent.follow();
      expect(sent()).toBe(0);
      proc.add(4100, {
        argv: ['/usr/bin/python3', '/home/dev/.local/bin/aider'],
        comm: 'aider',
        cwd: join(repo, 'src'),
      });
      appendFileSync(transcript, '{}\n');
      await until(async (saw) => (saw(sent()) === 100 ? true : undefined), 10_000, 'the history read');
      appendFileSync(history, answer(50));
      await until(async (saw) => (saw(sent()) === 150 ? true : undefined), 10_000, 'the appended answer');
    } finally {
      await agent.stop();
    }
  });
});
