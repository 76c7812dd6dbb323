// Which words of the command line are the command, a flag's value, or refused: a value is never
// taken for the command, nor the command for a value.

import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadConfig } from '../../src/config/load.js';

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
    expect(parseArgs(['--since', '7d', '--json', 'sessions', '--config', 'c.json'])).toMatchObject({
      command: 'sessions',
      since: 604800,
      json: true,
      configFile: 'c.json',
      rest: [],
    });
    expect(parseArgs(['once', '--version']).version).toBe(true);
    expect(parseArgs(['help', 'top']).topic).toBe('top');
  });

  it.each([
    [['--config'], '--config: a value is missing'],
    [['top', '--url', '--json'], '--url: a value is missing'],
    [['--json=yes'], '--json takes no value'],
    [['-x'], 'unknown flag -x'],
    [['--colector.codex'], 'unknown flag --colector.codex (did you mean --collector.codex?)'],
    [
      ['help', 'once', 'top'],
      'unexpected argument "top": help takes no more words (see coding-agent-exporter help help)',
    ],
    // A flag of another command is refused, not ignored.
    [['serve', '--json'], '--json: only the sessions, report and doctor commands take it'],
    [['once', '--json'], '--json: only the sessions, report and doctor commands take it'],
    [['--url', 'http://h:1', 'sessions'], '--url: only the top command takes it'],
    [['top', '--reset-state'], '--reset-state: only the serve, once and sessions commands take it'],
    [['once', '--since', '7d'], '--since: only the sessions, top and report commands take it'],
    // The start of one flag alone, not the flag two edits away (--collector.cline).
    [['--collector.claude'], 'unknown flag --collector.claude (did you mean --collector.claude-code?)'],
    [
      ['sessions', '--since', 'yesterday'],
      '--since: expected a duration such as 30m, 12h or 7d, or a day as YYYY-MM-DD or YYYYMMDD, got "yesterday"',
    ],
    [
      ['top', '--url', 'http://h:1', '--since', '2h'],
      "--since: top --url shows the running exporter's activity window (its sessions.activeWindowSeconds)",
    ],
    [
      ['report', '--since', '3x'],
      '--since: expected a duration such as 30m, 12h or 7d, or a day as YYYY-MM-DD or YYYYMMDD, got "3x"',
    ],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it('takes the flags of every command, and --help or the version whatever else is there', () => {
    expect(parseArgs(['report', '--json', '--since', '2026-01-01']).json).toBe(true);
    expect(parseArgs(['top', '--url', 'http://h:1'])).toMatchObject({ url: 'http://h:1' });
    expect(parseArgs(['top', '--since', '2h'])).toMatchObject({ since: 7200 });
    expect(parseArgs(['serve', '--json', '--help']).help).toBe(true);
  });

  it('takes --since as a duration or a day in every command that has it', () => {
    const now = new Date(2026, 11, 7, 10, 30).getTime(); // 7 December 2026, 10:30 local time
    expect(parseArgs(['sessions', '--since', '2026-12-06'], now).since).toBe((24 + 10.5) * 3600);
    expect(parseArgs(['top', '--since', '20261207'], now).since).toBe(10.5 * 3600);
    expect(parseArgs(['sessions', '--since', '3d'], now).since).toBe(3 * 86400);
    expect(() => parseArgs(['sessions', '--since', '2026-12-08'], now)).toThrow('--since 2026-12-08 is in the future');
    // A report's --since is its first day, a day to come too (no rows yet), never an activity window.
    const report = parseArgs(['report', 'daily', '--since', '2026-12-08'], now);
    expect([report.report?.since, report.since]).toEqual(['2026-12-08', undefined]);
    const utcNoon = Date.parse('2026-12-07T12:00:00Z');
    expect(parseArgs(['report', '--since', '7d', '-z', 'UTC'], utcNoon).report?.since).toBe('2026-11-30');
    expect(parseArgs(['report', '--since', '12h', '-z', 'Pacific/Kiritimati'], utcNoon).report?.since).toBe(
      '2026-12-07',
    );
    expect(parseArgs(['report', '--since', '2026-12-01'], utcNoon).report?.since).toBe('2026-12-01');
  });

  it("takes ccusage's command lines for report unchanged", () => {
    const argv = [
      'report',
      'claude',
      'daily',
      '-s',
      '20260301',
      '-u',
      '20260302',
      '-j',
      '-b',
      '-z',
      'local',
      '-o',
      'desc',
      '-O',
      '--compact',
    ];
    expect(parseArgs(argv)).toMatchObject({
      json: true,
      report: {
        kind: 'daily',
        harness: 'claude-code',
        since: '2026-03-01',
        until: '2026-03-02',
        breakdown: 'model',
        order: 'desc',
        compact: true,
      },
    });
    expect(parseArgs(argv).report?.timeZone).toBeUndefined();
    expect(parseArgs(['report', 'codex', 'monthly', '--breakdown', 'project']).report).toMatchObject({
      kind: 'monthly',
      harness: 'codex',
      breakdown: 'project',
    });
    expect(parseArgs(['report', 'claude', 'weekly', '-w', 'monday']).rest).toEqual(['--start-of-week', 'monday']);
    expect(parseArgs(['report', '--last', '3']).report).toMatchObject({ kind: 'daily', last: 3 });
    expect(() => parseArgs(['report', '--last', '3', '-s', '20260301'])).toThrow('--last: not with --since or --until');
    expect(() => parseArgs(['report', 'session', '--last', '3'])).toThrow('--last: only for daily, weekly and monthly');
    expect(() => parseArgs(['report', '-o', 'up'])).toThrow('--order: expected asc or desc, got "up"');
    expect(() => parseArgs(['report', '--jsno'])).toThrow('(did you mean --json?)');
    expect(() => parseArgs(['once', '-j'])).toThrow('--json: only the sessions, report and doctor commands take it');
  });

  it("takes ccusage's --start-of-week (-w) with any of its seven days, as report.startOfWeek", () => {
    for (const day of ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']) {
      const { rest } = parseArgs(['report', 'weekly', '-w', day]);
      expect(loadConfig(rest, {}).report.startOfWeek).toBe(day);
    }
    expect(loadConfig([], { CODING_AGENT_EXPORTER_REPORT_START_OF_WEEK: 'friday' }).report.startOfWeek).toBe('friday');
    expect(() => loadConfig([], { CODING_AGENT_EXPORTER_REPORT_START_OF_WEEK: 'someday' })).toThrow(
      /report\.startOfWeek.*must be one of "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"/,
    );
  });

  it("takes ccusage's -w, -m and -o without a value as its defaults, and refuses a word that is none of their values", () => {
    for (const argv of [
      ['report', 'weekly', '-w'],
      ['report', '-w', '-j', 'weekly'],
      ['report', '--start-of-week', '--json'],
    ])
      expect(loadConfig(parseArgs(argv).rest, {}).report.startOfWeek).toBe('sunday');
    expect(loadConfig(parseArgs(['report', '-w', 'monday', 'weekly']).rest, {}).report.startOfWeek).toBe('monday');
    expect(parseArgs(['report', 'claude', 'daily', '-m']).report).toMatchObject({
      kind: 'daily',
      harness: 'claude-code',
    });
    expect(parseArgs(['report', '-m', '-j', 'weekly'])).toMatchObject({ json: true, report: { kind: 'weekly' } });
    expect(parseArgs(['report', 'daily', '-o']).report?.order).toBe('asc');
    expect(parseArgs(['report', '-o', '--json', 'monthly']).report).toMatchObject({ kind: 'monthly', order: 'asc' });
    expect(() => parseArgs(['report', '-w', 'weekly'])).toThrow(
      '--start-of-week: expected sunday, monday, tuesday, wednesday, thursday, friday or saturday, got "weekly" (-w alone is sunday)',
    );
    expect(() => parseArgs(['report', '--start-of-week=someday'])).toThrow('--start-of-week: expected sunday,');
    expect(() => parseArgs(['report', '-m', 'weekly'])).toThrow(
      '--mode: expected auto, calculate or display, got "weekly"',
    );
    expect(() => parseArgs(['report', '-o', 'daily'])).toThrow('--order: expected asc or desc, got "daily"');
    expect(() => parseArgs(['once', '-m'])).toThrow('--mode: only the report command takes it');
  });

  it("takes ccusage's -p, -i, --color, --no-color, --single-thread and -m auto|calculate for report", () => {
    expect(parseArgs(['report', 'claude', 'daily', '-p', 'web', '-i']).report).toMatchObject({
      project: 'web',
      instances: true,
    });
    // ccusage takes -i for daily alone: its shape there; weekly and monthly split each period by project.
    expect(parseArgs(['report', '-i', '--breakdown', 'project']).report).toMatchObject({ instances: true });
    expect(parseArgs(['report', '-i']).report?.breakdown).toBeUndefined();
    expect(parseArgs(['report', 'weekly', '--instances', '--breakdown', 'project']).report).toMatchObject({
      breakdown: 'project',
    });
    expect(parseArgs(['report', 'monthly', '-i']).report?.instances).toBeUndefined();
    expect(() => parseArgs(['report', '-i', '--from', 'http://vm:8428', '--by', 'user'])).toThrow(
      '--by user: not with -i (a report splits one way; -i is by project)',
    );
    expect(() => parseArgs(['report', '-i', '-b'])).toThrow(
      '--instances: not with --breakdown model (a report splits one way; -i is --breakdown project)',
    );
    expect(() => parseArgs(['report', 'session', '-i', 'abc'])).toThrow(
      "--instances: only for daily, weekly and monthly, not session (ccusage's session -i is --id",
    );
    expect(parseArgs(['report', '--color']).report?.colour).toBe(true);
    expect(parseArgs(['report', '--color', '--no-color']).report?.colour).toBe(false);
    expect(parseArgs(['report', '--no-color', '--color']).report?.colour).toBe(true);
    expect(parseArgs(['report']).report?.colour).toBeUndefined();
    const single = parseArgs(['report', '--single-thread', '--state-dir', '/s']);
    expect(loadConfig(single.rest, {})).toMatchObject({ readThreads: 0, stateDir: '/s' });
    expect(() => parseArgs(['once', '--single-thread'])).toThrow('--single-thread: only the report command takes it');
    expect(parseArgs(['report', '-m', 'auto']).report?.kind).toBe('daily');
    expect(parseArgs(['report', 'claude', 'daily', '-m', 'calculate']).report?.harness).toBe('claude-code');
    expect(parseArgs(['report', 'codex', 'monthly', '--mode=calculate']).report?.harness).toBe('codex');
    expect(() => parseArgs(['report', '-m', 'calculate'])).toThrow(
      '--mode calculate: only for claude-code and codex, whose costs are always calculated from tokens',
    );
    expect(() => parseArgs(['report', 'claude', '-m', 'display'])).toThrow('--mode display: not offered');
    expect(() => parseArgs(['report', '-m', 'guess'])).toThrow(
      '--mode: expected auto, calculate or display, got "guess"',
    );
  });

  it.each([
    [['-d'], /^--debug: ccusage's check of the costs a file records/],
    [['--debug'], /^--debug: ccusage's check/],
    [['--debug-samples', '3'], /^--debug-samples: the samples of ccusage's --debug/],
    [['--no-offline'], /^--no-offline: report never fetches prices/],
    [['--project-aliases', 'a=b'], /^--project-aliases: set project\.aliases in the --config file/],
  ])("refuses ccusage's %j with why", (flags, message) => {
    expect(() => parseArgs(['report', 'claude', 'daily', ...flags])).toThrow(message);
  });

  it("takes a team's store for daily, weekly and monthly reports, split by any label, and refuses it elsewhere", () => {
    expect(parseArgs(['report', 'weekly', '--from', 'http://u:p@vm:8428', '--by', 'user']).report).toMatchObject({
      kind: 'weekly',
      from: 'http://u:p@vm:8428',
      by: 'user',
    });
    expect(parseArgs(['report', '--from', 'vm:8428']).report).toMatchObject({ kind: 'daily', from: 'vm:8428' });
    expect(() => parseArgs(['report', 'session', '--from', 'http://vm:8428'])).toThrow(
      '--from: only for daily, weekly and monthly, not session',
    );
    expect(() => parseArgs(['report', 'blocks', '--from', 'http://vm:8428'])).toThrow(
      '--from: only for daily, weekly and monthly, not blocks',
    );
    expect(() => parseArgs(['report', '--from', 'ftp://vm'])).toThrow(
      '--from: expected a Prometheus query API\'s http:// or https:// URL, got "ftp://vm"',
    );
    expect(() => parseArgs(['report', '--by', 'user'])).toThrow('--by: only with --from');
    expect(() => parseArgs(['report', '--from', 'http://vm:8428', '--by', 'a-b'])).toThrow(
      '--by: expected a label name',
    );
    expect(() => parseArgs(['once', '--from', 'http://vm:8428'])).toThrow('--from: only the report command takes it');
  });
});
