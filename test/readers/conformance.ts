// The conformance suite every reader passes: what the rest of the exporter relies on, whatever
// the harness's format.

import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  readAtOnce,
  type LineReader,
  type Reader,
  type SessionFile,
  type StoreReader,
} from '../../src/readers/reader.js';
import type { HarnessId, UsagePart } from '../../src/session/types.js';
import { TOKEN_TYPES } from '../../src/session/vocabulary.js';
import { recorder } from '../helpers/events.js';
import { pythonJsonLines } from '../helpers/json.js';
import { tempDir } from '../helpers/run.js';
import { readHome } from '../helpers/tally.js';

const HARNESS_DOC = resolve(__dirname, '../../docs/harnesses.md');

/**
 * The token types docs/harnesses.md's table says a harness does not record, where it says so of
 * every record (a clause of its own in the row's last column: `reasoning tokens (inside output)`,
 * `cache writes`, `tokens`), not of some (`reasoning tokens before 2026.9`, `cache writes of
 * OpenAI-compatible providers`).
 */
export function notRecorded(harness: HarnessId, doc = readFileSync(HARNESS_DOC, 'utf8')): UsagePart[] {
  const row = doc.split('\n').find((l) => l.startsWith('|') && l.split('|')[2]?.trim() === `\`${harness}\``);
  if (!row) return [];
  const cells = row.split('|');
  const column = cells[cells.length - 2]!.replaceAll('**', '').toLowerCase();
  // Clauses split at commas and semicolons outside parentheses.
  const clauses: string[] = [];
  let depth = 0;
  let clause = '';
  for (const ch of column) {
    depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    if (depth === 0 && (ch === ',' || ch === ';')) {
      clauses.push(clause.trim());
      clause = '';
    } else clause += ch;
  }
  clauses.push(clause.trim());
  const types = new Set<UsagePart>();
  for (const c of clauses) {
    if (/^reasoning( tokens)?( \(inside output\))?$/.test(c)) types.add('reasoning');
    if (/^cache writes( \(inside input\))?$/.test(c)) types.add('cache_write');
    if (/^(all token counts\b|tokens$)/.test(c)) for (const t of [...TOKEN_TYPES, 'reasoning'] as const) types.add(t);
  }
  return [...types];
}

function readAll<S>(reader: LineReader<S>, file: SessionFile, lines: Buffer[], state = reader.initialState(file)) {
  const r = recorder();
  for (const l of lines) reader.readLine(l, state, file, r.events);
  return { ...r, state };
}

function linesOf(path: string): Buffer[] {
  return readFileSync(path)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => Buffer.from(l));
}

/** How a harness's root is read (readerConformance's `opts`). */
export interface ConformanceOptions {
  unwatched?: string[];
  elsewhere?: string;
  textLines?: true;
  noCwd?: true;
}

/**
 * `root`: a harness root (the folder a user's default root would be) with at least one session.
 * `unwatched`: paths under the root a reader leaves to the periodic rescan (too many files to watch).
 * `elsewhere`: a folder outside the root where the root's index points the reader to stores (Crush's
 * per-project databases); they are watched there.
 * `textLines`: the session files are lines of text, not JSON (Aider's Markdown): JSON spelled
 * otherwise is nothing such a reader could be shown.
 * `noCwd`: the harness records no working directory (Junie).
 */
