// Static checks of deploy/prometheus/{rules,alerts}.yml and docs/runbook.md: naming, mixin alert
// style, runbook anchors, metric names from the catalog, thresholds in one place, and a fires /
// does-not-fire promtool case for every alert. (promtool itself runs in promtool.test.ts.)

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PROM,
  RUNBOOK,
  RUNBOOK_BASE,
  TARGET_LABELS,
  alertRules,
  anchors,
  knownMetrics,
  read,
  recordingRules,
  scan,
  selectorProblems,
  thresholds,
  yaml,
  type Json,
} from './lib.js';

const alerts = alertRules();
const records = recordingRules();
const runbook = read(RUNBOOK);

describe('the PromQL scanner used by these checks', () => {
  it('finds metric selectors, matchers and ranges, and skips functions, grouping labels and keywords', () => {
    const s = scan(
      'sum by (harness) (rate(coding_agent_tokens_total{job=~"$job",token_type="input"}[$__rate_interval])) / on(job) group_left(x) (up > 0) and time() - foo offset 5m',
    );
    expect(s.selectors.map((x) => x.name)).toEqual(['coding_agent_tokens_total', 'up', 'foo']);
    expect(s.selectors[0]!.matchers).toEqual([
      { label: 'job', op: '=~', value: '$job' },
      { label: 'token_type', op: '=', value: 'input' },
    ]);
    expect(s.ranges).toEqual(['$__rate_interval']);
  });

  it('reports unknown metrics, labels and label values', () => {
    expect(selectorProblems('rate(coding_agent_token_total[5m])')).toEqual(['unknown metric coding_agent_token_total']);
    expect(selectorProblems('coding_agent_tokens_total{type="input"}')).toEqual([
      'coding_agent_tokens_total has no label type',
    ]);
    expect(selectorProblems('coding_agent_sessions{status=~"asking|waiting"}')).toEqual([
      'status="waiting" is not one of asking, working, delegating, done, error, idle',
    ]);
    expect(selectorProblems('coding_agent_usage_limit_used_ratio{project="x"}')).toEqual([
      'coding_agent_usage_limit_used_ratio has no label project',
    ]);
    expect(selectorProblems('harness:coding_agent_tokens_cache_hit:ratio_rate1h{project="x"}')).toEqual([
      'harness:coding_agent_tokens_cache_hit:ratio_rate1h has no label project',
    ]);
  });
});

describe('recording rules (rules.yml)', () => {
  it('are named level:metric:operations after a catalog metric, or are coding_agent:*:threshold', () => {
    const known = knownMetrics();
    for (const r of records) {
      if (r.record.endsWith(':threshold')) {
        expect(r.record).toMatch(/^coding_agent:[a-z_]+:threshold$/);
        continue;
      }
      const m = /^([a-z_]+):([a-z_]+):([a-z0-9_]+)$/.exec(r.record);
      expect(m, r.record).not.toBeNull();
      const [, level, metric, ops] = m!;
      expect(ops, r.record).toMatch(
        /^(rate|increase|ratio_rate)\d+[smhdw]|^increase\d+[smhdw]_p\d+_\d+[smhdw]$|^predict\d+[smhdw]_at_reset$/,
      );
      // The metric part names the source metric (without _total), optionally with a qualifier.
      const sources = scan(r.expr).selectors.map((s) => s.name.replace(/_total$/, '').replace(/^.*:(.*):.*$/, '$1'));
      expect(
        sources.some((s) => metric!.startsWith(s)),
        `${r.record} reads ${sources.join(', ')}`,
      ).toBe(true);
      // The level lists the labels kept besides the target labels ("instance" = only those).
      const kept = (known.get(r.record) ?? []).filter((l) => !TARGET_LABELS.includes(l));
      expect(level, r.record).toBe(kept.length ? kept.join('_') : 'instance');
    }
  });

  it('have unique names and a comment above each rule', () => {
    const names = records.map((r) => r.record);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    const lines = read(join(PROM, 'rules.yml')).split('\n');
    lines.forEach((line, i) => {
      if (!/^\s*- record:/.test(line)) return;
      expect(lines[i - 1]!.trim().startsWith('#'), `no comment above line ${i + 1}: ${line.trim()}`).toBe(true);
    });
  });

  it('use only catalog metrics and recording rules defined before them', () => {
    const known = knownMetrics();
    const seen = new Set<string>();
    for (const r of records) {
      expect(selectorProblems(r.expr, known), r.record).toEqual([]);
      for (const s of scan(r.expr).selectors)
        if (s.name.includes(':'))
          expect(seen.has(s.name), `${r.record} reads ${s.name} before it is defined`).toBe(true);
      seen.add(r.record);
    }
  });

  it('keep job, instance, user and team in every aggregation (the budget alert is per person)', () => {
    for (const r of records.filter((x) => !x.record.endsWith(':threshold'))) {
      for (const m of r.expr.matchAll(/\bby\s*\(([^)]*)\)/g)) {
        const labels = m[1]!.split(',').map((s) => s.trim());
        expect(labels.slice(0, 4), r.record).toEqual(TARGET_LABELS);
      }
    }
  });

  it('define every threshold as a plain number', () => {
    expect([...thresholds().keys()].sort()).toEqual([
      'coding_agent:context_used_ratio:threshold',
      'coding_agent:daily_budget_usd:threshold',
      'coding_agent:session_asking_seconds:threshold',
      'coding_agent:session_stuck_seconds:threshold',
      'coding_agent:spend_spike_factor:threshold',
      'coding_agent:spend_spike_min_usd:threshold',
      'coding_agent:usage_limit_used_ratio:threshold',
    ]);
  });
});

