// The live page: polls the exporter's JSON every two seconds and redraws. Text goes into the page
// only through textContent (project names and models are data, never markup).
import { compact, costText, elapsed, timeLeft, usd } from '/format.js';

const ORDER = ['asking', 'error', 'working', 'delegating', 'done', 'idle'];
const samples = []; // [time ms, tokens_total] over the last minute, for tokens per minute

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/** How long since `iso`: `12m`. */
const since = (iso, now) => elapsed(now - Date.parse(iso));

/** How long since the last activity; an agent no session file is joined to has none recorded: it runs now. */
function ago(iso, now) {
  return iso === null ? 'now' : `${since(iso, now)} ago`;
}

/** The running tool, and for how long it has run: `Bash 12m`. */
function toolCell(s, now) {
  const t = s.running_tool;
  return el('td', t ? (t.started_at ? `${t.tool} ${since(t.started_at, now)}` : t.tool) : '–', 'p3');
}

function contextCell(s) {
  const td = el('td', undefined, 'p3');
  if (s.context_tokens === null) return ((td.textContent = '–'), td);
  if (s.context_limit_tokens) {
    const ratio = Math.min(1, s.context_tokens / s.context_limit_tokens);
    const bar = el('span', undefined, ratio >= 0.9 ? 'bar full' : 'bar');
    const fill = el('i');
    fill.style.width = `${Math.round(ratio * 100)}%`;
    bar.append(fill);
    td.append(bar, `${compact(s.context_tokens)}/${compact(s.context_limit_tokens)}`);
  } else td.textContent = compact(s.context_tokens);
  return td;
}

/**
 * A row per usage-limit window: its share as a bar (yellow from 75 %, red from 90 %, as `top` and
 * the dashboards), and the time to its reset, worked out here from `resets_at` (the JSON is
 * rendered once per change). A window whose reset time has passed started over: left out.
 */
function renderLimits(limits, now) {
  const rows = limits
    .filter((l) => l.resets_at === null || Date.parse(l.resets_at) > now)
    .map((l) => {
      const ratio = Math.min(1, Math.max(0, l.used_ratio));
      const bar = el('span', undefined, ratio >= 0.9 ? 'bar full' : ratio >= 0.75 ? 'bar near' : 'bar');
      const fill = el('i');
      fill.style.width = `${Math.round(ratio * 100)}%`;
      bar.append(fill);
      const used = el('td');
      used.append(bar, `${Math.round(ratio * 100)}%`);
      const tr = el('tr');
      tr.append(
        el('td', l.harness),
        el('td', l.window),
        used,
        el('td', l.resets_at === null ? '–' : timeLeft(Date.parse(l.resets_at), now)),
      );
      return tr;
    });
  document.querySelector('#limits tbody').replaceChildren(...rows);
  document.getElementById('limits').hidden = rows.length === 0;
}

const SVG = 'http://www.w3.org/2000/svg';
const CHART_DAYS = 30;

/** The last 30 days' spend: a bar a day against the largest day, today on the right; their total beside. */
function renderHistory(days) {
  document.getElementById('history').hidden = days.length === 0;
  const shown = days.slice(-CHART_DAYS);
  const max = Math.max(0, ...shown.map((d) => d.cost_usd));
  const bars = shown.map((d, i) => {
    const rect = document.createElementNS(SVG, 'rect');
    // A day without spend is a muted line on the floor: there, but nothing spent.
    const h = d.cost_usd > 0 ? Math.max(1, (d.cost_usd / max) * 40) : 1;
    const attrs = { x: (CHART_DAYS - shown.length + i) * 10 + 1, y: 40 - h, width: 8, height: h };
    for (const [k, v] of Object.entries(attrs)) rect.setAttribute(k, String(v));
    if (!(d.cost_usd > 0)) rect.setAttribute('class', 'none');
    const title = document.createElementNS(SVG, 'title');
    title.textContent = `${d.date}: ${usd(d.cost_usd)}`;
    rect.append(title);
    return rect;
  });
  document.getElementById('spend-chart').replaceChildren(...bars);
  document.getElementById('spend-30d').textContent = usd(shown.reduce((a, d) => a + d.cost_usd, 0));
}

function renderSessions(sessions, now) {
  const activity = (s) => (s.last_activity_at === null ? now : Date.parse(s.last_activity_at));
  const rows = sessions
    .slice()
    .sort((a, b) => ORDER.indexOf(a.status) - ORDER.indexOf(b.status) || activity(b) - activity(a))
    .map((s) => {
      const tr = el('tr', undefined, `row-${s.status}`);
      // An agent no session file is joined to is known by its process.
      tr.dataset.session = s.session_id ?? `pid ${s.process.pid}`;
      tr.append(
        el('td', s.harness),
        el('td', s.project, 'project'),
        el('td', s.status, `status ${s.status}`),
        el('td', s.reason, 'p2'),
        el('td', s.model ?? '–', 'p4'),
        contextCell(s),
        el('td', costText(s, '–'), 'num'),
        toolCell(s, now),
        el('td', ago(s.last_activity_at, now), 'p2'),
        // The live agent process (with its children) and how it was joined to the session.
        el('td', s.process?.cpu_ratio != null ? `${Math.round(s.process.cpu_ratio * 100)}%` : '–', 'num p5'),
        el(
          'td',
          s.process?.resident_memory_bytes != null ? `${compact(s.process.resident_memory_bytes)}B` : '–',
          'num p5',
        ),
        el('td', s.attribution, 'p5'),
      );
      return tr;
    });
  document.querySelector('#sessions tbody').replaceChildren(...rows);
  document.getElementById('empty').hidden = rows.length > 0;
}

function renderSummary(summary, now) {
  document.getElementById('spend-today').textContent = usd(summary.spend_today_usd);
  document.getElementById('spend-week').textContent = usd(summary.spend_week_usd);
  samples.push([now, summary.tokens_total]);
  while (samples.length > 2 && now - samples[0][0] > 60_000) samples.shift();
  const [t0, n0] = samples[0];
  document.getElementById('tokens-rate').textContent =
    now - t0 >= 5000 ? compact(((summary.tokens_total - n0) * 60_000) / (now - t0)) : '–';
  const chips = ORDER.filter((s) => summary.sessions_by_status[s] > 0).map((s) =>
    el('span', `${summary.sessions_by_status[s]} ${s}`, s),
  );
  document.getElementById('by-status').replaceChildren(...(chips.length ? chips : [el('span', 'none')]));
  const rows = summary.spend_today.map((r) => {
    const tr = el('tr');
    tr.append(el('td', r.harness), el('td', r.project, 'project'), el('td', usd(r.usd), 'num'));
    return tr;
  });
  document.querySelector('#spend tbody').replaceChildren(...rows);
  renderLimits(summary.limits, now);
  renderHistory(summary.spend_30d);
}

async function refresh() {
  const problem = document.getElementById('problem');
  try {
    const [sessions, summary] = await Promise.all(
      ['/api/v1/sessions', '/api/v1/summary'].map(async (p) => {
        const r = await fetch(p, { cache: 'no-store' });
        if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
        return r.json();
      }),
    );
    const now = Date.now();
    renderSessions(sessions, now);
    renderSummary(summary, now);
    document.getElementById('updated').textContent = `updated ${new Date(now).toLocaleTimeString()}`;
    problem.hidden = true;
  } catch (e) {
    problem.textContent = `Could not refresh: ${e.message}`;
    problem.hidden = false;
  }
}

refresh();
setInterval(refresh, 2000);
