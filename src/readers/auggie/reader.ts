// Augment's Auggie CLI: one JSON document per session, `~/.augment/sessions/<session id>.json`,
// rewritten whole (presumably) as the session goes on. Closed source, and only the fields a peer
// reader of real sessions relies on are known (the harness format reference, wave 3 §5):
// confidence is low. `chatHistory[]` holds one exchange per request the person made; its
// `response_nodes[]` carry the tokens, in the first node that has a `token_usage` (input without
// cache reads and writes, as Anthropic counts them). Not known, so not reported: prompts (the
// exchanges are turns), tools, the working directory, reasoning and cost.
// Every exchange counts once by its request id, whichever read first holds it.

import { basename } from 'node:path';
import { type DocumentReader, type DocumentSteps, type SessionFile } from '../reader.js';
import type { SessionEvents } from '../../session/events.js';
import { documentObject } from '../document.js';
import { numberOf, obj, str, time, type Json } from '../fields.js';
import { listDir } from '../../files/dir.js';
import { auggie as where } from './where.js';

// Sessions are named by their uuid: nothing else in the folder is one.
const SESSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.json$/i;

function listFiles(root: string): SessionFile[] {
  return listDir(root)
    .filter((e) => e.isFile && SESSION.test(e.name))
    .map((e) => ({ path: e.path, sessionId: basename(e.name, '.json'), document: true }));
}

function* readDocument(doc: Buffer, _state: object, file: SessionFile, ev: SessionEvents): DocumentSteps {
  const d = documentObject(doc, ev);
  if (!d) return;
  if (!Array.isArray(d.chatHistory)) return ev.skipped('unknown_shape');
  const session = str(d.sessionId) ?? file.sessionId;
  const created = time(d.created);
  const modified = time(d.modified) ?? created;
  if (created !== undefined) ev.activity(created);
  if (modified !== undefined) ev.activity(modified);
  const fallbackModel = str(obj(d.agentState)?.modelId);
  for (const raw of d.chatHistory) {
    yield;
    const item = obj(raw);
    const exchange = obj(item?.exchange);
    const id =
      str(exchange?.request_id) ?? (typeof item?.sequenceId === 'number' ? String(item.sequenceId) : undefined);
    if (!item || !exchange || !id) {
      ev.skipped('unknown_shape');
      continue;
    }
    const finished = time(item.finishedAt);
    const ts = finished ?? modified ?? Date.now();
    ev.activity(ts);
    const model = str(exchange.model_id) ?? fallbackModel ?? 'unknown';
    ev.meta({ model });
    const key = `${session}:${id}`;
    if (ev.firstTime(`turn:${key}`)) ev.turnStarted(ts);
    const nodes = Array.isArray(exchange.response_nodes) ? exchange.response_nodes : [];
    // One usage per exchange: the first node's (later nodes may repeat it).
    const u = nodes
      .map((n) => obj(obj(n)?.token_usage))
      .find((t): t is Json => t !== undefined && Object.keys(t).length > 0);
    if (u && ev.firstTime(`usage:${key}`)) {
      const usage = {
        input: numberOf(u.input_tokens),
        output: numberOf(u.output_tokens),
        cacheRead: numberOf(u.cache_read_input_tokens),
        cacheWrite: numberOf(u.cache_creation_input_tokens),
        cacheWrite1h: 0,
        reasoning: 0,
      };
      const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
      ev.usage(model, usage, prompt, ts);
      if (prompt > 0) ev.context(model, prompt);
    }
    // An exchange not completed is the turn still open.
    if (item.completed === true && ev.firstTime(`end:${key}`)) ev.turnEnded('completed', ts);
  }
}

export const auggie: DocumentReader<object> = {
  ...where,
  kind: 'documents',
  unrecorded: ['reasoning'],
  listFiles,
  initialState: () => ({}),
  readDocument,
};
