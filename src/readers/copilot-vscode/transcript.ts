// The extension's transcript of a session, `GitHub.copilot-chat/transcripts/<session id>.jsonl`
// (Copilot CLI's event vocabulary): the same turns as the journal, with different ids, so only
// what the journal lacks is read of it: which tool calls failed (`tool.execution_complete` with
// `success: false`). It is read whole when it changes (it is small: the extension keeps its 20
// newest); a failure counts once by its call's id.

import type { SessionEvents } from '../../session/events.js';
import { parsable } from '../document.js';
import { obj, str } from '../fields.js';
import { jsonLines } from './journal.js';
import { classifyTool } from './tools.js';

export function readTranscript(doc: Buffer, sessionId: string, ev: SessionEvents): void {
  // Read whole as a document is: held to its bound (document.ts).
  if (!parsable(doc)) return ev.skipped('file_too_large');
  const names = new Map<string, string>();
  for (const e of jsonLines(doc.toString('utf8'), ev)) {
    if (typeof e.type !== 'string') {
      ev.skipped('unknown_shape');
      continue;
    }
    const data = obj(e.data);
    const id = str(data?.toolCallId);
    if (e.type === 'tool.execution_start' && id) names.set(id, str(data?.toolName) ?? '');
    if (e.type !== 'tool.execution_complete' || !id || data?.success !== false) continue;
    if (ev.firstTime(`failed:${sessionId}:${id}`)) ev.toolResult(id, true, classifyTool(names.get(id) ?? ''));
  }
}
