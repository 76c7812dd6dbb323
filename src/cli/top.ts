// `top`: a full-screen terminal view of every session, redrawn every second. Plain ANSI over
// node:readline (no terminal library: the screen is a list of lines, and the few escape codes it
// needs are the ones every terminal since the VT100 knows). The alternate screen, the cursor and
// raw mode are restored on every way out.

import { emitKeypressEvents } from 'node:readline';
import type { Exporter } from '../exporter.js';
import type { SessionRecord } from '../view/records.js';
import { renderScreen, SORTS, type Sort } from '../view/screen.js';
import type { Summary } from '../view/summary.js';
import { httpClient } from './http.js';

export interface ViewSource {
  /** Where the data comes from, shown in the header. */
  name: string;
  read(): Promise<{ summary: Summary; sessions: SessionRecord[] }>;
}

/** The exporter's own memory: `top` reading the files itself. */
export function localSource(exporter: Exporter): ViewSource {
  return {
    name: 'local',
    read: async () => {
      const now = Date.now();
      const live = exporter.sessions(now);
      return { summary: exporter.summary(now, live), sessions: exporter.records(now, live) };
    },
  };
}

/** A running exporter's JSON (cli/http.ts: a user and password in the URL are basic auth). */
export function remoteSource(address: string): ViewSource {
  const { origin, get } = httpClient(address);
  return {
    name: origin,
    read: async () => {
      const [sessions, summary] = await Promise.all([get('/api/v1/sessions'), get('/api/v1/summary')]);
      // An exporter older than the limits and the spend history serves neither.
      const served = summary as Omit<Summary, 'limits' | 'spend_30d'> & Partial<Summary>;
      return { sessions: sessions as SessionRecord[], summary: { limits: [], spend_30d: [], ...served } };
    },
  };
}

const REFRESH_MS = 1000;
// Tokens per minute from the totals seen over the last minute, once five seconds are seen.
const RATE_WINDOW_MS = 60_000;
const RATE_MIN_MS = 5000;

/** Runs until `q` or Ctrl-C (or SIGTERM/SIGHUP); returns the exit code. */
export async function runTop(source: ViewSource, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { stdin, stdout } = process;
  const color = !env.NO_COLOR && env.TERM !== 'dumb';
  const state = { sort: 'status' as Sort, filter: '', showIdle: true, editing: undefined as string | undefined };
  const samples: [number, number][] = [];
  let data: { summary: Summary; sessions: SessionRecord[] } | undefined;
  let problem: string | undefined;

  const draw = () => {
    if (!data) return;
    const now = Date.now();
    const [first] = samples;
    const last = samples[samples.length - 1];
    const rate =
      first && last && last[0] - first[0] >= RATE_MIN_MS
        ? ((last[1] - first[1]) * 60_000) / (last[0] - first[0])
        : undefined;
    const lines = renderScreen(data.summary, data.sessions, {
      ...state,
      width: stdout.columns || 80,
      height: stdout.rows || 24,
      color,
      now,
      tokensPerMinute: rate,
      source: source.name,
      problem,
    });
    // Home, each line cleared to its end, then everything below cleared: no flicker, no scroll.
    stdout.write(`\x1b[H${lines.join('\x1b[K\r\n')}\x1b[K\x1b[J`);
  };
  const refresh = async () => {
    try {
      data = await source.read();
      problem = undefined;
      const now = Date.now();
      samples.push([now, data.summary.tokens_total]);
      while (samples.length > 2 && now - samples[0]![0] > RATE_WINDOW_MS) samples.shift();
    } catch (e) {
      problem = (e as Error).message;
    }
  };

  // A source that does not answer is refused before the screen is taken: a blank screen says nothing.
  await refresh();
  if (!data) throw new Error(problem ?? 'no data');
  if (!stdout.isTTY) {
    // Not a terminal (a pipe, a file): one screen, like `top -b -n 1`.
    const lines = renderScreen(data.summary, data.sessions, {
      ...state,
      width: 200,
      height: 10_000,
      color: false,
      now: Date.now(),
      source: source.name,
    });
    stdout.write(
      `${lines
        .slice(0, -1)
        .map((l) => l.trimEnd())
        .filter((l) => l !== '')
        .join('\n')}\n`,
    );
    return 0;
  }

  stdout.write('\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J');
  emitKeypressEvents(stdin);
  stdin.setRawMode?.(true);
  stdin.resume();
  return new Promise<number>((resolve) => {
    const tick = () => void refresh().then(draw);
    const timer = setInterval(tick, REFRESH_MS);
    const quit = () => {
      clearInterval(timer);
      stdin.off('keypress', onKey);
      stdout.off('resize', draw);
      stdin.setRawMode?.(false);
      stdin.pause();
      stdout.write('\x1b[0m\x1b[?25h\x1b[?1049l');
      resolve(0);
    };
    const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean } = {}) => {
      if (key.ctrl && key.name === 'c') return quit();
      if (state.editing !== undefined) {
        if (key.name === 'return' || key.name === 'enter') [state.filter, state.editing] = [state.editing, undefined];
        else if (key.name === 'escape') state.editing = undefined;
        else if (key.name === 'backspace') state.editing = state.editing.slice(0, -1);
        else if (text && text >= ' ' && text !== '\x7f') state.editing += text;
      } else if (text === 'q') return quit();
      else if (text === 's') state.sort = SORTS[(SORTS.indexOf(state.sort) + 1) % SORTS.length]!;
      else if (text === 'i') state.showIdle = !state.showIdle;
      else if (text === '/') state.editing = state.filter;
      draw();
    };
    stdin.on('keypress', onKey);
    stdout.on('resize', draw);
    process.once('SIGTERM', quit);
    process.once('SIGHUP', quit);
    draw();
  });
}
