// The `top` screen as a function of the data: what shows first, what drops on a narrow terminal.

import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/view/records.js';
import { renderScreen, visibleSessions, type ScreenOptions } from '../../src/view/screen.js';
import type { Summary } from '../../src/view/summary.js';

const now = Date.parse('2026-12-01T12:00:00Z');
function session(id: string, status: string, reason: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    harness: 'claude-code',
    session_id: id,
    project: `project-${id}`,
    cwd: null,
    git_branch: null,
    status,
    reason,
    model: 'claude-sonnet-4-5',
    tokens: { input: 1, output: 1, cache_read: 0, cache_write: 0, reasoning: 0 },
    cost_usd: 1.5,
    context_tokens: 50_000,
    context_limit_tokens: 200_000,
    running_tool: null,
    started_at: new Date(now - 600_000).toISOString(),
    last_activity_at: new Date(now - 60_000).toISOString(),
    turn_started_at: null,
    attribution: 'transcript-only',
    process: null,
    drift: false,
    ...extra,
  };
}
const summary: Summary = {
  generated_at: new Date(now).toISOString(),
  spend_today_usd: 12.5,
  spend_week_usd: 80,
  tokens_total: 1000,
  sessions_by_status: { asking: 1, working: 1, delegating: 0, done: 0, error: 1, idle: 1 },
  spend_today: [],
  limits: [],
  spend_30d: [],
};
const sessions = [
  session('a', 'working', 'turn-open', {
    running_tool: { tool: 'Bash', kind: 'execute', started_at: new Date(now - 720_000).toISOString() },
    cost_usd: 9,
    attribution: 'registry',
    process: { pid: 42, cpu_ratio: 0.123, resident_memory_bytes: 310_000_000 },
  }),
  session('b', 'idle', 'quiet', { last_activity_at: new Date(now - 5_000).toISOString() }),
  session('c', 'asking', 'approval', { last_activity_at: new Date(now - 900_000).toISOString() }),
  session('d', 'error', 'turn-failed', { harness: 'codex', cost_usd: null }),
];
const opts: ScreenOptions = {
  width: 160,
  height: 20,
  color: false,
  now,
  sort: 'status',
  filter: '',
  showIdle: true,
  source: 'local',
};
const rows = (lines: string[]) => lines.filter((l) => /^(claude-code|codex)\s/.test(l));

