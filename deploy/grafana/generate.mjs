#!/usr/bin/env node
// Source of the Grafana dashboards in ./dashboards/*.json.
//
// The JSON files are committed (Grafana provisioning and users read them directly); this script
// is how they are written. Edit the panels here, then run
//     node deploy/grafana/generate.mjs
// test/deploy/dashboards.test.ts fails when the committed JSON differs from this output, and
// lints every panel (datasource variable, job/instance/user/team matchers, $__rate_interval, units,
// descriptions, metric names from src/catalog.ts).
//
// Conventions (monitoring-mixin / grafana dashboard-linter):
//   - a `datasource` variable (no __inputs / ${DS_...} placeholders, which file provisioning
//     cannot resolve), every panel and target uses {type: prometheus, uid: ${datasource}};
//   - `job` and `instance` variables chained from coding_agent_exporter_build_info, then `user`
//     and `team` (the person: target labels of the team setup, deploy/team/), then `harness`
//     and `project`; every selector carries job, instance, user and team matchers. A
//     single-user Prometheus has no user or team label: the variables then offer only All,
//     whose `.*` matches the absent (empty) label, so the same dashboards serve both setups;
//   - rate()/increase() use $__rate_interval, except the calendar "so far" panels, which use
//     $__range together with a panel time override (timeFrom now/d, now/w, now/M);
//   - spend windows of 24 h / 7 d / 30 d come from the recording rules in
//     deploy/prometheus/rules.yml (rolling windows, labelled as such).

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DS = { type: 'prometheus', uid: '${datasource}' };
const TAG = 'coding-agent-exporter';

// Label matchers. I: exporter instance; J: + the person (user, team); H: + harness;
// F: + harness and project.
const I = 'job=~"$job",instance=~"$instance"';
const J = `${I},user=~"$user",team=~"$team"`;
const H = `${J},harness=~"$harness"`;
const F = `${H},project=~"$project"`;
const SESSION = 'job, instance, user, team, harness, project, session_id';

// ------------------------------------------------------------------------------------------
// Builders

function target(expr, refId, { legend = '', instant = false, table = false } = {}) {
  return {
    datasource: DS,
    editorMode: 'code',
    expr,
    ...(table ? { format: 'table' } : {}),
    instant,
    legendFormat: legend || '__auto',
    range: !instant,
    refId,
  };
}

/** targets: [expr, legend] pairs or target objects. */
function targets(list, opts = {}) {
  return list.map((t, i) => {
    const refId = String.fromCharCode(65 + i);
    if (typeof t === 'string') return target(t, refId, opts);
    if (Array.isArray(t)) return target(t[0], refId, { ...opts, legend: t[1] });
    return target(t.expr, refId, { ...opts, ...t });
  });
}

const thresholds = (...steps) => ({
  mode: 'absolute',
  steps: [{ color: 'green', value: null }, ...steps.map(([value, color]) => ({ color, value }))],
});

function fieldConfig(unit, { min, max, decimals, steps, custom = {}, mappings = [], overrides = [], color } = {}) {
  return {
    defaults: {
      color: color ?? { mode: steps ? 'thresholds' : 'palette-classic' },
      custom,
      ...(decimals !== undefined ? { decimals } : {}),
      mappings,
      ...(max !== undefined ? { max } : {}),
      ...(min !== undefined ? { min } : {}),
      thresholds: steps ? thresholds(...steps) : thresholds(),
      unit,
    },
    overrides,
  };
}

function base(type, title, description, gridPos, tgts, fc, options, extra = {}) {
  return {
    type,
    title,
    description,
    datasource: DS,
    gridPos,
    fieldConfig: fc,
    options,
    targets: tgts,
    ...extra,
  };
}

