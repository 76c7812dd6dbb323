// Every capture of a real CLI, read by the real binary (`once`), against the capture's known truth.

import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonJsonLines } from '../helpers/json.js';
import { envFor, FIXTURES, run, samples, sum, tempDir } from '../helpers/run.js';

interface Expected {
  harness: string;
  sessions: {
    project: string;
    model: string | null;
    git_branch: string | null;
    tokens: { input: number; output: number; cache_read: number; cache_write: number | null; reasoning: number };
    tool_calls: number;
    tool_errors: number;
    prompts: number;
    failed_turns: number;
    final_status: string;
  }[];
}

const root = join(FIXTURES, 'captures');
const cases = readdirSync(root).flatMap((folder) =>
  readdirSync(join(root, folder)).map((scenario) => ({ folder, scenario, home: join(root, folder, scenario) })),
);

/** Every file under a folder with its content hash and mtime. */
function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = `${createHash('sha1').update(readFileSync(p)).digest('hex')} ${statSync(p).mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

describe('sessions command', () => {
  it('prints a table a person can read: status and why, model, tokens, cost, context, last activity', () => {
    const env = envFor(join(FIXTURES, 'home'), {
      CODING_AGENT_EXPORTER_SESSIONS_DONE_FOR_SECONDS: '1000000000',
      CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: '1000000000',
    });
    const r = run(['sessions', '--state-dir', tempDir()], env);
    expect(r.status).toBe(0);
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual([
      'HARNESS',
      'PROJECT',
      'STATUS',
      'MODEL',
      'TOKENS',
      'COST',
      'CONTEXT',
      'PROCESS',
      'LAST ACTIVITY',
      'SESSION',
    ]);
    expect(rows).toHaveLength(16);
    expect(r.stdout).toMatch(
      /claude-code\s+demo-app\s+done \(recent\)\s+claude-sonnet-4-5\s+4\.5k\s+\$0\.01\s+2\.3k\/200k \(1%\)/,
    );
    expect(r.stdout).toMatch(/codex\s+demo-app\s+error \(turn-failed\)/);
    expect(r.stdout).toMatch(/codex\s+demo-app\s+done \(recent\)\s+gpt-5-fake\s+2\.7k\s+unpriced/);
    expect(r.stdout).toMatch(
      /gemini-cli\s+demo-app\s+done \(recent\)\s+gemini-2\.5-flash\s+2\.7k\s+\$0\.0007\s+1\.3k\/1M \(0%\)/,
    );
    expect(r.stdout).toMatch(/gemini-cli\s+demo-app\s+error \(turn-failed\)/);
    expect(r.stdout).toMatch(
      /copilot-cli\s+demo-app\s+done \(recent\)\s+gpt-4\.1\s+2\.7k\s+\$0\.0035\s+1\.3k\/64k \(2%\)/,
    );
    expect(r.stdout).toMatch(/qwen-code\s+demo-app\s+done \(recent\)\s+qwen3-coder-fake\s+2\.7k\s+unpriced/);
    expect(r.stdout).toMatch(/opencode\s+demo-app\s+done \(recent\)\s+fake-model\s+2\.7k\s+unpriced\s+1\.3k\s/);
    expect(r.stdout).toMatch(/kilo\s+demo-app\s+done \(recent\)\s+fake-model\s+2\.7k\s+unpriced/);
  });
});

describe('premium requests', () => {
  it('exist at 0 where Copilot CLI recorded none billed (totalPremiumRequests: 0)', () => {
    const r = run(['once', '--state-dir', tempDir()], envFor(join(FIXTURES, 'home')));
    expect(samples(r.stdout).filter((s) => s.name === 'coding_agent_premium_requests_total')).toEqual([
      {
        name: 'coding_agent_premium_requests_total',
        labels: { harness: 'copilot-cli', project: 'demo-app', model: 'gpt-4.1' },
        value: 0,
      },
    ]);
  });
});

describe('a database named by the environment', () => {
  it('is read where OPENCODE_DB says, outside the data folder', () => {
    const db = join(FIXTURES, 'captures/opencode/tool/.local/share/opencode/opencode.db');
    const r = run(['once', '--state-dir', tempDir()], envFor(tempDir(), { OPENCODE_DB: db }));
    expect(r.status).toBe(0);
    expect(sum(r.stdout, 'coding_agent_tokens_total', { harness: 'opencode', token_type: 'input' })).toBe(845);
    expect(sum(r.stdout, 'coding_agent_exporter_files', { collector: 'opencode' })).toBe(1);
  });
});

describe('JSON written with spaces', () => {
  // Every JSONL file of a capture respelled as Python's json.dumps writes it: the binary must export
  // exactly what it exports for the compact original.
  it.each(['claude-code/tool', 'codex/tool', 'qwen-code/tool', 'copilot-cli/tool', 'gemini-cli/tool'])(
    '%s',
    (capture) => {
      const spaced = tempDir();
      cpSync(join(root, capture), spaced, { recursive: true });
      for (const e of readdirSync(spaced, { recursive: true, withFileTypes: true })) {
        const path = join(e.parentPath, e.name);
        if (e.isFile() && e.name.endsWith('.jsonl')) writeFileSync(path, pythonJsonLines(readFileSync(path, 'utf8')));
      }
      const series = (home: string) => {
        const r = run(['once', '--state-dir', tempDir()], envFor(home));
        expect(r.status).toBe(0);
        return samples(r.stdout).filter((x) => !x.name.startsWith('coding_agent_exporter_'));
      };
      const compact = series(join(root, capture));
      expect(compact.some((x) => x.name === 'coding_agent_tokens_total' && x.value > 0)).toBe(true);
      expect(series(spaced)).toEqual(compact);
    },
  );
});

describe('read-only', () => {
  it('leaves every harness file as it found it', () => {
    const home = join(FIXTURES, 'home');
    const before = snapshotTree(home);
    expect(run(['once', '--state-dir', tempDir()], envFor(home)).status).toBe(0);
    expect(snapshotTree(home)).toEqual(before);
  });
});

describe('privacy', () => {
  it('puts no prompt or reply text into metrics or logs, even at debug level', () => {
    const home = join(FIXTURES, 'home');
    const env = envFor(home, {
      CODING_AGENT_EXPORTER_LOG_LEVEL: 'debug',
      CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: '1000000000',
    });
    const outputs = [
      run(['once', '--state-dir', tempDir()], env),
      run(['sessions', '--json', '--state-dir', tempDir()], env),
    ];
    for (const r of outputs) {
      for (const text of ['Run echo hi', 'Say hello', 'The command printed', 'Hello from the fake model', 'echo hi']) {
        expect(r.stdout + r.stderr).not.toContain(text);
      }
    }
  });
});

// Context in use after the last answer, from the usage the fake server served (captures' README):
// Codex counts the last request's total (input, cache included, plus output); every other harness
// the last request's prompt (input, cache reads and writes). Limits: the model's window, or what
// the harness records (Codex; Qwen Code from 0.24; Copilot CLI's prompt budget). Keyed by capture
// folder where versions differ, else by harness.
const CONTEXT: Record<string, { context_tokens: number | null; context_limit_tokens: number | null }> = {
  'claude-code/text': { context_tokens: 1234 + 789 + 100, context_limit_tokens: 200_000 },
  'claude-code/tool': { context_tokens: 1300 + 900 + 50, context_limit_tokens: 200_000 },
  'claude-code/error': { context_tokens: null, context_limit_tokens: null },
  'codex/text': { context_tokens: 1234 + 56, context_limit_tokens: 258_400 },
  'codex/tool': { context_tokens: 1300 + 60, context_limit_tokens: 258_400 },
  'codex/error': { context_tokens: null, context_limit_tokens: null },
  // OpenCode and Kilo: the last call's input + cache read + cache write; the fake model has no
  // known window and OpenCode stores none.
  'opencode/text': { context_tokens: 445 + 789, context_limit_tokens: null },
  'opencode/tool': { context_tokens: 400 + 900, context_limit_tokens: null },
  'opencode/error': { context_tokens: null, context_limit_tokens: null },
  'kilo/text': { context_tokens: 445 + 789, context_limit_tokens: null },
  'kilo/tool': { context_tokens: 400 + 900, context_limit_tokens: null },
  'kilo/error': { context_tokens: null, context_limit_tokens: null },
  'qwen-code/text': { context_tokens: 1234, context_limit_tokens: 262_144 },
  'qwen-code/tool': { context_tokens: 1300, context_limit_tokens: 262_144 },
  'qwen-code/error': { context_tokens: null, context_limit_tokens: null },
  'qwen-code-0.15.10/text': { context_tokens: 1234, context_limit_tokens: null },
  'qwen-code-0.15.10/tool': { context_tokens: 1300, context_limit_tokens: null },
  'qwen-code-0.15.10/error': { context_tokens: null, context_limit_tokens: null },
  'copilot-cli/text': { context_tokens: 1234, context_limit_tokens: 64_000 },
  'copilot-cli/tool': { context_tokens: 1300, context_limit_tokens: 64_000 },
  'copilot-cli/error': { context_tokens: null, context_limit_tokens: null },
  'gemini-cli/text': { context_tokens: 1234, context_limit_tokens: 1_048_576 },
  'gemini-cli/tool': { context_tokens: 1300, context_limit_tokens: 1_048_576 },
  'gemini-cli/error': { context_tokens: null, context_limit_tokens: null },
  // Droid: the last call's input and cache reads (its settings record no cache write per call);
  // the custom model's window is not known.
  'droid/text': { context_tokens: 445 + 789, context_limit_tokens: null },
  'droid/tool': { context_tokens: 400 + 900, context_limit_tokens: null },
  'droid/error': { context_tokens: null, context_limit_tokens: null },
  'droid-anthropic/text': { context_tokens: 1234 + 789, context_limit_tokens: null },
  'droid-anthropic/tool': { context_tokens: 1300 + 900, context_limit_tokens: null },
  'droid-anthropic/error': { context_tokens: null, context_limit_tokens: null },
  // pi: input, cache reads and writes of the last answer as pi splits them (its note).
  'pi/text': { context_tokens: 445 + 689 + 100, context_limit_tokens: null },
  'pi/tool': { context_tokens: 400 + 850 + 50, context_limit_tokens: null },
  'pi/error': { context_tokens: null, context_limit_tokens: null },
  // Continue CLI and Cline: the last answer's prompt tokens (cache included); the fake model's
  // window is not known. Continue writes no session at all when every request failed.
  'continue-cli/text': { context_tokens: 1234, context_limit_tokens: null },
  'continue-cli/tool': { context_tokens: 1300, context_limit_tokens: null },
  'cline/text': { context_tokens: 1234, context_limit_tokens: null },
  'cline/tool': { context_tokens: 1300, context_limit_tokens: null },
  'cline/error': { context_tokens: null, context_limit_tokens: null },
  // OpenClaw: the last answer's input, cache reads and writes; the fake model's window is not known.
  'openclaw/text': { context_tokens: 345 + 789 + 100, context_limit_tokens: null },
  'openclaw/tool': { context_tokens: 350 + 900 + 50, context_limit_tokens: null },
  'openclaw/error': { context_tokens: null, context_limit_tokens: null },
};

// Published list prices in dollars per million tokens, written out by hand (not read from the
// bundled table) so that a wrong table or a wrong match fails here.
const LIST_PRICES: Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }> = {
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  // OpenAI charges no cache write premium: written cache is billed as input.
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  // Google publishes no cache-write price (it charges cache storage by the hour); no writes are served.
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 },
};

const expectedOf = (home: string) => JSON.parse(readFileSync(join(home, 'expected.json'), 'utf8')) as Expected;

// A harness that wrote nothing (Continue CLI when every request failed): nothing to report.
describe.each(cases.filter(({ home }) => expectedOf(home).sessions.length === 0))(
  '$folder/$scenario (no session written)',
  ({ home }) => {
    const h = { harness: expectedOf(home).harness };
    it('reports no session and no tokens', () => {
      const out = run(['once', '--state-dir', tempDir()], envFor(home));
      expect(out.status).toBe(0);
      expect(sum(out.stdout, 'coding_agent_sessions_started_total', h)).toBe(0);
      expect(sum(out.stdout, 'coding_agent_tokens_total', h)).toBe(0);
      expect(sum(out.stdout, 'coding_agent_prompts_total', h)).toBe(0);
    });
  },
);

describe.each(cases.filter(({ home }) => expectedOf(home).sessions.length > 0))(
  '$folder/$scenario',
  ({ folder, home, scenario }) => {
    const expected = expectedOf(home);
    const h = { harness: expected.harness };
    const out = run(['once', '--state-dir', tempDir()], envFor(home));
    const s = expected.sessions[0]!;

    it('exits cleanly', () => {
      expect(out.stderr).not.toMatch(/"level":"(warn|error)"/);
      expect(out.status).toBe(0);
    });

    it('counts every token exactly, once', () => {
      const tokens = (t: string) =>
        sum(out.stdout, 'coding_agent_tokens_total', { ...h, project: s.project, token_type: t });
      expect(tokens('input')).toBe(s.tokens.input);
      expect(tokens('output')).toBe(s.tokens.output);
      expect(tokens('cache_read')).toBe(s.tokens.cache_read);
      expect(tokens('cache_write')).toBe(s.tokens.cache_write ?? 0);
      // A token type the harness does not record has no series, not a 0.
      const cacheWriteSeries = samples(out.stdout).filter(
        (x) =>
          x.name === 'coding_agent_tokens_total' &&
          x.labels.harness === h.harness &&
          x.labels.token_type === 'cache_write',
      );
      expect(cacheWriteSeries.length > 0).toBe(s.tokens.cache_write !== null && s.tokens.input + s.tokens.output > 0);
      expect(sum(out.stdout, 'coding_agent_reasoning_tokens_total', h)).toBe(s.tokens.reasoning);
    });

    it('labels tokens with the model', () => {
      const total = s.tokens.input + s.tokens.output;
      if (total > 0) expect(sum(out.stdout, 'coding_agent_tokens_total', { ...h, model: s.model! })).toBeGreaterThan(0);
    });

    it('counts prompts, turns and tools', () => {
      expect(sum(out.stdout, 'coding_agent_prompts_total', h)).toBe(s.prompts);
      expect(sum(out.stdout, 'coding_agent_turns_total', { ...h, outcome: 'failed' })).toBe(s.failed_turns);
      expect(sum(out.stdout, 'coding_agent_turns_total', { ...h, outcome: 'completed' })).toBe(
        s.final_status === 'done' ? 1 : 0,
      );
      expect(sum(out.stdout, 'coding_agent_tool_calls_total', h)).toBe(s.tool_calls);
      expect(sum(out.stdout, 'coding_agent_tool_errors_total', h)).toBe(s.tool_errors);
      expect(sum(out.stdout, 'coding_agent_sessions_started_total', { ...h, project: s.project })).toBe(1);
    });

    it("derives the final status (with windows wide enough for the capture's age)", () => {
      const wide = {
        CODING_AGENT_EXPORTER_SESSIONS_DONE_FOR_SECONDS: '1000000000',
        CODING_AGENT_EXPORTER_SESSIONS_ACTIVE_WINDOW_SECONDS: '1000000000',
      };
      const r = run(['sessions', '--json', '--state-dir', tempDir()], envFor(home, wide));
      expect(r.status).toBe(0);
      const sessions = JSON.parse(r.stdout) as {
        status: string;
        project: string;
        model: string | null;
        git_branch: string | null;
      }[];
      expect(sessions).toHaveLength(1);
      expect(sessions[0]!.status).toBe(s.final_status);
      expect(sessions[0]).toMatchObject(
        CONTEXT[`${folder}/${scenario}`] ?? CONTEXT[`${expected.harness}/${scenario}`] ?? {},
      );
      expect(sessions[0]!.project).toBe(s.project);
      if (s.model) expect(sessions[0]!.model).toBe(s.model);
      if (s.git_branch) expect(sessions[0]!.git_branch).toBe(s.git_branch);
    });

    it('prices known models at their list prices and reports unknown ones as unpriced', () => {
      const tokens = s.tokens.input + s.tokens.output + s.tokens.cache_read + (s.tokens.cache_write ?? 0);
      const cost = sum(out.stdout, 'coding_agent_cost_usd_total', h);
      const unpriced = sum(out.stdout, 'coding_agent_exporter_unpriced_tokens_total', h);
      const price = s.model ? LIST_PRICES[s.model] : undefined;
      if (price) {
        const t = s.tokens;
        const expectedCost =
          (price.input * t.input +
            price.output * t.output +
            price.cacheRead * t.cache_read +
            price.cacheWrite * (t.cache_write ?? 0)) /
          1e6;
        expect(cost).toBeCloseTo(expectedCost, 12);
        expect(unpriced).toBe(0);
      } else {
        expect(cost).toBe(0);
        expect(unpriced).toBe(tokens);
      }
    });
  },
);
