// Bad configuration stops start-up with a message that names the key; the example is valid.

import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { envFor, run, tempDir } from '../helpers/run.js';

const home = tempDir();

function withFile(content: unknown): string {
  const f = join(tempDir(), 'config.json');
  writeFileSync(f, JSON.stringify(content));
  return f;
}

describe('configuration', () => {
  it('accepts config.example.json, which documents every key', () => {
    const c = loadConfig([], { HOME: '/home/u' }, resolve(__dirname, '../../config.example.json'));
    expect(c.stateDir).toBe('/home/u/.local/state/coding-agent-exporter');
    expect(c.collectors['claude-code']?.enabled).toBe(true);
  });

  it('lets flags win over environment over file', () => {
    const f = withFile({ listenAddress: '127.0.0.1:1111', sessions: { perSessionMax: 3 } });
    const c = loadConfig(
      ['--listen-address', '127.0.0.1:3333'],
      { CODING_AGENT_EXPORTER_LISTEN_ADDRESS: '127.0.0.1:2222', CODING_AGENT_EXPORTER_SESSIONS_PER_SESSION_MAX: '7' },
      f,
    );
    expect(c.listenAddress).toBe('127.0.0.1:3333');
    expect(c.sessions.perSessionMax).toBe(7);
  });

  it("takes exporter-toolkit's --web.listen-address as --listen-address", () => {
    expect(loadConfig(['--web.listen-address', '127.0.0.1:4444'], {}).listenAddress).toBe('127.0.0.1:4444');
    expect(loadConfig(['--web.listen-address=:5555'], {}).listenAddress).toBe(':5555');
    expect(() => loadConfig(['--web.listen-address'], {})).toThrow(/--web\.listen-address: a value is missing/);
  });

  it('reads each format from variables and flags: lists split at commas, true/false words, whole numbers', () => {
    const c = loadConfig(['--watch', 'false', '--processes=false', '--collector.codex'], {
      CODING_AGENT_EXPORTER_CODEX_ROOTS: '/a,/b',
      CODING_AGENT_EXPORTER_PROJECT_MAX: '7',
      CODING_AGENT_EXPORTER_CLAUDE_CODE_ENABLED: 'false',
      CODING_AGENT_EXPORTER_LOG_LEVEL: 'debug',
    });
    expect([c.watch, c.processes.enabled, c.collectors.codex?.enabled, c.collectors['claude-code']?.enabled]).toEqual([
      false,
      false,
      true,
      false,
    ]);
    expect([c.collectors.codex?.roots, c.project.max, c.logLevel]).toEqual([['/a', '/b'], 7, 'debug']);
    // A file's number written as text is read as a variable's would be; the last of a repeated flag wins.
    expect(
      loadConfig(
        ['--rescan-seconds', '5', '--rescan-seconds=6'],
        {},
        withFile({ rescanSeconds: '9', ledger: { days: 3 } }),
      ),
    ).toMatchObject({ rescanSeconds: 6, ledger: { days: 3 } });
  });

  it("refuses what is not a whole number, a key that is not the schema's own, and names every bad key at once", () => {
    expect(() => loadConfig([], { CODING_AGENT_EXPORTER_PROJECT_MAX: '7abc' })).toThrow(
      /project\.max: must be a whole number, 0 or more: value was "7abc"/,
    );
    expect(() => loadConfig([], {}, withFile(JSON.parse('{"__proto__": {"watch": false}}')))).toThrow(
      /__proto__: not a configuration key/,
    );
    expect(() => loadConfig([], {}, withFile({ toString: 1 }))).toThrow(/toString: not a configuration key/);
    expect(() => loadConfig([], {}, withFile({ web: { allowedHosts: [5] }, model: [], tool: { max: 1.5 } }))).toThrow(
      /model: must be an object.*; web\.allowedHosts: must be a list of strings.*; tool\.max: must be a whole number/,
    );
  });

  it.each([
    [['once', '--config', withFile({ sesions: {} })], /sesions/],
    [['once', '--config', withFile({ project: { mode: 'folder' } })], /project\.mode/],
    [['once', '--config', withFile({ collectors: { codex: { enabled: 'yes' } } })], /collectors\.codex\.enabled/],
    [['once', '--config', withFile({ collectors: { 'gemini-cli-x': {} } })], /gemini-cli-x/],
    [['once', '--listen-address', 'localhost'], /listenAddress/],
    [['once', '--listen-adress', '127.0.0.1:1'], /--listen-adress/],
    [['once', '--rescan-seconds', '-5'], /rescanSeconds/],
    [['bogus'], /unknown command "bogus"/],
    [
      ['once', '--pricing-overrides', withFile({ 'my-model': { input_mtok: 'cheap' } })],
      /pricing\.overridesFile .*my-model\.input_mtok/,
    ],
  ])('%j stops with a message naming the key', (args, message) => {
    const r = run([...args, '--state-dir', tempDir()], envFor(home));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('stops with a message naming the address when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    const r = run(['--listen-address', `127.0.0.1:${port}`, '--state-dir', tempDir()], envFor(home));
    taken.close();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`listenAddress 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
  });

  it('reports a bad environment variable by its key', () => {
    const r = run(['once', '--state-dir', tempDir()], envFor(home, { CODING_AGENT_EXPORTER_PROJECT_MAX: 'many' }));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/project\.max/);
  });

  it.each(['serve', 'once', 'sessions', 'demo'])('%s --help explains the command', (cmd) => {
    const r = run([cmd, '--help'], envFor(home));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Usage: coding-agent-exporter.*${cmd === 'serve' ? '' : cmd}`));
  });
});
