// Lint of the Grafana dashboards (the rules of grafana/dashboard-linter and the monitoring-mixin
// conventions, plus our metric contract), and a check that the committed JSON is what
// deploy/grafana/generate.mjs writes.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASHBOARDS, GRAFANA, knownMetrics, read, scan, selectorProblems, type Json } from './lib.js';

const files = readdirSync(DASHBOARDS)
  .filter((f) => f.endsWith('.json'))
  .sort();
const dashboards: [string, Json][] = files.map((f) => [f, JSON.parse(read(join(DASHBOARDS, f)))]);
const DS = { type: 'prometheus', uid: '${datasource}' };
const known = knownMetrics();

/** Data panels (rows excluded), including those inside collapsed rows. */
function panels(d: Json): Json[] {
  return (d.panels as Json[]).flatMap((p) => (p.type === 'row' ? (p.panels ?? []) : [p]));
}
const vars = (d: Json): Json[] => d.templating?.list ?? [];
const variable = (d: Json, name: string): Json => vars(d).find((v: Json) => v.name === name);
const varQuery = (v: Json): string => (typeof v.query === 'string' ? v.query : (v.query?.query ?? ''));
/** A panel's time override that makes $__range a calendar window ("today so far" and the like). */
const calendarOverride = (p: Json): boolean => typeof p.timeFrom === 'string' && /^now\/[dwMy]$/.test(p.timeFrom);

