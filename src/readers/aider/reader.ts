// Aider's chat history: `.aider.chat.history.md` in each repository it ran in, an append-only
// markdown transcript of every session in that repository. A session is the part of the file
// after a `# aider chat started at <local time>` header; its id is a short hash of the file's path
// and that time (where.ts `sessionIdOf`).
//
// Aider keeps no other record of its sessions, so the files are found by searching: each root
// (by default the home folder) down to 4 folder levels below it, skipping `node_modules`, `.git`
// and hidden folders, each real folder once (where.ts `searchFiles`). The listings are cached
// (dir.ts): a search costs two stats per folder. A new one is also found where an Aider process
// works, at any depth (where.ts `filesNear`).
//
// Tokens come from the usage report Aider prints after each answer, `> Tokens: 1.7k sent, 328
// cache write, 3.3k cache hit, 91 received. Cost: $0.0064 message, $0.0064 session.` (with both
// cache parts the `Cost:` part goes on the next line, without the `> `). Aider prints counts of
// 1,000 and more rounded (`2.3k`, `12k`): what is written is what is exported, so Aider's token
// totals are rounded. "sent" includes the cache hits and writes. The cost is what Aider printed:
// the growth of the session total it prints, so each answer's cost counts once and a session's
// cost adds up to the total Aider showed last.
//
// Aider writes no time in the chat history but a session's start: each prompt or command takes
// the time its line was typed in the input history beside it (input-history.ts), and the records
// after it that time; without an input history, a session's records all take its start.

import { dirname, join } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { findInput, inputHistory } from './input-history.js';
import type { Usage } from '../../session/types.js';
import { listFiles, renamedSession, searchFiles, sessionIdOf, aider as where } from './where.js';

export interface AiderState {
  /** The header time of the session being read (`YYYY-MM-DD HH:MM:SS`), once one was seen. */
  started?: string;
  /** The time (ms, local) the records read now take: the session's start, then each prompt's. */
  at: number;
  /** Entries of the input history before this one were matched to lines already read. */
  inputFrom: number;
  model?: string;
  /** The session cost Aider printed last: the next answer's cost is its growth. */
  sessionCost: number;
  /**
   * The previous line was a line of a prompt (a multi-line prompt has a `#### ` line per line) or
   * of a command.
   */
  inPrompt: false | 'prompt' | 'command';
  /**
   * The first line of the text a command (`/ask <text>`, `/code <text>`) sends: Aider writes the
   * text again as a prompt. Blank lines do not reach the reader, so the prompt is told from more
   * lines of the command by this.
   */
  commandText?: string;
  /** An answer's token report whose `Cost:` line may follow on the next line. */
  pending?: { model: string; usage: Usage; sent: number };
}

const INPUT_FILE = '.aider.input.history';

const HEADER = '# aider chat started at ';
const PROMPT = '#### ';
const MODEL = /^> (?:Main model|Model): (\S+)/;
const TOKENS =
  /^> Tokens: ([\d.]+[kM]?) sent, (?:([\d.]+[kM]?) cache write, )?(?:([\d.]+[kM]?) cache hit, )?([\d.]+[kM]?) received\.(.*)$/;
const COST = /Cost: \$([\d.]+) message, \$([\d.]+) session\./;
// A request that failed: litellm's exceptions, and the notices Aider prints for them.
const ERROR = /^> (?:litellm\.\w*(?:Error|Exception)|\w*(?:Error|Exception):|Retrying in )/;

/** A count as Aider prints it (its format_tokens): exact below 1,000, else thousands, `2.3k` or `12k` (an `M` is read too). */
function count(s: string | undefined): number {
  if (!s) return 0;
  const n = Number.parseFloat(s);
  if (!Number.isFinite(n)) return 0;
  return Math.round(n * (s.endsWith('M') ? 1e6 : s.endsWith('k') ? 1e3 : 1));
}

/** The header's local time, in ms. */
function headerTime(started: string): number {
  const t = Date.parse(started.replace(' ', 'T'));
  return Number.isNaN(t) ? 0 : t;
}

// The first bytes of the lines that mean something: `#` (headers, prompts), `>` (notices and
// usage reports), `C` (a usage report's Cost line). Answer text is passed over undecoded.
const HASH = 35;
const QUOTE = 62;
const C = 67;