export function readerConformance<S>(reader: Reader<S>, root: string, opts: ConformanceOptions = {}): void {
  describe(`${reader.harness} reader conformance`, () => {
    const files = reader.listFiles(root);

    it('finds the session files under a root, each with a session id', () => {
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(f.sessionId).toMatch(/\S/);
    });

    // A search's files (`filesNear`) are watched one by one as it finds them (the collector's), and
    // each is found where a process working in its folder looks.
    it('watches its session files or the folders they are in, under the root, or finds each where its process works', () => {
      const folders = reader.watchPaths(root);
      const single = reader.watchFiles?.(root) ?? [];
      for (const w of [...folders, ...single])
        expect(w.startsWith(root) || (opts.elsewhere !== undefined && w.startsWith(opts.elsewhere))).toBe(true);
      const unwatched = (opts.unwatched ?? []).map((p) => join(root, p));
      for (const f of files.filter((f) => !unwatched.includes(f.path))) {
        const near = reader.filesNear?.(dirname(f.path), root).some((n) => n.path === f.path) === true;
        expect(near || single.includes(f.path) || folders.some((w) => f.path.startsWith(`${w}/`))).toBe(true);
      }
    });

    it('names its sessions without a path: no folder separator, nothing of the root in an id', () => {
      for (const id of sessionIds(reader, files)) {
        expect(id).not.toMatch(/[/\\]/);
        expect(id.includes(root)).toBe(false);
      }
    });

    // The README's facts and the reader's `unrecorded` are what a user is told: a token type either
    // says the harness does not record shows no series, not a series of 0.
    it('exports no series of a token type its facts say the harness does not record', async () => {
      const unrecorded = new Set([...(reader.unrecorded ?? []), ...notRecorded(reader.harness)]);
      const { store } = await readHome(reader, root);
      const exported = [...store.counters.values()].flatMap((c) =>
        c.metric === 'reasoningTokens' ? ['reasoning'] : c.metric === 'tokens' ? [c.labels.token_type!] : [],
      );
      expect([...new Set(exported)].filter((t) => unrecorded.has(t as UsagePart))).toEqual([]);
    });

    it('finds nothing (and does not throw) under a missing root', () => {
      expect(reader.listFiles(join(tempDir(), 'missing'))).toEqual([]);
    });

    it('never lists credentials, keys or settings', () => {
      const dir = tempDir();
      cpSync(root, dir, { recursive: true });
      for (const name of ['.credentials.json', 'auth.json', 'id_rsa.key', 'settings.json', 'config.toml']) {
        writeFileSync(join(dir, name), '{}\n');
      }
      mkdirSync(join(dir, 'projects', 'x'), { recursive: true });
      writeFileSync(join(dir, 'projects', 'x', 'secret.key'), 'k\n');
      // A harness's own per-session files may be named `<session>.settings.json` (Droid); the
      // user's settings file never.
      for (const f of reader.listFiles(dir))
        expect(f.path).not.toMatch(/credentials|auth\.json|\.key$|(^|\/)settings\.json$|config\.toml/);
    });

    // A harness may write documents only (Continue CLI, Cline), and a store's harness documents
    // too (Kilo's VS Code extension's tasks).
    const documents = files.filter((f) => f.document);
    if (documents.length > 0) documentConformance(reader, documents);
    // A reader of session files may read a database beside them as a store (Copilot CLI's).
    const stores = files.filter((f) => !f.document && (reader.kind === 'store' || f.store));
    const others = files.filter((f) => !f.document && !stores.includes(f));
    if (reader.kind === 'files' && others.length > 0)
      lineConformance(reader, others, opts.textLines ?? false, opts.noCwd ?? false);
    if (stores.length > 0) storeConformance(reader, stores);
  });
}

/**
 * Every session id a reader gives its files' records: the files' own, and those their records name
 * (a store's, its records' alone: the store's own `sessionId` is not a session's).
 */
function sessionIds<S>(reader: Reader<S>, files: SessionFile[]): Set<string> {
  const ids = new Set<string>();
  for (const f of files) {
    if ((reader.kind === 'store' || f.store) && !f.document) {
      storeOf(reader)(f, reader.initialState(f), (id) => (ids.add(id), recorder().events));
      continue;
    }
    ids.add(f.sessionId);
    const state = reader.initialState(f);
    const sessionOf = () => (reader.kind === 'files' ? reader.sessionOf?.(f, state) : undefined) ?? f.sessionId;
    if (f.document) readAtOnce(reader.readDocument!(readFileSync(f.path), state, f, recorder().events));
    else {
      for (const l of linesOf(f.path)) {
        (reader as LineReader<S>).readLine(l, state, f, recorder().events);
        ids.add(sessionOf());
      }
    }
    ids.add(sessionOf());
  }
  return ids;
}