describe('dashboards', () => {
  it('are the four expected files', () => {
    expect(files).toEqual(['exporter-health.json', 'overview.json', 'sessions.json', 'team.json']);
  });

  it('match the output of deploy/grafana/generate.mjs (run it after editing)', async () => {
    const gen = (await import(join(GRAFANA, 'generate.mjs'))) as {
      dashboards: Record<string, Json>;
      render: (d: Json) => string;
    };
    expect(Object.keys(gen.dashboards).sort()).toEqual(files);
    for (const [file, d] of Object.entries(gen.dashboards)) {
      expect(read(join(DASHBOARDS, file)), `${file} is stale: run node deploy/grafana/generate.mjs`).toBe(
        gen.render(d),
      );
    }
  });

  it('have distinct stable uids', () => {
    const uids = dashboards.map(([, d]) => d.uid);
    expect(new Set(uids).size).toBe(uids.length);
    for (const [f, d] of dashboards) {
      expect(d.uid, f).toMatch(/^coding-agent-[a-z-]+$/);
      expect(d.uid.length, f).toBeLessThanOrEqual(40);
    }
  });

  for (const [file, d] of dashboards) {
    describe(file, () => {
      it('has the tag, a title, a description and schemaVersion 39', () => {
        expect(d.tags).toEqual(['coding-agent-exporter']);
        expect(d.title).toMatch(/^Coding agents \/ /);
        expect(d.description).toBeTruthy();
        expect(d.schemaVersion).toBe(39);
        expect(d.id).toBeNull();
      });

      it('has no __inputs or ${DS_...} placeholders (file provisioning cannot resolve them)', () => {
        expect(d.__inputs).toBeUndefined();
        expect(d.__requires).toBeUndefined();
        expect(JSON.stringify(d)).not.toMatch(/\$\{DS_/);
      });

      it('has a datasource variable and job/instance variables chained from build_info', () => {
        const names = vars(d).map((v: Json) => v.name);
        expect(names.slice(0, 3)).toEqual(['datasource', 'job', 'instance']);
        const ds = variable(d, 'datasource');
        expect(ds).toMatchObject({ type: 'datasource', query: 'prometheus' });
        expect(varQuery(variable(d, 'job'))).toBe('label_values(coding_agent_exporter_build_info, job)');
        expect(varQuery(variable(d, 'instance'))).toBe(
          'label_values(coding_agent_exporter_build_info{job=~"$job"}, instance)',
        );
        for (const v of vars(d).filter((x: Json) => x.type === 'query')) {
          expect(v.datasource, v.name).toEqual(DS);
          expect(v.multi, v.name).toBe(true);
          expect(v.includeAll, v.name).toBe(true);
          expect(v.allValue, v.name).toBe('.*');
        }
      });

      it('chains harness and project variables when it has them', () => {
        const harness = variable(d, 'harness');
        const project = variable(d, 'project');
        if (file !== 'exporter-health.json') {
          expect(harness).toBeDefined();
          expect(project).toBeDefined();
        }
        const person = 'job=~"\\$job",instance=~"\\$instance",user=~"\\$user",team=~"\\$team"';
        if (harness)
          expect(varQuery(harness)).toMatch(
            new RegExp(
              `^label_values\\((coding_agent_sessions_started_total|coding_agent_tokens_total)\\{${person}\\}, harness\\)$`,
            ),
          );
        if (project)
          expect(varQuery(project)).toMatch(
            new RegExp(
              `^label_values\\((coding_agent_sessions_started_total|coding_agent_tokens_total)\\{${person},harness=~"\\$harness"\\}, project\\)$`,
            ),
          );
        for (const v of vars(d).filter((x: Json) => x.type === 'query')) {
          for (const m of varQuery(v).matchAll(/label_values\(([a-z_:]+)/g)) expect(known.has(m[1]!), m[1]).toBe(true);
        }
      });

      it('uses the datasource variable, a unit and a description on every panel', () => {
        for (const p of panels(d)) {
          const where = `${file}: panel "${p.title}"`;
          expect(['timeseries', 'stat', 'table', 'bargauge'], where).toContain(p.type);
          expect(p.datasource, where).toEqual(DS);
          expect(typeof p.fieldConfig?.defaults?.unit, where).toBe('string');
          expect(p.fieldConfig.defaults.unit.length, where).toBeGreaterThan(0);
          expect(typeof p.description, where).toBe('string');
          expect(p.description.length, where).toBeGreaterThan(10);
          expect(p.targets?.length, where).toBeGreaterThan(0);
          for (const t of p.targets) expect(t.datasource, where).toEqual(DS);
        }
      });

      it('has unique panel ids and titles, and panels that do not overlap', () => {
        const all = d.panels as Json[];
        const ids = all.map((p) => p.id);
        expect(new Set(ids).size).toBe(ids.length);
        const titles = panels(d).map((p) => p.title);
        expect(titles.filter((t, i) => titles.indexOf(t) !== i)).toEqual([]);
        const cells = new Map<string, string>();
        for (const p of all) {
          const { x, y, w, h } = p.gridPos;
          expect(x + w, p.title).toBeLessThanOrEqual(24);
          for (let i = x; i < x + w; i++) {
            for (let j = y; j < y + h; j++) {
              const key = `${i},${j}`;
              expect(cells.get(key), `"${p.title}" overlaps "${cells.get(key)}"`).toBeUndefined();
              cells.set(key, p.title);
            }
          }
        }
      });

      it('has user and team variables from build_info, whose All matches a missing label', () => {
        expect(
          vars(d)
            .map((v: Json) => v.name)
            .slice(3, 5),
        ).toEqual(['user', 'team']);
        for (const name of ['user', 'team']) {
          const v = variable(d, name);
          expect(varQuery(v), name).toBe(`label_values(coding_agent_exporter_build_info{job=~"$job"}, ${name})`);
          // A regex matcher with `.*` matches the empty value, i.e. a series without the label.
          expect(v.allValue, name).toBe('.*');
        }
      });

      it('selects job, instance, user and team (and harness/project when the metric has them) in every query', () => {
        const hasVar = (n: string): boolean => Boolean(variable(d, n));
        for (const p of panels(d)) {
          for (const t of p.targets) {
            for (const s of scan(t.expr).selectors) {
              if (s.name.endsWith(':threshold')) continue; // constant series without labels
              const where = `${file}: "${p.title}" ${s.raw}`;
              const has = (label: string): boolean =>
                s.matchers.some((m) => m.label === label && m.op === '=~' && m.value === `$${label}`);
              for (const l of ['job', 'instance', 'user', 'team'])
                expect(has(l), `${where} lacks ${l}=~"$${l}"`).toBe(true);
              const labels = known.get(s.name) ?? [];
              for (const l of ['harness', 'project']) {
                if (hasVar(l) && labels.includes(l)) expect(has(l), `${where} lacks ${l}=~"$${l}"`).toBe(true);
              }
            }
          }
        }
      });

      it('uses $__rate_interval for every range (or $__range with a calendar time override)', () => {
        for (const p of panels(d)) {
          for (const t of p.targets) {
            for (const r of scan(t.expr).ranges) {
              const where = `${file}: "${p.title}" [${r}]`;
              if (r === '$__range') expect(calendarOverride(p), `${where} needs timeFrom now/d|w|M`).toBe(true);
              else expect(r, where).toBe('$__rate_interval');
            }
          }
        }
      });

      it('references only metrics of the catalog, the recording rules, up and scrape_duration_seconds', () => {
        for (const p of panels(d)) {
          for (const t of p.targets)
            expect(selectorProblems(t.expr, known), `${file}: "${p.title}": ${t.expr}`).toEqual([]);
        }
      });

      it('uses instant table queries in tables, with merge/organize when there are several', () => {
        for (const p of panels(d).filter((x) => x.type === 'table')) {
          for (const t of p.targets) expect(t, p.title).toMatchObject({ instant: true, format: 'table' });
          const ids = (p.transformations ?? []).map((x: Json) => x.id);
          if (p.targets.length > 1) expect(ids, p.title).toEqual(['merge', 'organize']);
        }
      });
    });
  }

  it('the overview has the spend, token, session, activity and usage-limit panels', () => {
    const overview = dashboards.find(([f]) => f === 'overview.json')![1];
    const exprs = panels(overview)
      .flatMap((p) => p.targets.map((t: Json) => t.expr))
      .join('\n');
    for (const m of [
      'harness_project_model:coding_agent_cost_usd:increase1d',
      'harness_project_model:coding_agent_cost_usd:increase7d',
      'harness_project_model:coding_agent_cost_usd:increase30d',
      'coding_agent_tokens_total',
      'coding_agent_sessions{',
      'coding_agent_prompts_total',
      'coding_agent_turns_total',
      'coding_agent_tool_calls_total',
      'coding_agent_tool_errors_total',
      'coding_agent_lines_added_total',
      'coding_agent_lines_removed_total',
      'coding_agent_usage_limit_used_ratio',
      'coding_agent_usage_limit_resets_timestamp_seconds',
      'coding_agent_premium_requests_total',
    ]) {
      expect(exprs, m).toContain(m);
    }
  });

  it("the sessions dashboard shows each session's plan progress", () => {
    const sessions = dashboards.find(([f]) => f === 'sessions.json')![1];
    expect(
      panels(sessions)
        .flatMap((p) => p.targets.map((t: Json) => t.expr))
        .join('\n'),
    ).toContain('coding_agent_session_todos');
  });

  it('the sessions dashboard shows live processes, how they were joined and the tools they run; exporter health shows drift', () => {
    const exprsOf = (file: string) =>
      panels(dashboards.find(([f]) => f === file)![1])
        .flatMap((p) => p.targets.map((t: Json) => t.expr))
        .join('\n');
    for (const m of [
      'coding_agent_session_process_info',
      'coding_agent_session_tool_started_timestamp_seconds',
      'coding_agent_processes',
      'coding_agent_process_cpu_ratio',
      'coding_agent_process_resident_memory_bytes',
    ]) {
      expect(exprsOf('sessions.json'), m).toContain(m);
    }
    expect(exprsOf('exporter-health.json')).toContain('coding_agent_exporter_drift_sessions');
  });

  it('the sessions table uses every per-session gauge', () => {
    const sessions = dashboards.find(([f]) => f === 'sessions.json')![1];
    const table = panels(sessions).find((p) => p.type === 'table' && p.title === 'Live sessions');
    const exprs = table.targets.map((t: Json) => t.expr).join('\n');
    for (const m of [
      'coding_agent_session_status',
      'coding_agent_session_last_activity_timestamp_seconds',
      'coding_agent_session_turn_started_timestamp_seconds',
      'coding_agent_session_context_tokens',
      'coding_agent_session_context_limit_tokens',
      'coding_agent_session_cost_usd',
      'coding_agent_session_subagents',
    ]) {
      expect(exprs, m).toContain(m);
    }
  });
});
