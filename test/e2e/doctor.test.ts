// `doctor` on a fixture home: per harness, where it looked and how many session files its listing
// found; what could not be listed; the Node and SQLite that run; the process table and the hooks.

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, FIXTURES, MAIN, run, tempDir } from '../helpers/run.js';
import { engine } from '../../src/files/sqlite.js';

interface Root {
  path: string;
  state: string;
  files?: number;
  errors?: Record<string, number>;
}
interface Harness {
  harness: string;
  enabled: boolean;
  configured: boolean;
  files: number;
  roots: Root[];
}

function home(): string {
  const dir = tempDir();
  cpSync(join(FIXTURES, 'home'), dir, { recursive: true });
  return dir;
}

describe('doctor', () => {
  const dir = home();
  const state = tempDir();
  // A hook has reported: the spool's last write is its last event.
  writeFileSync(join(state, 'hooks.jsonl'), '');
  const lastEvent = new Date('2026-11-30T02:20:00Z');
  utimesSync(join(state, 'hooks.jsonl'), lastEvent, lastEvent);
  const args = ['doctor', '--state-dir', state, '--collector.qwen-code=false'];
  const json = run([...args, '--json'], envFor(dir));
  const report = JSON.parse(json.stdout) as {
    node: string;
    sqlite: Record<string, string>;
    processes: Record<string, unknown>;
    hooks: Record<string, unknown>;
    stateDir: string;
    stateDb: boolean;
    harnesses: Harness[];
  };
  const of = (h: string) => report.harnesses.find((x) => x.harness === h)!;

  it("counts the session files each harness's listing finds, per root", () => {
    expect(json.status).toBe(0);
    expect(json.stderr).toBe('');
    expect(Object.fromEntries(report.harnesses.filter((h) => h.files > 0).map((h) => [h.harness, h.files]))).toEqual({
      'claude-code': 6,
      codex: 3,
      'gemini-cli': 3,
      'copilot-cli': 1,
      opencode: 1,
      kilo: 1,
    });
    expect(of('claude-code').roots).toEqual([
      { path: join(dir, '.claude'), state: 'present', files: 6 },
      { path: join(dir, '.config', 'claude'), state: 'missing' },
    ]);
    expect(of('qwen-code')).toMatchObject({
      enabled: false,
      files: 0,
      roots: [{ path: join(dir, '.qwen'), state: 'present' }],
    });
    expect(of('roo-code').roots).toContainEqual({
      path: join(
        dir,
        'Library',
        'Application Support',
        'Cursor',
        'User',
        'globalStorage',
        'rooveterinaryinc.roo-cline',
        'tasks',
      ),
      state: 'missing',
    });
  });

  it('says which Node and SQLite run, and what of the state, processes and hooks is in use', () => {
    expect(report.node).toBe(process.version);
    // The engine this Node runs (the test's own choice of it is the binary's: Node's where it has one).
    expect(report.sqlite).toMatchObject({
      engine,
      engineVersion: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      sqlite: expect.stringMatching(/^3\.\d+\.\d+$/),
    });
    expect(report.stateDir).toBe(state);
    expect(report.stateDb).toBe(false);
    expect(report.processes).toEqual({ enabled: false, table: 'none' });
    expect(report.hooks).toEqual({
      spool: join(state, 'hooks.jsonl'),
      present: true,
      lastEventAt: lastEvent.toISOString(),
    });
  });

  it("prints the same as text: roots, counts, and no session file's path", () => {
    const text = run(args, envFor(dir));
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^coding-agent-exporter \d+\.\d+\.\d+\n/);
    expect(text.stdout).toContain(
      `sqlite      ${engine} ${report.sqlite.engineVersion} (SQLite ${report.sqlite.sqlite})`,
    );
    expect(text.stdout).toContain('processes   off (processes.enabled is false)');
    expect(text.stdout).toContain(
      `hooks       in use: ${join(state, 'hooks.jsonl')}, last event ${lastEvent.toISOString()}`,
    );
    expect(text.stdout).toMatch(
      new RegExp(
        `^claude-code: 6 files\\n  ${join(dir, '.claude')} +6 files\\n  not there: ${join(dir, '.config', 'claude')}$`,
        'm',
      ),
    );
    expect(text.stdout).toContain(`codex: 3 files\n  ${join(dir, '.codex')}`);
    expect(text.stdout).toContain(`cursor-agent: not found (looked in ${join(dir, '.cursor')})`);
    expect(text.stdout).toContain('roo-code: not found (looked in 12 roots; doctor --json lists them)');
    expect(text.stdout).toMatch(/^qwen-code: disabled$/m);
    expect(text.stdout).not.toContain('.jsonl\n');
    expect(text.stdout).not.toContain('projects/');
  });

  it('writes nothing into the state folder', () => {
    expect(spawnSync('ls', ['-A', state], { encoding: 'utf8' }).stdout).toBe('hooks.jsonl\n');
  });
});

// Root reads through `chmod 000`: as in unreadable.test.ts, the binary runs without the two
// capabilities that let it.
const DROP = ['--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search'];
const canDrop = spawnSync('setpriv', [...DROP, 'true']).status === 0;

describe.skipIf(!canDrop)('doctor where a folder cannot be read', () => {
  it('names the root and the error, and counts the folders under a root that could not be listed, with no path below the root', () => {
    const dir = home();
    chmodSync(join(dir, '.codex'), 0);
    mkdirSync(join(dir, '.claude', 'projects', '-home-dev-src-secret'));
    chmodSync(join(dir, '.claude', 'projects', '-home-dev-src-secret'), 0);
    const r = spawnSync('setpriv', [...DROP, process.execPath, MAIN, 'doctor', '--json', '--state-dir', tempDir()], {
      env: envFor(dir),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { harnesses: Harness[] };
    const of = (h: string) => report.harnesses.find((x) => x.harness === h)!;
    expect(of('codex').roots).toEqual([{ path: join(dir, '.codex'), state: 'unreadable', errors: { EACCES: 1 } }]);
    expect(of('claude-code').roots[0]).toEqual({
      path: join(dir, '.claude'),
      state: 'present',
      files: 6,
      errors: { EACCES: 1 },
    });
    expect(r.stdout).not.toContain('secret');
    const text = spawnSync('setpriv', [...DROP, process.execPath, MAIN, 'doctor', '--state-dir', tempDir()], {
      env: envFor(dir),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(text.stdout).toMatch(
      new RegExp(`^codex: 0 files, a root cannot be read\\n  ${join(dir, '.codex')} +cannot be read: EACCES$`, 'm'),
    );
    expect(text.stdout).toMatch(
      new RegExp(`^  ${join(dir, '.claude')} +6 files; folders under it that cannot be read: EACCES$`, 'm'),
    );
  });
});