describe('alerts (alerts.yml)', () => {
  it('include the alerts of the contract', () => {
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      'CodingAgentCollectorFailing',
      'CodingAgentContextWindowAlmostFull',
      'CodingAgentDailyBudgetExceeded',
      'CodingAgentExporterDown',
      'CodingAgentReaderDrift',
      'CodingAgentSessionStuck',
      'CodingAgentSessionWaitingForUser',
      'CodingAgentSpendSpike',
      'CodingAgentTurnFailed',
      'CodingAgentUnpricedTokens',
      'CodingAgentUsageLimitAlmostReached',
      'CodingAgentUsageLimitProjectedExhausted',
    ]);
  });

  for (const a of alerts) {
    describe(a.alert, () => {
      it('follows the mixin style: prefix, severity, summary, description', () => {
        expect(a.alert).toMatch(/^CodingAgent[A-Z][A-Za-z]+$/);
        expect(['critical', 'warning', 'info']).toContain(a.labels?.severity);
        const summary = a.annotations?.summary ?? '';
        expect(summary).toMatch(/^[A-Z].*\.$/);
        expect(summary).not.toContain('{{');
        expect(a.annotations?.description ?? '').toContain('{{');
        if (a.for !== undefined) expect(a.for).toMatch(/^\d+[smh]$/);
      });

      it('links its own runbook section, which exists', () => {
        const anchor = a.alert.toLowerCase();
        expect(a.annotations?.runbook_url).toBe(`${RUNBOOK_BASE}#${anchor}`);
        expect(anchors(runbook).has(anchor), `docs/runbook.md has no "## ${a.alert}"`).toBe(true);
        const section = runbook.split(/^## /m).find((s) => s.startsWith(`${a.alert}\n`)) ?? '';
        for (const part of ['**Meaning.**', '**Impact.**', '**Diagnosis.**', '**Mitigation.**'])
          expect(section, part).toContain(part);
      });

      it('uses only catalog metrics, recording rules and up', () => {
        expect(selectorProblems(a.expr)).toEqual([]);
      });

      it('takes its numbers from threshold rules, not from literals', () => {
        // Allowed literals: 0 and 1 (states), and the 1h window of the unpriced-tokens alert.
        const literals =
          a.expr
            .replace(/"[^"]*"/g, '')
            .replace(/\[[^\]]*\]/g, '')
            .match(/(?<![\w.:])\d+(?:\.\d+)?(?![\w.])/g) ?? [];
        expect(
          literals.filter((n) => n !== '0' && n !== '1'),
          a.expr,
        ).toEqual([]);
      });
    });
  }

  it('has no runbook section without an alert', () => {
    const names = new Set(alerts.map((a) => a.alert));
    for (const m of runbook.matchAll(/^## (CodingAgent\w+)/gm)) expect(names.has(m[1]!), m[1]).toBe(true);
  });
});