describe('top screen', () => {
  it('puts sessions needing a person first, then by status, newest activity first within one', () => {
    expect(visibleSessions(sessions, opts).map((s) => s.session_id)).toEqual(['c', 'd', 'a', 'b']);
    expect(visibleSessions(sessions, { ...opts, sort: 'cost' }).map((s) => s.session_id)).toEqual(['a', 'b', 'c', 'd']);
    expect(visibleSessions(sessions, { ...opts, sort: 'activity' }).map((s) => s.session_id)).toEqual([
      'b',
      'a',
      'd',
      'c',
    ]);
    expect(visibleSessions(sessions, { ...opts, showIdle: false }).map((s) => s.session_id)).toEqual(['c', 'd', 'a']);
    expect(visibleSessions(sessions, { ...opts, filter: 'CODEX' }).map((s) => s.session_id)).toEqual(['d']);
  });

  it('shows every column on a wide terminal: context bar, cost, running tool and for how long, the live process', () => {
    const lines = renderScreen(summary, sessions, opts);
    expect(lines).toHaveLength(20);
    expect(lines[1]).toContain('spend today $12.50  this week $80.00');
    expect(lines[4]).toMatch(/TOOL\s+FOR\s+CPU\s+MEM VIA\s+LAST/);
    const working = rows(lines).find((l) => l.includes('project-a'))!;
    expect(working).toMatch(
      /working\s+turn-open\s+claude-sonnet-4-5\s+\[##\.\.\.\.\.\.\]\s+25%\s+\$9\.00 Bash\s+12m\s+12%\s+310MB registry\s+1m/,
    );
    const idle = rows(lines).find((l) => l.includes('project-b'))!;
    expect(idle).toMatch(/-\s+-\s+-\s+- transcript-only\s+5s/);
    expect(rows(lines).find((l) => l.includes('project-d'))).toContain('unpriced');
  });

  it('shows a sub-cent cost as `sessions` and the page do, and lists an agent no session file is joined to with its process', () => {
    const cheap = session('e', 'working', 'turn-open', { cost_usd: 0.0052 });
    const agent = session('f', 'working', 'cpu-busy', {
      harness: 'codex',
      session_id: null,
      model: null,
      tokens: null,
      cost_usd: null,
      context_tokens: null,
      context_limit_tokens: null,
      started_at: null,
      last_activity_at: null,
      attribution: 'process-only',
      process: { pid: 7, cpu_ratio: 0.98, resident_memory_bytes: 80_000_000 },
    });
    const lines = renderScreen({ ...summary, spend_today_usd: 0.0052, spend_week_usd: 0 }, [cheap, agent], opts);
    expect(lines[1]).toContain('spend today $0.0052  this week $0.00');
    expect(rows(lines).find((l) => l.includes('project-e'))).toMatch(/ \$0\.0052 /);
    // Nothing recorded: no cost (not `unpriced`), and it runs now.
    expect(rows(lines).find((l) => l.includes('project-f'))).toMatch(
      /working\s+cpu-busy\s+-\s+-\s+-\s+-\s+-\s+98%\s+80MB process-only\s+now$/,
    );
  });

  it('drops columns by priority on a narrow terminal and never writes past its width', () => {
    for (const width of [40, 60, 80, 100]) {
      const lines = renderScreen(summary, sessions, { ...opts, width });
      for (const l of lines) expect([...l].length).toBeLessThanOrEqual(width);
      expect(rows(lines)[0]).toMatch(/asking/);
    }
    const narrow = renderScreen(summary, sessions, { ...opts, width: 60 });
    expect(narrow[4]).not.toContain('MODEL');
    expect(narrow[4]).not.toContain('CONTEXT');
    // The process's columns go before the model's.
    const medium = renderScreen(summary, sessions, { ...opts, width: 125 });
    expect(medium[4]).toContain('MODEL');
    expect(medium[4]).not.toMatch(/CPU|MEM|VIA/);
    expect(narrow[4]).toMatch(/PROJECT.*STATUS/);
  });

  it('on a wide terminal widens each column to what it shows, not the project to fill the line', () => {
    const wide = [
      ...sessions,
      session('g', 'working', 'turn-open', {
        harness: 'antigravity-cli',
        attribution: 'registry',
        process: { pid: 9, cpu_ratio: 0.5, resident_memory_bytes: 310_500_000 },
        running_tool: {
          tool: 'mcp:github/search_code',
          kind: 'other',
          started_at: new Date(now - 60_000).toISOString(),
        },
      }),
    ];
    for (const width of [190, 200]) {
      const lines = renderScreen(summary, wide, { ...opts, width });
      const head = lines[4]!;
      // Its least (10 columns: every project here is shorter), not the 50-58 columns left over.
      expect(head.indexOf('STATUS') - head.indexOf('PROJECT')).toBe(10 + 1);
      const row = lines.find((l) => l.includes('project-g'))!;
      expect(row).toMatch(/^antigravity-cli project-g /);
      expect(row).toMatch(/ mcp:github\/search_code +1m +50% +310\.5MB registry /);
      for (const l of lines) expect([...l].length).toBeLessThanOrEqual(width);
    }
  });

  it('keeps the model longer than the running tool, the tool longer than the process', () => {
    const header = (width: number) => renderScreen(summary, sessions, { ...opts, width })[4]!;
    expect(header(120)).toMatch(/MODEL.*TOOL/);
    expect(header(120)).not.toMatch(/CPU|MEM|VIA/);
    expect(header(110)).toContain('MODEL');
    expect(header(110)).not.toContain('TOOL');
  });

  it('colours asking and error rows, and nothing at all when colour is off', () => {
    const coloured = renderScreen(summary, sessions, { ...opts, color: true });
    // eslint-disable-next-line no-control-regex -- ANSI colour codes are what is stripped
    expect(rows(coloured.map((l) => l.replace(/\x1b\[[0-9;]*m/g, '')))[0]).toContain('asking');
    expect(coloured.find((l) => l.includes('project-c'))).toContain('\x1b[1;33m');
    expect(coloured.find((l) => l.includes('project-d'))).toContain('\x1b[1;31m');
    expect(renderScreen(summary, sessions, opts).join('')).not.toContain('\x1b');
  });

  it('cuts the rows to the terminal height and says how many more there are', () => {
    const many = Array.from({ length: 30 }, (_, i) => session(`s${i}`, 'working', 'turn-open'));
    const lines = renderScreen(summary, many, { ...opts, height: 12 });
    expect(lines).toHaveLength(12);
    expect(lines[11]).toContain('(24 more)');
  });
});

describe("top's usage limits and spend history", () => {
  const at = (ms: number) => new Date(now + ms).toISOString();
  const limits: Summary['limits'] = [
    { harness: 'claude-code', window: '5h', used_ratio: 0.47, resets_at: at((2 * 60 + 13) * 60_000) },
    { harness: 'claude-code', window: '7d', used_ratio: 0.93, resets_at: at((3 * 24 + 4) * 3600_000) },
    // Reset a minute ago, after the summary was rendered: it started over.
    { harness: 'codex', window: '5h', used_ratio: 0.8, resets_at: at(-60_000) },
    { harness: 'copilot-cli', window: 'premium_interactions', used_ratio: 0.1, resets_at: null },
  ];
  const days = (costs: number[]) =>
    costs.map((cost_usd, i) => ({ date: `2026-11-${String(i + 1).padStart(2, '0')}`, cost_usd }));
  const header = (s: Partial<Summary>, o: Partial<ScreenOptions> = {}) => {
    const lines = renderScreen({ ...summary, ...s }, sessions, { ...opts, ...o });
    return lines.slice(
      0,
      lines.findIndex((l) => l.startsWith('HARNESS')),
    );
  };

  it('draws a bar per window with its share and time to reset, leaving out a window past its reset', () => {
    const lines = header({ limits }).filter((l) => /^limits |^ {7}\S/.test(l));
    const text = lines.join('\n');
    expect(lines[0]).toMatch(
      /^limits claude-code 5h\s+▓▓▓▓░░░░ {2}47% resets in 2h13m\s+claude-code 7d\s+▓▓▓▓▓▓▓░ {2}93% resets in 3d4h/,
    );
    expect(text).toMatch(/copilot-cli premium_interactions ▓░░░░░░░ {2}10%/);
    expect(text).not.toContain('codex');
    // Never a line a session's row could be taken for.
    expect(lines.every((l) => !/^(claude-code|codex|copilot-cli)\s/.test(l))).toBe(true);
    expect(header({ limits: [] }).some((l) => l.startsWith('limits'))).toBe(false);
  });

  it('fits the bars to a narrow terminal, one window a line without the bar, and never writes past its width', () => {
    for (const width of [40, 60, 80, 100]) {
      for (const l of renderScreen({ ...summary, limits, spend_30d: days([1, 2]) }, sessions, { ...opts, width })) {
        expect([...l].length).toBeLessThanOrEqual(width);
      }
    }
    const narrow = header({ limits }, { width: 40 });
    expect(narrow).toContain('limits claude-code 5h 47% ↻2h13m'.padEnd(40));
    expect(narrow).toContain('       claude-code 7d 93% ↻3d4h'.padEnd(40));
  });

  it('colours a bar by how close its window is to the limit, and writes no colour with colour off', () => {
    const coloured = header({ limits }, { color: true }).join('\n');
    expect(coloured).toContain('\x1b[32m▓▓▓▓░░░░  47%\x1b[0m');
    expect(coloured).toContain('\x1b[31m▓▓▓▓▓▓▓░  93%\x1b[0m');
    expect(header({ limits, spend_30d: days([1, 2, 3]) }).join('')).not.toContain('\x1b');
  });

  it('draws the last 30 days as a sparkline with their total: rising, flat, one day, nothing spent, no history', () => {
    const spark = (costs: number[]) =>
      header({ spend_30d: days(costs) })
        .find((l) => l.startsWith('last 30 days'))
        ?.trimEnd();
    expect(spark([1, 2, 3, 4, 5, 6, 7, 8])).toBe('last 30 days $36.00 ▁▂▃▄▅▆▇█');
    expect(spark([0, 0.01, 100, 0, 50])).toBe('last 30 days $150.01 ·▁█·▄');
    expect(spark(Array.from({ length: 30 }, () => 2))).toBe(`last 30 days $60.00 ${'█'.repeat(30)}`);
    expect(spark([4.5])).toBe('last 30 days $4.50 █');
    expect(spark(Array.from({ length: 30 }, () => 0))).toBe(`last 30 days $0.00 ${'·'.repeat(30)}`);
    expect(spark([])).toBeUndefined();
  });
});
