// One OpenClaw transcript event, in pi's session format (version 3 in the JSONL files of older
// releases, 4 in 2026.9's SQLite transcript): the same events wherever they are stored.
//
// Every API answer is one assistant `message` with its own usage, in the contract's semantics
// already (input without cache reads and writes, output with reasoning; `reasoningTokens` the
// reasoning part, written by 2026.9, absent before): the tokens are the sum over the transcript.
// Unlike pi, OpenClaw retries a failed request itself and writes only the attempt that ended it
// (the real CLI retried seven times and wrote one `stopReason: "error"` answer): an error ends
// the turn as failed. Entries are deduplicated by id and time (a reset's or fork's copy).

import type { SessionEvents } from '../../session/events.js';
import { NO_REASONING } from '../../session/vocabulary.js';
import { numberOf, obj, time } from '../fields.js';
import { scanRecord, type Fields, type Shape } from '../scan.js';
import { countAnswer } from '../pi/reader.js';
import { classifyTool } from './tools.js';

// What is read of an event: the text of prompts and answers, tool arguments and outputs are
// passed over unread.
const EVENT: Shape = {
  type: true,
  id: true,
  timestamp: true,
  cwd: true,
  modelId: true,
  customType: true,
  data: { modelId: true },
  message: {
    role: true,
    model: true,
    usage: true,
    stopReason: true,
    toolCallId: true,
    toolName: true,
    isError: true,
    content: { type: true, id: true, name: true },
  },
};

/** Reads one event (one JSONL line, or one row's JSON); never throws. */
export function readEvent(bytes: Buffer, ev: SessionEvents): void {
  const rec = scanRecord(bytes, EVENT);
  if (!rec) return ev.skipped('parse_error');
  const ts = time(rec.text('timestamp'));
  const type = rec.text('type');
  if (ts === undefined || type === undefined) return ev.skipped('unknown_shape');
  ev.activity(ts);
  switch (type) {
    case 'session': {
      const cwd = rec.text('cwd');
      if (cwd) ev.meta({ cwd });
      return;
    }
    case 'model_change': {
      const model = rec.text('modelId');
      if (model) ev.meta({ model });
      return;
    }
    case 'custom': {
      // OpenClaw's own marker of the model a run uses.
      const model = rec.text('customType') === 'model-snapshot' ? rec.object('data')?.text('modelId') : undefined;
      if (model) ev.meta({ model });
      return;
    }
    case 'compaction':
      if (ev.firstTime(`compaction:${rec.text('id')}:${ts}`)) ev.compaction();
      return;
    case 'message':
      return message(rec, ts, ev);
    default:
    // A thinking level change, a label: the session was active, nothing more.
  }
}

function message(rec: Fields, ts: number, ev: SessionEvents): void {
  const msg = rec.object('message');
  const key = `${rec.text('id')}:${ts}`;
  switch (msg?.text('role')) {
    case 'user':
      if (!ev.firstTime(`prompt:${key}`)) return;
      ev.prompt(ts);
      // One prompt at a time: a turn still open was cut short.
      ev.turnStarted(ts, 'interrupted');
      return;
    case 'assistant':
      return answer(msg, key, ts, ev);
    case 'toolResult': {
      const id = msg.text('toolCallId');
      if (!id) return ev.skipped('unknown_shape');
      if (!ev.firstTime(`result:${key}`)) return;
      const name = msg.text('toolName');
      ev.toolResult(id, msg.isTrue('isError'), name ? classifyTool(name) : undefined);
      return;
    }
    default:
      if (!msg) ev.skipped('unknown_shape');
  }
}

function answer(msg: Fields, key: string, ts: number, ev: SessionEvents): void {
  const content = msg.items('content');
  const u = obj(msg.value('usage'));
  if (!content || !u) return ev.skipped('unknown_shape');
  const model = msg.text('model') ?? 'unknown';
  ev.meta({ model });
  if (ev.firstTime(`answer:${key}`)) {
    // Written from 2026.9 on: an answer without it says nothing of reasoning (no series, not 0).
    countAnswer(
      u,
      content,
      model,
      ts,
      ev,
      classifyTool,
      numberOf(u.reasoningTokens),
      u.reasoningTokens === undefined ? NO_REASONING : undefined,
    );
  }
  const stop = msg.text('stopReason');
  const outcome =
    stop === 'error' ? 'failed' : stop === 'aborted' ? 'interrupted' : stop === 'toolUse' ? undefined : 'completed';
  // A store read again (after a crash) reports the answer again: its end counts once.
  if (outcome && ev.firstTime(`end:${key}`)) ev.turnEnded(outcome, ts);
}
