// Which words of the command line are the command, a flag's value, or refused: a value is never
// taken for the command, nor the command for a value.

import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';

describe('parseArgs', () => {
  it.each([
    [['--watch', 'false', 'once'], 'once', ['--watch', 'false']],
    [['--watch', 'once'], 'once', ['--watch']],
    [['--rescan-seconds', '-5', 'sessions'], 'sessions', ['--rescan-seconds', '-5']],
    [['--state-dir=/x', 'top'], 'top', ['--state-dir=/x']],
    // The missing value is loadConfig's to report, with the key it belongs to.
    [['--listen-address', '--state-dir', '/x'], 'serve', ['--listen-address', '--state-dir', '/x']],
  ])('%j is %s with the flags %j', (argv, command, rest) => {
    const parsed = parseArgs(argv);
    expect(parsed.command).toBe(command);
    expect(parsed.rest).toEqual(rest);
  });

  it('takes its own flags anywhere, their values included', () => {
    expect(parseArgs(['--since', '7d', '--json', 'sessions', '--config', 'c.json'])).toMatchObject({ command: 'sessions', since: 604800, json: true, configFile: 'c.json', rest: [] });
    expect(parseArgs(['once', '--version']).version).toBe(true);
    expect(parseArgs(['help', 'top']).topic).toBe('top');
  });

  it.each([
    [['--config'], '--config: a value is missing'],
    [['top', '--url', '--json'], '--url: a value is missing'],
    [['--json=yes'], '--json takes no value'],
    [['-x'], 'unknown flag -x'],
    [['--colector.codex'], 'unknown flag --colector.codex (did you mean --collector.codex?)'],
    [['help', 'once', 'top'], 'unexpected argument "top": help takes no more words (see coding-agent-exporter help help)'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });
});
