// JetBrains Junie CLI: one append-only JSONL file per session,
// `~/.junie/sessions/session-<yymmdd-hhmmss>/events.jsonl`. Closed source, and only what a peer
// reader of real sessions relies on is known (the harness format reference, wave 3 §6):
// confidence is low. A `UserPromptEvent` is a prompt; every model call writes an
// `LlmResponseMetadataEvent` with its `modelUsage[]` (tokens and the provider's cost), whichever
// agent made it (a helper agent's calls count for the session). Input is taken as not including
// the cache reads and writes, as the peer reads it. Not known, so not reported: the working
// directory, tools, errors; reasoning is read where written.
//
// Junie writes no turn end: a turn is taken as completed by its last model call (a call that
// follows reopens it). Junie may append a usage event again: one with the same time, model,
// counts and place in the event is counted once.

import { join } from 'node:path';
import type { LineReader, SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { NO_REASONING } from '../../session/vocabulary.js';
import { num, numberOf, obj, str } from '../fields.js';
import { fileStat, listDir } from '../../files/dir.js';
import { scanRecord, type Shape } from '../scan.js';
import { junie as where } from './where.js';

function listFiles(root: string): SessionFile[] {
  return listDir(root).flatMap((e) => {
    const path = join(e.path, 'events.jsonl');
    const stat = e.isDirectory ? fileStat(path) : undefined;
    return stat ? [{ path, sessionId: e.name, stat }] : [];
  });
}

// Large state snapshots (`AgentStateUpdatedEvent`) are passed over unread.
const RECORD: Shape = { kind: true, timestampMs: true, event: { agentEvent: { kind: true, modelUsage: true } } };

/** The first of several spellings of a count that is a number. */
const count = (u: Record<string, unknown>, ...keys: string[]) =>
  numberOf(u[keys.find((k) => typeof u[k] === 'number') ?? keys[0]!]);

function readLine(line: Buffer, _state: object, file: SessionFile, ev: SessionEvents): void {
  const rec = scanRecord(line, RECORD);
  if (!rec) return ev.skipped('parse_error');
  const ts = rec.number('timestampMs');
  if (ts === undefined) return ev.skipped('unknown_shape');
  ev.activity(ts);
  if (rec.text('kind') === 'UserPromptEvent') {
    if (!ev.firstTime(`prompt:${file.sessionId}:${ts}`)) return;
    ev.prompt(ts);
    ev.turnStarted(ts);
    return;
  }
  const agentEvent = rec.object('event')?.object('agentEvent');
  if (agentEvent?.text('kind') !== 'LlmResponseMetadataEvent') return;
  const usages = agentEvent.value('modelUsage');
  if (!Array.isArray(usages)) return ev.skipped('unknown_shape');
  usages.forEach((raw, i) => {
    const u = obj(raw);
    const model = str(u?.model);
    if (!u || !model) return ev.skipped('unknown_shape');
    const usage = {
      input: count(u, 'inputTokens', 'input'),
      output: count(u, 'outputTokens', 'output'),
      cacheRead: count(u, 'cacheInputTokens', 'cacheReadInputTokens', 'cacheRead'),
      cacheWrite: count(u, 'cacheCreateTokens', 'cacheCreationInputTokens', 'cacheWrite'),
      cacheWrite1h: 0,
      reasoning: count(u, 'reasoningTokens', 'reasoningOutputTokens', 'thinkingTokens'),
    };
    ev.meta({ model });
    if (
      !ev.firstTime(
        `usage:${file.sessionId}:${ts}:${model}:${usage.input}:${usage.output}:${usage.cacheRead}:${usage.cacheWrite}:${i}`,
      )
    )
      return;
    const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
    const cost = num(u.cost);
    // Reasoning only where a spelling of it is written (never seen yet): else no series, not 0.
    const saysReasoning = ['reasoningTokens', 'reasoningOutputTokens', 'thinkingTokens'].some((k) => k in u);
    ev.usage(model, usage, prompt, ts, cost > 0 ? cost : undefined, saysReasoning ? undefined : NO_REASONING);
    if (prompt > 0) ev.context(model, prompt);
  });
  ev.turnReopened('completed');
  ev.turnEnded('completed', ts);
}

export const junie: LineReader<object> = {
  ...where,
  kind: 'files',
  listFiles,
  initialState: () => ({}),
  readLine,
};