/** What a reader of append-only lines guarantees. */
function lineConformance<S>(reader: LineReader<S>, files: SessionFile[], textLines: boolean, noCwd: boolean): void {
  it('reports the session, its activity and its working directory', () => {
    for (const f of files) {
      const { log } = readAll(reader, f, linesOf(f.path));
      expect(log.some(([e]) => e === 'activity')).toBe(true);
      expect(log.some(([e, m]) => e === 'meta' && typeof (m as { cwd?: string }).cwd === 'string')).toBe(!noCwd);
    }
  });

  it('gives the same events read in one go or line by line across restarts (state survives JSON)', () => {
    for (const f of files) {
      const lines = linesOf(f.path);
      const whole = readAll(reader, f, lines);
      const r = recorder();
      let state = reader.initialState(f);
      for (const l of lines) {
        state = JSON.parse(JSON.stringify(state)) as S; // persisted and restored between every line
        reader.readLine(l, state, f, r.events);
      }
      expect(r.log).toEqual(whole.log);
    }
  });

  it('skips bad records with a reason and never throws', () => {
    const f = files[0]!;
    const bad = [
      '{"type":"assistant","message":',
      'not json',
      '[]',
      'null',
      '{"type":"user"}',
      '{"type":"assistant","message":{"usage":7}}',
      '{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":"x"}}}',
      '{"timestamp":"yesterday","type":"system"}',
      '\u0000\u00ff{',
      '{"type":"session_meta","payload":[]}',
      '{"type":"response_item","payload":{"type":"function_call_output"}}',
    ];
    const { log } = readAll(
      reader,
      f,
      bad.map((b) => Buffer.from(b)),
    );
    expect(log.filter(([e]) => e === 'skipped').length).toBeGreaterThan(0);
    for (const [e] of log) expect(['skipped', 'activity', 'meta', 'record']).toContain(e);
  });

  it('counts every line that is not a JSON object with a type, each once', () => {
    const bad = [
      '\u0000\u0000\u0000\u0000',
      '\u00ff\u00fe\u0001\u0002',
      '{}',
      'null',
      '42',
      '"text"',
      'true',
      '[]',
      '{"type":"x"',
      '{"type":"x"} {}',
    ];
    for (const line of bad) {
      const { log } = readAll(reader, files[0]!, [Buffer.from(line)]);
      expect([line, log.filter(([e]) => e === 'skipped').length]).toEqual([line, 1]);
    }
  });

  if (!textLines) {
    it("reads JSON written with spaces and escapes (as Python's json.dumps writes it) exactly as compact JSON", () => {
      for (const f of files) {
        const text = readFileSync(f.path, 'utf8');
        const spaced = pythonJsonLines(text)
          .split('\n')
          .filter(Boolean)
          .map((l) => Buffer.from(l));
        // A record's identity may be its bytes (Codex's have no id): other bytes are another record.
        const read = (lines: Buffer[]) => readAll(reader, f, lines).log.filter(([e]) => e !== 'record');
        expect(read(spaced)).toEqual(read(linesOf(f.path)));
      }
    });
  }

  it('reports token usage only with non-negative integer counts', () => {
    for (const f of files) {
      for (const [e, , usage] of readAll(reader, f, linesOf(f.path)).log) {
        if (e !== 'usage') continue;
        for (const v of Object.values(usage as Record<string, number>))
          expect(Number.isInteger(v) && v >= 0).toBe(true);
      }
    }
  });
}

function readDocument<S>(reader: Reader<S>, file: SessionFile, r = recorder(), state = reader.initialState(file)) {
  readAtOnce(reader.readDocument!(readFileSync(file.path), state, file, r.events));
  return { ...r, state };
}