function timeseries(title, description, gridPos, exprs, unit, o = {}) {
  const custom = {
    drawStyle: 'line',
    lineInterpolation: 'linear',
    lineWidth: 1,
    fillOpacity: o.stack ? 60 : 10,
    gradientMode: 'none',
    showPoints: 'never',
    spanNulls: false,
    axisSoftMin: 'softMin' in o ? o.softMin : 0,
    stacking: { mode: o.stack ? 'normal' : 'none', group: 'A' },
    thresholdsStyle: { mode: o.thresholdLines ? 'dashed' : 'off' },
  };
  return base(
    'timeseries',
    title,
    description,
    gridPos,
    targets(exprs),
    fieldConfig(unit, { ...o, custom, color: { mode: 'palette-classic' } }),
    {
      legend: {
        calcs: o.calcs ?? ['mean', 'max', 'lastNotNull'],
        displayMode: 'table',
        placement: 'bottom',
        showLegend: true,
      },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
  );
}

function stat(title, description, gridPos, exprs, unit, o = {}) {
  return base(
    'stat',
    title,
    description,
    gridPos,
    targets(exprs, { instant: true }),
    fieldConfig(unit, { steps: o.steps ?? [], ...o }),
    {
      colorMode: o.colorMode ?? 'value',
      graphMode: 'none',
      justifyMode: 'auto',
      orientation: 'auto',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      showPercentChange: false,
      textMode: 'auto',
      wideLayout: true,
    },
    o.timeFrom ? { timeFrom: o.timeFrom, hideTimeOverride: false } : {},
  );
}

function bargauge(title, description, gridPos, exprs, unit, o = {}) {
  return base(
    'bargauge',
    title,
    description,
    gridPos,
    targets(exprs, { instant: true }),
    fieldConfig(unit, { steps: o.steps ?? [], ...o }),
    {
      displayMode: 'gradient',
      maxVizHeight: 300,
      minVizHeight: 16,
      minVizWidth: 8,
      namePlacement: 'auto',
      orientation: 'horizontal',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      showUnfilled: true,
      sizing: 'auto',
      valueMode: 'color',
    },
    o.timeFrom ? { timeFrom: o.timeFrom, hideTimeOverride: false } : {},
  );
}

function table(title, description, gridPos, exprs, o) {
  return base(
    'table',
    title,
    description,
    gridPos,
    targets(exprs, { instant: true, table: true }),
    fieldConfig(o.unit ?? 'short', {
      custom: { align: 'auto', cellOptions: { type: 'auto' }, inspect: false },
      overrides: o.overrides ?? [],
    }),
    {
      cellHeight: 'sm',
      footer: { show: false, reducer: ['sum'], countRows: false, fields: '' },
      showHeader: true,
      sortBy: o.sortBy ?? [],
    },
    { transformations: o.transformations ?? [] },
  );
}

const row = (title, y) => ({
  type: 'row',
  title,
  collapsed: false,
  gridPos: { h: 1, w: 24, x: 0, y },
  panels: [],
});
const pos = (x, y, w, h) => ({ h, w, x, y });
const override = (name, properties) => ({ matcher: { id: 'byName', options: name }, properties });
const prop = (id, value) => ({ id, value });

const STATUS_COLORS = {
  asking: 'orange',
  working: 'green',
  delegating: 'blue',
  done: 'text',
  error: 'red',
  idle: '#808080',
};
const statusMappings = [
  {
    type: 'value',
    options: Object.fromEntries(
      Object.entries(STATUS_COLORS).map(([s, color], index) => [s, { color, index, text: s }]),
    ),
  },
];

// ------------------------------------------------------------------------------------------
// Variables

const datasourceVar = {
  current: {},
  hide: 0,
  includeAll: false,
  label: 'Data source',
  multi: false,
  name: 'datasource',
  options: [],
  query: 'prometheus',
  refresh: 1,
  regex: '',
  type: 'datasource',
};

function queryVar(name, label, query, { includeAll = true, multi = true } = {}) {
  return {
    allValue: '.*',
    current: {},
    datasource: DS,
    definition: query,
    hide: 0,
    includeAll,
    label,
    multi,
    name,
    options: [],
    query: { query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    refresh: 2,
    regex: '',
    skipUrlSync: false,
    sort: 1,
    type: 'query',
  };
}

const jobVar = queryVar('job', 'Job', 'label_values(coding_agent_exporter_build_info, job)');
const instanceVar = queryVar(
  'instance',
  'Instance',
  'label_values(coding_agent_exporter_build_info{job=~"$job"}, instance)',
);
const userVar = queryVar('user', 'Person', 'label_values(coding_agent_exporter_build_info{job=~"$job"}, user)');
const teamVar = queryVar('team', 'Team', 'label_values(coding_agent_exporter_build_info{job=~"$job"}, team)');
/** The variables in front of every dashboard: data source, exporter and person. */
const common = [datasourceVar, jobVar, instanceVar, userVar, teamVar];
const harnessVar = queryVar('harness', 'Harness', `label_values(coding_agent_sessions_started_total{${J}}, harness)`);
const projectVar = queryVar('project', 'Project', `label_values(coding_agent_sessions_started_total{${H}}, project)`);

function dashboard({ uid, title, description, panels, vars, time = 'now-24h', refresh = '1m' }) {
  let id = 1;
  const numbered = panels.map((p) => ({ id: id++, ...p }));
  return {
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    description,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: [
      {
        asDropdown: true,
        icon: 'external link',
        includeVars: true,
        keepTime: true,
        tags: [TAG],
        targetBlank: false,
        title: 'Coding agents',
        type: 'dashboards',
      },
    ],
    panels: numbered,
    refresh,
    schemaVersion: 39,
    tags: [TAG],
    templating: { list: vars },
    time: { from: time, to: 'now' },
    timepicker: {},
    timezone: '',
    title,
    uid,
    version: 1,
    weekStart: '',
  };
}

// ------------------------------------------------------------------------------------------
// Overview

const costRule = (window) => `sum(harness_project_model:coding_agent_cost_usd:${window}{${F}})`;
const costSoFar = 'sum(increase(coding_agent_cost_usd_total{' + F + '}[$__range]))';
const money = { decimals: 2 };
const PER_HOUR = 'suffix:/h';

const overview = dashboard({
  uid: 'coding-agent-overview',
  title: 'Coding agents / Overview',
  description: 'Spend, tokens, sessions, activity and usage limits of AI coding agents (coding-agent-exporter).',
  vars: [...common, harnessVar, projectVar],
  panels: [
    row('Spend (estimated, US dollars at list prices)', 0),
    stat(
      'Spend, last 24 h',
      'Estimated spend over the last 24 hours (rolling window, not since midnight), from the recording rule harness_project_model:coding_agent_cost_usd:increase1d.',
      pos(0, 1, 4, 4),
      [costRule('increase1d')],
      'currencyUSD',
      money,
    ),
    stat(
      'Spend, last 7 days',
      'Estimated spend over the last 7 x 24 hours (rolling window, not since Monday), from harness_project_model:coding_agent_cost_usd:increase7d.',
      pos(4, 1, 4, 4),
      [costRule('increase7d')],
      'currencyUSD',
      money,
    ),
    stat(
      'Spend, last 30 days',
      'Estimated spend over the last 30 x 24 hours (rolling window, not since the 1st), from harness_project_model:coding_agent_cost_usd:increase30d.',
      pos(8, 1, 4, 4),
      [costRule('increase30d')],
      'currencyUSD',
      money,
    ),
    stat(
      'Spend, today so far',
      'Estimated spend since midnight in the browser time zone: increase over $__range with the panel time fixed to now/d (calendar window).',
      pos(12, 1, 4, 4),
      [costSoFar],
      'currencyUSD',
      { ...money, timeFrom: 'now/d' },
    ),
    stat(
      'Spend, this week so far',
      'Estimated spend since the start of the week in the browser time zone: increase over $__range with the panel time fixed to now/w (calendar window).',
      pos(16, 1, 4, 4),
      [costSoFar],
      'currencyUSD',
      { ...money, timeFrom: 'now/w' },
    ),
    stat(
      'Spend, this month so far',
      'Estimated spend since the 1st of the month in the browser time zone: increase over $__range with the panel time fixed to now/M (calendar window).',
      pos(20, 1, 4, 4),
      [costSoFar],
      'currencyUSD',
      { ...money, timeFrom: 'now/M' },
    ),
    timeseries(
      'Spend rate by harness',
      'Estimated spend per hour, by harness.',
      pos(0, 5, 8, 8),
      [[`sum by (harness) (rate(coding_agent_cost_usd_total{${F}}[$__rate_interval])) * 3600`, '{{harness}}']],
      'currencyUSD',
      money,
    ),
    timeseries(
      'Spend rate by project',
      'Estimated spend per hour, by project.',
      pos(8, 5, 8, 8),
      [[`sum by (project) (rate(coding_agent_cost_usd_total{${F}}[$__rate_interval])) * 3600`, '{{project}}']],
      'currencyUSD',
      money,
    ),
    timeseries(
      'Spend rate by model',
      'Estimated spend per hour, by model.',
      pos(16, 5, 8, 8),
      [[`sum by (model) (rate(coding_agent_cost_usd_total{${F}}[$__rate_interval])) * 3600`, '{{model}}']],
      'currencyUSD',
      money,
    ),
    bargauge(
      'Spend by project, last 24 h',
      'Estimated spend per project over the last 24 hours (rolling), from the recording rule.',
      pos(0, 13, 12, 8),
      [[`sort_desc(sum by (project) (harness_project_model:coding_agent_cost_usd:increase1d{${F}}))`, '{{project}}']],
      'currencyUSD',
      money,
    ),
    bargauge(
      'Spend by model, last 24 h',
      'Estimated spend per model over the last 24 hours (rolling), from the recording rule.',
      pos(12, 13, 12, 8),
      [[`sort_desc(sum by (model) (harness_project_model:coding_agent_cost_usd:increase1d{${F}}))`, '{{model}}']],
      'currencyUSD',
      money,
    ),

    row('Tokens', 21),
    timeseries(
      'Tokens by type',
      'Tokens per second by type. input excludes cache reads and writes; output includes reasoning, which is also shown on its own.',
      pos(0, 22, 12, 8),
      [
        [`sum by (token_type) (rate(coding_agent_tokens_total{${F}}[$__rate_interval]))`, '{{token_type}}'],
        [`sum(rate(coding_agent_reasoning_tokens_total{${F}}[$__rate_interval]))`, 'reasoning (part of output)'],
      ],
      'suffix: tok/s',
    ),
    timeseries(
      'Cache hit ratio',
      'Share of prompt tokens served from the prompt cache: cache_read / (input + cache_read + cache_write), by harness.',
      pos(12, 22, 8, 8),
      [
        [
          `sum by (harness) (rate(coding_agent_tokens_total{${F},token_type="cache_read"}[$__rate_interval]))
/
(sum by (harness) (rate(coding_agent_tokens_total{${F},token_type=~"input|cache_read|cache_write"}[$__rate_interval])) > 0)`,
          '{{harness}}',
        ],
      ],
      'percentunit',
      { min: 0, max: 1 },
    ),
    stat(
      'Cache hit ratio, last hour',
      'Cache hit ratio of the last hour per harness and instance (recording rule harness:coding_agent_tokens_cache_hit:ratio_rate1h; not filtered by project).',
      pos(20, 22, 4, 8),
      [[`harness:coding_agent_tokens_cache_hit:ratio_rate1h{${H}}`, '{{harness}} {{instance}}']],
      'percentunit',
      { min: 0, max: 1, steps: [], color: { mode: 'fixed', fixedColor: 'blue' } },
    ),

    row('Sessions', 30),
    stat(
      'Sessions by status',
      'Sessions active within the activity window, by status, now.',
      pos(0, 31, 12, 5),
      [[`sum by (status) (coding_agent_sessions{${F}})`, '{{status}}']],
      'short',
      {
        color: { mode: 'fixed', fixedColor: 'text' },
        overrides: Object.entries(STATUS_COLORS).map(([s, c]) =>
          override(s, [prop('color', { mode: 'fixed', fixedColor: c })]),
        ),
      },
    ),
    stat(
      'Sessions needing you',
      'Sessions asking you something (question, approval, input) or whose last turn failed, now. See the Sessions dashboard for which ones.',
      pos(12, 31, 4, 5),
      [`sum(coding_agent_sessions{${F},status=~"asking|error"})`],
      'short',
      { steps: [[1, 'orange']], colorMode: 'background' },
    ),
    stat(
      'Sessions not idle',
      'Sessions that are asking, working, delegating, done or in error, now.',
      pos(16, 31, 4, 5),
      [`sum(coding_agent_sessions{${F},status!="idle"})`],
      'short',
      { color: { mode: 'fixed', fixedColor: 'blue' } },
    ),
    stat(
      'Subagents running',
      'Subagents that sessions are running now.',
      pos(20, 31, 4, 5),
      [`sum(coding_agent_session_subagents{${F}})`],
      'short',
      { color: { mode: 'fixed', fixedColor: 'purple' } },
    ),
    timeseries(
      'Sessions by status over time',
      'Sessions active within the activity window, by status.',
      pos(0, 36, 12, 8),
      [[`sum by (status) (coding_agent_sessions{${F},status!="idle"})`, '{{status}}']],
      'short',
      {
        stack: true,
        overrides: Object.entries(STATUS_COLORS).map(([s, c]) =>
          override(s, [prop('color', { mode: 'fixed', fixedColor: c })]),
        ),
      },
    ),
    timeseries(
      'Sessions started',
      'New sessions per hour, by harness.',
      pos(12, 36, 12, 8),
      [[`sum by (harness) (rate(coding_agent_sessions_started_total{${F}}[$__rate_interval])) * 3600`, '{{harness}}']],
      PER_HOUR,
    ),

    row('Activity', 44),
    timeseries(
      'Prompts and turns',
      'Prompts typed by a person and turns that ended (by outcome), per hour.',
      pos(0, 45, 8, 8),
      [
        [`sum(rate(coding_agent_prompts_total{${F}}[$__rate_interval])) * 3600`, 'prompts'],
        [`sum by (outcome) (rate(coding_agent_turns_total{${F}}[$__rate_interval])) * 3600`, 'turns {{outcome}}'],
      ],
      PER_HOUR,
    ),
    timeseries(
      'Tool calls by kind',
      'Tool calls the model made per hour, by kind of tool.',
      pos(8, 45, 8, 8),
      [[`sum by (kind) (rate(coding_agent_tool_calls_total{${F}}[$__rate_interval])) * 3600`, '{{kind}}']],
      PER_HOUR,
      { stack: true },
    ),
    timeseries(
      'Tool error ratio by kind',
      'Share of tool calls that failed or were rejected, by kind of tool.',
      pos(16, 45, 8, 8),
      [
        [
          `sum by (kind) (rate(coding_agent_tool_errors_total{${F}}[$__rate_interval]))
/
(sum by (kind) (rate(coding_agent_tool_calls_total{${F}}[$__rate_interval])) > 0)`,
          '{{kind}}',
        ],
      ],
      'percentunit',
      { min: 0, max: 1 },
    ),
    timeseries(
      'Lines changed',
      'Lines added (positive) and removed (negative) by file edits the agent made, per hour, by harness.',
      pos(0, 53, 12, 8),
      [
        [`sum by (harness) (rate(coding_agent_lines_added_total{${F}}[$__rate_interval])) * 3600`, '{{harness}} added'],
        [
          `-sum by (harness) (rate(coding_agent_lines_removed_total{${F}}[$__rate_interval])) * 3600`,
          '{{harness}} removed',
        ],
      ],
      PER_HOUR,
      { softMin: undefined },
    ),
    timeseries(
      'Context compactions',
      'Context compactions (automatic or manual) per hour, by harness.',
      pos(12, 53, 12, 8),
      [[`sum by (harness) (rate(coding_agent_compactions_total{${F}}[$__rate_interval])) * 3600`, '{{harness}}']],
      PER_HOUR,
    ),

    row('Usage limits', 61),
    bargauge(
      'Usage-limit windows',
      'Share of each usage-limit window already used, as last reported by the harness (not filtered by project).',
      pos(0, 62, 12, 8),
      [[`max by (harness, window) (coding_agent_usage_limit_used_ratio{${H}})`, '{{harness}} {{window}}']],
      'percentunit',
      {
        min: 0,
        max: 1,
        steps: [
          [0.75, 'orange'],
          [0.9, 'red'],
        ],
      },
    ),
    table(
      'Usage-limit resets',
      'Usage-limit windows with their share used and when they reset (not filtered by project).',
      pos(12, 62, 12, 8),
      [
        `max by (harness, window) (coding_agent_usage_limit_used_ratio{${H}})`,
        `max by (harness, window) (coding_agent_usage_limit_resets_timestamp_seconds{${H}}) * 1000`,
        `max by (harness, window) (coding_agent_usage_limit_resets_timestamp_seconds{${H}}) * 1000`,
      ],
      {
        transformations: [
          { id: 'merge', options: {} },
          {
            id: 'organize',
            options: {
              excludeByName: { Time: true },
              indexByName: { harness: 0, window: 1, 'Value #A': 2, 'Value #B': 3, 'Value #C': 4 },
              renameByName: { 'Value #A': 'Used', 'Value #B': 'Resets', 'Value #C': 'Resets at' },
            },
          },
        ],
        overrides: [
          override('Used', [
            prop('unit', 'percentunit'),
            prop('min', 0),
            prop('max', 1),
            prop('thresholds', thresholds([0.75, 'orange'], [0.9, 'red'])),
            prop('color', { mode: 'thresholds' }),
            prop('custom.cellOptions', { type: 'gauge', mode: 'basic' }),
          ]),
          override('Resets', [prop('unit', 'dateTimeFromNow')]),
          override('Resets at', [prop('unit', 'dateTimeAsLocal')]),
        ],
      },
    ),
    timeseries(
      'Premium requests',
      "Premium requests billed against the plan's allowance per hour, by harness and model (GitHub Copilot CLI records them when a run ends).",
      pos(0, 70, 12, 8),
      [
        [
          `sum by (harness, model) (rate(coding_agent_premium_requests_total{${F}}[$__rate_interval])) * 3600`,
          '{{harness}} {{model}}',
        ],
      ],
      PER_HOUR,
    ),
    timeseries(
      'Usage-limit windows: used and projected at reset',
      'Share of each usage-limit window used, and where it gets by its reset at the pace of the last 30 minutes (the CodingAgentUsageLimitProjectedExhausted alert fires at 100 %; CodingAgentUsageLimitAlmostReached at 90 % used). Not filtered by project.',
      pos(12, 70, 12, 8),
      [
        [`max by (harness, window) (coding_agent_usage_limit_used_ratio{${H}})`, '{{harness}} {{window}} used'],
        [
          `max by (harness, window) (harness_window:coding_agent_usage_limit_used_ratio:predict30m_at_reset{${H}})`,
          '{{harness}} {{window}} projected at reset',
        ],
      ],
      'percentunit',
      {
        min: 0,
        thresholdLines: true,
        steps: [
          [0.9, 'orange'],
          [1, 'red'],
        ],
        calcs: ['lastNotNull', 'max'],
      },
    ),
    timeseries(
      '5-hour blocks (estimate)',
      "Cost of the 5-hour block running now per harness, and what it reaches by the block's end at its burn rate so far (blocks as ccusage computes them: an estimate of the 5-hour window where no harness reports one, e.g. API keys). Not filtered by project.",
      pos(0, 78, 24, 8),
      [
        [`max by (harness) (coding_agent_usage_block_cost_usd{${H}})`, '{{harness}} block'],
        [`max by (harness) (coding_agent_usage_block_projected_cost_usd{${H}})`, '{{harness}} projected at block end'],
      ],
      'currencyUSD',
      { calcs: ['lastNotNull', 'max'] },
    ),
  ],
});

// ------------------------------------------------------------------------------------------
// Sessions

const last = `coding_agent_session_last_activity_timestamp_seconds{${F}}`;
const status = (s) => `coding_agent_session_status{${F},status="${s}"}`;
/** Sessions with status s whose transcript has been silent longer than the threshold rule. */
const silent = (s, threshold) => `max by (${SESSION}) (
  (time() - ${last}) > on() group_left() coding_agent:${threshold}:threshold
  and on (${SESSION}) (${status(s)} == 1)
)`;

const sessions = dashboard({
  uid: 'coding-agent-sessions',
  title: 'Coding agents / Sessions',
  description:
    'Live coding-agent sessions: status, context use, cost, stuck and waiting sessions (coding-agent-exporter).',
  time: 'now-6h',
  refresh: '30s',
  vars: [...common, harnessVar, projectVar],
  panels: [
    row('Now', 0),
    stat(
      'Sessions needing you',
      'Sessions asking you something (question, approval, input) or whose last turn failed.',
      pos(0, 1, 6, 4),
      [`sum(coding_agent_sessions{${F},status=~"asking|error"})`],
      'short',
      { steps: [[1, 'orange']], colorMode: 'background' },
    ),
    stat(
      'Waiting for you too long',
      'Sessions asking for longer than the threshold rule coding_agent:session_asking_seconds:threshold (alert CodingAgentSessionWaitingForUser).',
      pos(6, 1, 6, 4),
      [`count(${silent('asking', 'session_asking_seconds')}) or vector(0)`],
      'short',
      { steps: [[1, 'orange']], colorMode: 'background' },
    ),
    stat(
      'Stuck sessions',
      'Sessions working with no transcript activity for longer than coding_agent:session_stuck_seconds:threshold (alert CodingAgentSessionStuck).',
      pos(12, 1, 6, 4),
      [`count(${silent('working', 'session_stuck_seconds')}) or vector(0)`],
      'short',
      { steps: [[1, 'red']], colorMode: 'background' },
    ),
    stat(
      'Sessions not idle',
      'Sessions that are not idle (asking, working, delegating, done or error).',
      pos(18, 1, 6, 4),
      [`sum(coding_agent_sessions{${F},status!="idle"})`],
      'short',
      { color: { mode: 'fixed', fixedColor: 'blue' } },
    ),
    table(
      'Live sessions',
      'One row per session that is not idle. Attention: "waiting for you" and "stuck" use the same thresholds as the alerts; "turn failed" is status error. Turn running for is empty when no turn is open.',
      pos(0, 5, 24, 12),
      [
        `max by (${SESSION}, status, reason) (coding_agent_session_status{${F}} == 1)`,
        `max by (${SESSION}, model) (coding_agent_session_context_tokens{${F}})`,
        `max by (${SESSION}, model) (coding_agent_session_context_limit_tokens{${F}})`,
        `max by (${SESSION}, model) (coding_agent_session_context_tokens{${F}})
/
max by (${SESSION}, model) (coding_agent_session_context_limit_tokens{${F}} > 0)`,
        `max by (${SESSION}) (coding_agent_session_cost_usd{${F}})`,
        `time() - max by (${SESSION}) (${last})`,
        `time() - max by (${SESSION}) (coding_agent_session_turn_started_timestamp_seconds{${F}})`,
        `max by (${SESSION}) (coding_agent_session_subagents{${F}})`,
        `(${silent('working', 'session_stuck_seconds')} * 0 + 2)
or
(${silent('asking', 'session_asking_seconds')} * 0 + 1)
or
(max by (${SESSION}) (${status('error')} == 1) * 0 + 3)`,
      ],
      {
        sortBy: [{ displayName: 'Attention', desc: true }],
        transformations: [
          { id: 'merge', options: {} },
          {
            id: 'organize',
            options: {
              excludeByName: { Time: true, job: true, 'Value #A': true },
              indexByName: {
                'Value #I': 0,
                instance: 1,
                user: 2,
                team: 3,
                harness: 4,
                project: 5,
                session_id: 6,
                status: 7,
                reason: 8,
                model: 9,
                'Value #D': 10,
                'Value #B': 11,
                'Value #C': 12,
                'Value #E': 13,
                'Value #F': 14,
                'Value #G': 15,
                'Value #H': 16,
              },
              renameByName: {
                'Value #I': 'Attention',
                'Value #B': 'Context tokens',
                'Value #C': 'Context limit',
                'Value #D': 'Context used',
                'Value #E': 'Cost so far',
                'Value #F': 'Since last activity',
                'Value #G': 'Turn running for',
                'Value #H': 'Subagents',
              },
            },
          },
        ],
        overrides: [
          override('Attention', [
            prop('mappings', [
              {
                type: 'value',
                options: {
                  1: { color: 'orange', index: 0, text: 'waiting for you' },
                  2: { color: 'red', index: 1, text: 'stuck' },
                  3: { color: 'red', index: 2, text: 'turn failed' },
                },
              },
            ]),
            prop('custom.cellOptions', { type: 'color-background', mode: 'basic' }),
            prop('unit', 'none'),
          ]),
          override('status', [prop('mappings', statusMappings), prop('custom.cellOptions', { type: 'color-text' })]),
          override('Context used', [
            prop('unit', 'percentunit'),
            prop('min', 0),
            prop('max', 1),
            prop('thresholds', thresholds([0.75, 'orange'], [0.9, 'red'])),
            prop('color', { mode: 'thresholds' }),
            prop('custom.cellOptions', { type: 'gauge', mode: 'basic' }),
          ]),
          override('Cost so far', [prop('unit', 'currencyUSD'), prop('decimals', 2)]),
          override('Since last activity', [
            prop('unit', 's'),
            prop('decimals', 0),
            prop('thresholds', thresholds([600, 'orange'], [900, 'red'])),
            prop('color', { mode: 'thresholds' }),
            prop('custom.cellOptions', { type: 'color-text' }),
          ]),
          override('Turn running for', [prop('unit', 's'), prop('decimals', 0)]),
        ],
      },
    ),

    row('Per session', 17),
    timeseries(
      'Context fill per session',
      "Tokens in the context window at the last request divided by the model's context window. The dashed line is the 90 % alert threshold (CodingAgentContextWindowAlmostFull).",
      pos(0, 18, 12, 8),
      [
        [
          `max by (harness, project, session_id, model) (coding_agent_session_context_tokens{${F}})
/
max by (harness, project, session_id, model) (coding_agent_session_context_limit_tokens{${F}} > 0)`,
          '{{project}} {{session_id}} ({{model}})',
        ],
      ],
      'percentunit',
      {
        min: 0,
        max: 1,
        steps: [[0.9, 'red']],
        thresholdLines: true,
        calcs: ['lastNotNull', 'max'],
      },
    ),
    timeseries(
      'Cost per session',
      'Estimated cost of each session so far.',
      pos(12, 18, 12, 8),
      [[`max by (harness, project, session_id) (coding_agent_session_cost_usd{${F}})`, '{{project}} {{session_id}}']],
      'currencyUSD',
      { ...money, calcs: ['lastNotNull', 'max'] },
    ),
    timeseries(
      'Time since last activity',
      "Seconds since the last record written to each session's transcript. Dashed lines: 10 min (asking alert) and 15 min (stuck alert); the alerts also need the matching status.",
      pos(0, 26, 12, 8),
      [[`time() - max by (harness, project, session_id) (${last})`, '{{project}} {{session_id}}']],
      's',
      {
        steps: [
          [600, 'orange'],
          [900, 'red'],
        ],
        thresholdLines: true,
        calcs: ['lastNotNull', 'max'],
      },
    ),
    timeseries(
      'Turn running for',
      'How long the open turn of each session has been running (no line when no turn is open).',
      pos(12, 26, 12, 8),
      [
        [
          `time() - max by (harness, project, session_id) (coding_agent_session_turn_started_timestamp_seconds{${F}})`,
          '{{project}} {{session_id}}',
        ],
      ],
      's',
      { calcs: ['lastNotNull', 'max'] },
    ),
    timeseries(
      'Subagents per session',
      'Subagents each session is running.',
      pos(0, 34, 12, 8),
      [
        [
          `max by (harness, project, session_id) (coding_agent_session_subagents{${F}}) > 0`,
          '{{project}} {{session_id}}',
        ],
      ],
      'short',
      { calcs: ['lastNotNull', 'max'] },
    ),
    bargauge(
      'Plan progress',
      "Share of each session's plan (todo list) completed, cancelled items left out; for the harnesses that record a plan.",
      pos(0, 42, 12, 8),
      [
        [
          `sum by (harness, project, session_id) (coding_agent_session_todos{${F},state="completed"})
/
(sum by (harness, project, session_id) (coding_agent_session_todos{${F},state!="cancelled"}) > 0)`,
          '{{project}} {{session_id}}',
        ],
      ],
      'percentunit',
      { min: 0, max: 1 },
    ),
    timeseries(
      'Sessions by status over time',
      'Sessions active within the activity window, by status (idle excluded).',
      pos(12, 34, 12, 8),
      [[`sum by (status) (coding_agent_sessions{${F},status!="idle"})`, '{{status}}']],
      'short',
      {
        stack: true,
        overrides: Object.entries(STATUS_COLORS).map(([s, c]) =>
          override(s, [prop('color', { mode: 'fixed', fixedColor: c })]),
        ),
      },
    ),

    row('Processes', 50),
    table(
      'Live processes and running tools',
      'Sessions a live agent process owns, how the process was joined to the session (registry, open-file, environment, command-line, cwd), and the tool call still open in each, with how long it has been running.',
      pos(0, 51, 24, 8),
      [
        `max by (${SESSION}, attribution) (coding_agent_session_process_info{${F}})`,
        `time() - max by (${SESSION}, tool, kind) (coding_agent_session_tool_started_timestamp_seconds{${F}})`,
      ],
      {
        transformations: [
          { id: 'merge', options: {} },
          {
            id: 'organize',
            options: {
              excludeByName: { Time: true, job: true, 'Value #A': true },
              indexByName: {
                instance: 0,
                user: 1,
                team: 2,
                harness: 3,
                project: 4,
                session_id: 5,
                attribution: 6,
                tool: 7,
                kind: 8,
                'Value #B': 9,
              },
              renameByName: { 'Value #B': 'Tool running for' },
            },
          },
        ],
        overrides: [override('Tool running for', [prop('unit', 's'), prop('decimals', 0)])],
      },
    ),
    timeseries(
      'Agent processes',
      'Agent processes running now per harness, joined to a session or not (their MCP servers, shells and tools count under them).',
      pos(0, 59, 8, 8),
      [[`sum by (harness) (coding_agent_processes{${H}})`, '{{harness}}']],
      'short',
      { calcs: ['lastNotNull', 'max'] },
    ),
    timeseries(
      'Agent CPU',
      'CPU cores the agent processes and their children used, per harness.',
      pos(8, 59, 8, 8),
      [[`sum by (harness) (coding_agent_process_cpu_ratio{${H}})`, '{{harness}}']],
      'short',
      { calcs: ['lastNotNull', 'max'] },
    ),
    timeseries(
      'Agent memory',
      'Resident memory of the agent processes and their children, per harness.',
      pos(16, 59, 8, 8),
      [[`sum by (harness) (coding_agent_process_resident_memory_bytes{${H}})`, '{{harness}}']],
      'bytes',
      { calcs: ['lastNotNull', 'max'] },
    ),
  ],
});

// ------------------------------------------------------------------------------------------
// Exporter health

const upMappings = [
  {
    type: 'value',
    options: {
      0: { color: 'red', index: 0, text: 'down' },
      1: { color: 'green', index: 1, text: 'up' },
    },
  },
];
const okMappings = [
  {
    type: 'value',
    options: {
      0: { color: 'red', index: 0, text: 'failing' },
      1: { color: 'green', index: 1, text: 'ok' },
    },
  },
];

const health = dashboard({
  uid: 'coding-agent-exporter-health',
  title: 'Coding agents / Exporter health',
  description: 'Health of coding-agent-exporter itself: scrapes, collectors, files, skipped records, unpriced tokens.',
  vars: common,
  panels: [
    row('Exporter', 0),
    stat(
      'Scrape target',
      'Whether Prometheus can scrape the exporter (up). Pull mode only: with OTLP push there is no up series.',
      pos(0, 1, 6, 4),
      [[`up{${J}}`, '{{instance}}']],
      'none',
      { mappings: upMappings, colorMode: 'background' },
    ),
    stat(
      'Collectors failing',
      'Collectors whose last scan failed (alert CodingAgentCollectorFailing after 10 minutes).',
      pos(6, 1, 6, 4),
      [`count(coding_agent_exporter_collector_success{${J}} == 0) or vector(0)`],
      'short',
      { steps: [[1, 'red']], colorMode: 'background' },
    ),
    table(
      'Build info',
      'Exporter version and Node.js version per instance (coding_agent_exporter_build_info).',
      pos(12, 1, 6, 4),
      [`max by (instance, version, node_version) (coding_agent_exporter_build_info{${J}})`],
      {
        transformations: [{ id: 'organize', options: { excludeByName: { Time: true, Value: true } } }],
      },
    ),
    table(
      'Price table',
      'The price table in use per instance (coding_agent_exporter_pricing_info).',
      pos(18, 1, 6, 4),
      [`max by (instance, source, version) (coding_agent_exporter_pricing_info{${J}})`],
      {
        transformations: [{ id: 'organize', options: { excludeByName: { Time: true, Value: true } } }],
      },
    ),
    timeseries(
      'Scrape duration',
      'How long Prometheus takes to scrape the exporter (scrape_duration_seconds); the default scrape timeout is 10 s.',
      pos(0, 5, 12, 8),
      [[`scrape_duration_seconds{${J}}`, '{{instance}}']],
      's',
    ),
    timeseries(
      'Unpriced tokens',
      'Tokens of models without a known price, per interval (their cost is missing from the spend panels; alert CodingAgentUnpricedTokens).',
      pos(12, 5, 12, 8),
      [
        [
          `sum by (harness, model) (increase(coding_agent_exporter_unpriced_tokens_total{${J}}[$__rate_interval]))`,
          '{{harness}} {{model}}',
        ],
      ],
      'short',
    ),

    row('Collectors', 13),
    stat(
      'Collector status',
      'Whether the last scan of each collector succeeded.',
      pos(0, 14, 12, 4),
      [[`min by (collector) (coding_agent_exporter_collector_success{${J}})`, '{{collector}}']],
      'none',
      { mappings: okMappings, colorMode: 'background' },
    ),
    stat(
      'Time since last successful scan',
      'Seconds since the last successful scan of each collector.',
      pos(12, 14, 12, 4),
      [
        [
          `time() - max by (collector) (coding_agent_exporter_collector_last_success_timestamp_seconds{${J}})`,
          '{{collector}}',
        ],
      ],
      's',
      {
        steps: [
          [300, 'orange'],
          [900, 'red'],
        ],
      },
    ),
    timeseries(
      'Collector scan duration',
      'Duration of the last scan of each collector.',
      pos(0, 18, 12, 8),
      [
        [
          `max by (instance, collector) (coding_agent_exporter_collector_duration_seconds{${J}})`,
          '{{collector}} {{instance}}',
        ],
      ],
      's',
    ),
    timeseries(
      'Files tracked',
      'Session files each collector tracks.',
      pos(12, 18, 12, 8),
      [[`sum by (instance, collector) (coding_agent_exporter_files{${J}})`, '{{collector}} {{instance}}']],
      'short',
    ),
    timeseries(
      'Bytes read',
      'Bytes per second read from session files, by collector.',
      pos(0, 26, 12, 8),
      [
        [
          `sum by (instance, collector) (rate(coding_agent_exporter_read_bytes_total{${J}}[$__rate_interval]))`,
          '{{collector}} {{instance}}',
        ],
      ],
      'Bps',
    ),
    timeseries(
      'Skipped records by reason',
      'Records per second skipped because they could not be used, by collector and reason. A rise after a harness upgrade usually means its file format changed.',
      pos(12, 26, 12, 8),
      [
        [
          `sum by (collector, reason) (rate(coding_agent_exporter_skipped_records_total{${J}}[$__rate_interval]))`,
          '{{collector}} {{reason}}',
        ],
      ],
      'recps',
    ),

    row('Readers and processes', 34),
    stat(
      'Drifted sessions',
      "Sessions that did work while the reader counted no tokens for them: the reader fell behind its harness's format (alert CodingAgentReaderDrift).",
      pos(0, 35, 6, 8),
      [`sum(coding_agent_exporter_drift_sessions{${J}}) or vector(0)`],
      'short',
      { steps: [[1, 'orange']], colorMode: 'background' },
    ),
    timeseries(
      'Drifted sessions by collector',
      "Sessions with work and no tokens, per collector. The exporter logs the first one of each collector with its file's path.",
      pos(6, 35, 9, 8),
      [[`max by (instance, collector) (coding_agent_exporter_drift_sessions{${J}})`, '{{collector}} {{instance}}']],
      'short',
    ),
    timeseries(
      'Agent processes seen',
      'Agent processes the process scan finds, per harness: 0 everywhere while agents run means the exporter cannot see the process table (a container, or processes.enabled off).',
      pos(15, 35, 9, 8),
      [[`sum by (instance, harness) (coding_agent_processes{${J}})`, '{{harness}} {{instance}}']],
      'short',
    ),
  ],
});

// ------------------------------------------------------------------------------------------
// Team: many exporters in one store (deploy/team/). `user` and `team` are target labels the
// Prometheus agent of each machine adds (or resource attributes through the Collector); where
// they are absent the variables' All (.*) still matches, and the panels show one unnamed person.

const spendToday = (by, only = '') => `sum by (${by}) (increase(coding_agent_cost_usd_total{${F}${only}}[$__range]))`;
/** Spend per person as CodingAgentDailyBudgetExceeded counts it: per user, or per instance where no user label names the person. */
const spendTodayPerPerson = `(${spendToday('user', ',user!=""')}
or
${spendToday('instance', ',user=""')})`;
const today = { ...money, timeFrom: 'now/d' };

const team = dashboard({
  uid: 'coding-agent-team',
  title: 'Coding agents / Team',
  description:
    "Spend, budgets and sessions of a team: every member's exporter in one store, told apart by the user and team labels (deploy/team/).",
  vars: [...common, harnessVar, projectVar],
  panels: [
    row('Spend today (since midnight in the browser time zone, estimated US dollars at list prices)', 0),
    bargauge(
      'Spend by person, today',
      'Estimated spend of each person since midnight (increase over $__range with the panel time fixed to now/d).',
      pos(0, 1, 8, 8),
      [[`sort_desc(${spendToday('user')})`, '{{user}}']],
      'currencyUSD',
      today,
    ),
    bargauge(
      'Spend by team, today',
      'Estimated spend of each team since midnight.',
      pos(8, 1, 8, 8),
      [[`sort_desc(${spendToday('team')})`, '{{team}}']],
      'currencyUSD',
      today,
    ),
    bargauge(
      'Spend by project, today',
      'Estimated spend on each project since midnight, everyone together.',
      pos(16, 1, 8, 8),
      [[`sort_desc(${spendToday('project')})`, '{{project}}']],
      'currencyUSD',
      today,
    ),
    bargauge(
      'Top models, today',
      'The ten models with the most estimated spend since midnight, everyone together.',
      pos(0, 9, 8, 8),
      [[`topk(10, ${spendToday('model')})`, '{{model}}']],
      'currencyUSD',
      today,
    ),
    bargauge(
      'Budget burn, today',
      "Each person's spend since midnight, over all their machines, as a share of the daily budget (threshold rule coding_agent:daily_budget_usd:threshold); an instance stands for the person where no user label names them. The alert CodingAgentDailyBudgetExceeded counts the same way over the rolling 24 hours.",
      pos(8, 9, 8, 8),
      [
        [
          `sort_desc(${spendTodayPerPerson} / on() group_left() coding_agent:daily_budget_usd:threshold)`,
          '{{user}}{{instance}}',
        ],
      ],
      'percentunit',
      {
        min: 0,
        max: 1,
        steps: [
          [0.8, 'orange'],
          [1, 'red'],
        ],
        timeFrom: 'now/d',
      },
    ),
    bargauge(
      'Sessions needing someone',
      'Sessions asking their person something (question, approval, input) or whose last turn failed, now, by person.',
      pos(16, 9, 8, 8),
      [[`sort_desc(sum by (user) (coding_agent_sessions{${F},status=~"asking|error"}))`, '{{user}}']],
      'short',
      { steps: [[1, 'orange']] },
    ),
    row('Over time', 17),
    timeseries(
      'Spend rate by person',
      'Estimated spend per hour, by person.',
      pos(0, 18, 12, 8),
      [[`sum by (user) (rate(coding_agent_cost_usd_total{${F}}[$__rate_interval])) * 3600`, '{{user}}']],
      'currencyUSD',
      money,
    ),
    timeseries(
      'Spend rate by team',
      'Estimated spend per hour, by team.',
      pos(12, 18, 12, 8),
      [[`sum by (team) (rate(coding_agent_cost_usd_total{${F}}[$__rate_interval])) * 3600`, '{{team}}']],
      'currencyUSD',
      money,
    ),
  ],
});

// ------------------------------------------------------------------------------------------

export const dashboards = {
  'overview.json': overview,
  'sessions.json': sessions,
  'exporter-health.json': health,
  'team.json': team,
};

export function render(d) {
  return `${JSON.stringify(d, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(dirname(fileURLToPath(import.meta.url)), 'dashboards');
  for (const [file, d] of Object.entries(dashboards)) {
    writeFileSync(join(out, file), render(d));
    console.log(`wrote ${join(out, file)}`);
  }
}