describe('thresholds and durations are documented in one table', () => {
  const rows = new Map<string, string[]>();
  for (const m of runbook.matchAll(/^\| (CodingAgent\w+) \|(.*)\|\s*$/gm))
    rows.set(
      m[1]!,
      m[2]!.split('|').map((c) => c.trim()),
    );
  const values = thresholds();

  it('lists every alert with its severity, for: and threshold rules with their current values', () => {
    expect([...rows.keys()].sort()).toEqual(alerts.map((a) => a.alert).sort());
    const documented = new Set<string>();
    for (const a of alerts) {
      const [severity, forCell, rules] = rows.get(a.alert)!;
      expect(severity, a.alert).toBe(a.labels?.severity);
      expect(forCell, a.alert).toBe(a.for ?? '0m');
      const listed = [...rules!.matchAll(/`(coding_agent:[a-z_]+:threshold)` = ([0-9.]+)/g)];
      const used = scan(a.expr)
        .selectors.map((s) => s.name)
        .filter((n) => n.endsWith(':threshold'));
      expect(listed.map((l) => l[1]).sort(), a.alert).toEqual([...new Set(used)].sort());
      for (const [, rule, value] of listed) {
        expect(Number(value), `${rule} in docs/runbook.md`).toBe(values.get(rule!));
        documented.add(rule!);
      }
    }
    expect([...documented].sort()).toEqual([...values.keys()].sort());
  });

  it('matches the comment block at the top of rules.yml', () => {
    const text = read(join(PROM, 'rules.yml'));
    for (const a of alerts)
      expect(text, a.alert).toMatch(new RegExp(`^\\s*#\\s+${a.alert}\\s.*\\s${a.for ?? '0m'}\\s*$`, 'm'));
  });
});

describe('promtool unit tests (tests/*.yml)', () => {
  const testFiles = readdirSync(join(PROM, 'tests')).filter((f) => f.endsWith('.yml'));
  const cases: { file: string; name: string; alertname: string; fires: boolean }[] = [];
  const exprTests: string[] = [];
  for (const file of testFiles) {
    const doc = yaml(join(PROM, 'tests', file));
    for (const t of doc.tests ?? []) {
      for (const a of t.alert_rule_test ?? [])
        cases.push({ file, name: t.name ?? '', alertname: a.alertname, fires: (a.exp_alerts ?? []).length > 0 });
      for (const e of t.promql_expr_test ?? []) exprTests.push(String(e.expr));
    }
  }

  it('have a "fires" and a "does not fire" case for every alert, with behavioural names', () => {
    for (const a of alerts) {
      const mine = cases.filter((c) => c.alertname === a.alert);
      expect(
        mine.some((c) => c.fires && c.name.startsWith(`${a.alert} fires when`)),
        `${a.alert}: no "fires when" case`,
      ).toBe(true);
      expect(
        mine.some((c) => !c.fires && c.name.startsWith(`${a.alert} does not fire`)),
        `${a.alert}: no "does not fire" case`,
      ).toBe(true);
    }
  });

  it('test the key recording rules', () => {
    const tested = exprTests.join('\n');
    for (const r of [
      'harness_project_model:coding_agent_cost_usd:rate5m',
      'harness_project_model:coding_agent_cost_usd:increase1h',
      'harness_project_model:coding_agent_cost_usd:increase1d',
      'harness_project_model:coding_agent_cost_usd:increase7d',
      'harness_project_model:coding_agent_cost_usd:increase30d',
      'instance:coding_agent_cost_usd:increase1d',
      'harness_project_model_token_type:coding_agent_tokens:rate5m',
      'harness_project_model:coding_agent_tokens_cache_hit:ratio_rate1h',
      'harness:coding_agent_tokens_cache_hit:ratio_rate1h',
      'instance:coding_agent_cost_usd:increase1h_p95_7d',
    ]) {
      expect(tested, r).toContain(r);
    }
  });

  it('evaluate groups in a fixed order that names every group', () => {
    const groups = [
      ...(yaml(join(PROM, 'rules.yml')).groups as Json[]).map((g) => g.name),
      ...(yaml(join(PROM, 'alerts.yml')).groups as Json[]).map((g) => g.name),
    ];
    for (const file of testFiles) {
      const doc = yaml(join(PROM, 'tests', file));
      const files = (doc.rule_files as string[]).map((f) => f.replace('../', ''));
      const expected = groups.filter((g) => files.includes('alerts.yml') || !g.includes('.alerts.'));
      expect(doc.group_eval_order, file).toEqual(expected);
    }
  });
});