/** What a reader of documents rewritten whole guarantees (its state says what was counted). */
function documentConformance<S>(reader: Reader<S>, files: SessionFile[]): void {
  it('counts nothing twice when an unchanged document is read again, also with its state restored from JSON', () => {
    for (const f of files) {
      const r = recorder();
      const first = readDocument(reader, f, r);
      const before = r.log.length;
      readDocument(reader, f, r, JSON.parse(JSON.stringify(first.state)) as S);
      expect(r.log.slice(before).filter(([e]) => COUNTED.includes(e))).toEqual([]);
    }
  });

  it('skips a document that does not parse with a reason and never throws', () => {
    for (const bad of ['{"tokenUsage":', 'null', '[]', '\u0000\u00ff{']) {
      const r = recorder();
      readAtOnce(reader.readDocument!(Buffer.from(bad), reader.initialState(files[0]!), files[0]!, r.events));
      expect(r.log.filter(([e]) => e === 'skipped').length).toBeGreaterThan(0);
      for (const [e] of r.log) expect(['skipped', 'activity', 'meta']).toContain(e);
    }
  });

  it('reports token usage only with non-negative integer counts', () => {
    for (const f of files) {
      for (const [e, , usage] of readDocument(reader, f).log) {
        if (e !== 'usage') continue;
        for (const v of Object.values(usage as Record<string, number>))
          expect(Number.isInteger(v) && v >= 0).toBe(true);
      }
    }
  });
}

/** How a reader reads a store: a store reader's, or a reader of session files' beside them. */
function storeOf<S>(reader: Reader<S>): StoreReader<S>['readStore'] {
  return (file, state, events) => (reader as StoreReader<S>).readStore(file, state, events);
}

function readStore<S>(reader: Reader<S>, file: SessionFile, r = recorder(), state = reader.initialState(file)) {
  const changed = storeOf(reader)(file, state, () => r.events);
  return { ...r, state, changed };
}

/** Every file under a folder with its content hash. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if (e.isFile()) out[p] = createHash('sha1').update(readFileSync(p)).digest('hex');
  }
  return out;
}

const COUNTED = ['usage', 'prompt', 'turnStarted', 'turnEnded', 'toolCall', 'toolResult', 'lines', 'compaction'];

/** What a reader of a store (a database) guarantees. */
function storeConformance<S>(reader: Reader<S>, files: SessionFile[]): void {
  it('reports the sessions, their activity and their working directory', () => {
    for (const f of files) {
      const { log, changed } = readStore(reader, f);
      expect(changed).toBe(true);
      expect(log.some(([e]) => e === 'activity')).toBe(true);
      expect(log.some(([e, m]) => e === 'meta' && typeof (m as { cwd?: string }).cwd === 'string')).toBe(true);
    }
  });

  it('reports nothing when the store has not changed, also with its state restored from JSON', () => {
    for (const f of files) {
      const first = readStore(reader, f);
      const state = JSON.parse(JSON.stringify(first.state)) as S;
      const again = readStore(reader, f, recorder(), state);
      expect(again.changed).toBe(false);
      expect(again.log).toEqual([]);
    }
  });

  it('counts nothing twice when the whole store is read again (a crash before the cursor was committed)', () => {
    for (const f of files) {
      const r = recorder();
      readStore(reader, f, r);
      const before = r.log.length;
      readStore(reader, f, r);
      expect(r.log.slice(before).filter(([e]) => COUNTED.includes(e))).toEqual([]);
    }
  });

  it('reports token usage only with non-negative integer counts', () => {
    for (const f of files) {
      for (const [e, , usage] of readStore(reader, f).log) {
        if (e !== 'usage') continue;
        for (const v of Object.values(usage as Record<string, number>))
          expect(Number.isInteger(v) && v >= 0).toBe(true);
      }
    }
  });

  it('leaves every byte of the store as it was', () => {
    const dirs = [...new Set(files.map((f) => dirname(f.path)))];
    const before = dirs.map(hashes);
    for (const f of files) readStore(reader, f);
    expect(dirs.map(hashes)).toEqual(before);
  });
}