function readLine(buf: Buffer, state: AiderState, file: SessionFile, ev: SessionEvents): void {
  const first = buf[0];
  if (state.started !== undefined && first !== HASH && first !== QUOTE && first !== C) {
    if (state.pending) answered(state, ev, state.at, undefined);
    state.inPrompt = false;
    return;
  }
  // Blockquote lines end with two spaces; Windows line ends with a carriage return.
  const line = buf.toString('utf8').trimEnd();
  if (line.startsWith(HEADER)) return header(line.slice(HEADER.length), state, file, ev);
  if (line === '') return;
  if (state.started === undefined) return ev.skipped('unknown_shape');
  const ts = state.at;
  const prompting = state.inPrompt;
  state.inPrompt = false;
  if (state.pending) {
    const cost = COST.exec(line);
    answered(state, ev, ts, cost && !line.startsWith('>') ? Number(cost[2]) : undefined);
    if (cost && !line.startsWith('>')) return;
  }
  // An empty line of a prompt is `####` once its trailing spaces are gone.
  if (line.startsWith(PROMPT) || line === PROMPT.trimEnd())
    return promptLine(line.slice(PROMPT.length).trim(), prompting, state, file, ev);
  const model = MODEL.exec(line);
  if (model) {
    state.model = model[1];
    return ev.meta({ model: model[1] });
  }
  const tokens = TOKENS.exec(line);
  if (tokens) {
    const [sent, write, hit, received] = [count(tokens[1]), count(tokens[2]), count(tokens[3]), count(tokens[4])];
    const usage: Usage = {
      input: Math.max(0, sent - hit - write),
      output: received,
      cacheRead: hit,
      cacheWrite: write,
      cacheWrite1h: 0,
      reasoning: 0,
    };
    state.pending = { model: state.model ?? 'unknown', usage, sent };
    const cost = COST.exec(tokens[5]!);
    if (cost || tokens[5]!.trim() !== '') answered(state, ev, ts, cost ? Number(cost[2]) : undefined);
    return;
  }
  // The request failed; Aider may retry it, and a later answer reopens the turn.
  if (ERROR.test(line)) ev.turnEnded('failed', ts);
}

function header(started: string, state: AiderState, file: SessionFile, ev: SessionEvents): void {
  // The previous session's open turn was cut short (the process ended).
  if (state.pending) answered(state, ev, state.at, undefined);
  if (state.started !== undefined) ev.turnEnded('interrupted', state.at);
  Object.assign(state, {
    started,
    at: headerTime(started),
    sessionCost: 0,
    inPrompt: false as const,
    commandText: undefined,
    model: undefined,
  });
  ev.meta({ cwd: dirname(file.path) });
  ev.activity(state.at);
}

/** A `#### ` line: a prompt's, or a command's (`/add`, `/model`, ...: not prompts). */
function promptLine(
  text: string,
  prompting: AiderState['inPrompt'],
  state: AiderState,
  file: SessionFile,
  ev: SessionEvents,
): void {
  if (prompting === 'prompt') {
    state.inPrompt = 'prompt';
    return;
  }
  if (text.startsWith('/')) {
    typedAt(text, state, file);
    state.inPrompt = 'command';
    state.commandText = text.replace(/^\/\S*\s*/, '') || undefined;
    return;
  }
  if (prompting === 'command' && text !== state.commandText) {
    // More lines of the command (multi-line mode), the first of them maybe its text.
    state.commandText ??= text || undefined;
    state.inPrompt = 'command';
    return;
  }
  if (prompting !== 'command') typedAt(text, state, file);
  state.inPrompt = 'prompt';
  state.commandText = undefined;
  prompt(state, ev, state.at);
}

/** Moves the records' time on to when `text` was typed, where the input history has it. */
function typedAt(text: string, state: AiderState, file: SessionFile): void {
  const entries = inputHistory(join(dirname(file.path), INPUT_FILE));
  const started = headerTime(state.started!);
  const i = findInput(entries, state.inputFrom, text, started);
  if (i === undefined) return;
  state.inputFrom = i + 1;
  state.at = Math.max(state.at, entries[i]!.at);
}

function prompt(state: AiderState, ev: SessionEvents, ts: number): void {
  ev.activity(ts);
  ev.prompt(ts);
  // Aider takes one prompt at a time: a turn still open was cut short.
  ev.turnStarted(ts, 'interrupted');
}

/** An answer's usage, with the session total Aider printed after it (when it printed one). */
function answered(state: AiderState, ev: SessionEvents, ts: number, sessionCost: number | undefined): void {
  const p = state.pending!;
  state.pending = undefined;
  let cost: number | undefined;
  if (sessionCost !== undefined) {
    // Rounded to what was printed: no float residue of the subtraction.
    cost = Math.max(0, Math.round((sessionCost - state.sessionCost) * 1e10) / 1e10);
    state.sessionCost = Math.max(state.sessionCost, sessionCost);
  }
  ev.usage(p.model, p.usage, p.sent, ts, cost);
  // An answer after a failed attempt: the retry succeeded, the turn goes on (its end is not counted again).
  ev.turnReopened('failed');
  ev.turnEnded('completed', ts);
}

export const aider: LineReader<AiderState> = {
  ...where,
  kind: 'files',
  // Aider prints sent and received tokens only.
  unrecorded: ['reasoning'],
  listFiles,
  searchFiles,
  initialState: () => ({ at: 0, inputFrom: 0, sessionCost: 0, inPrompt: false }),
  readLine,
  sessionOf: (file, state) => (state.started === undefined ? file.sessionId : sessionIdOf(file.path, state.started)),
  renamedSession,
};
