// Registries of live processes that harnesses keep as one JSON file per process, named by its pid
// (Claude Code's and Qwen Code's `sessions/<pid>.json`). A crash leaves the file behind: whether
// the process still runs is the process table's to say.

import { listDir, readText } from '../files/dir.js';
import { jsonObject, str, type Json } from './fields.js';

/**
 * Each `<pid>.json` of a folder that names a session: its pid (the record's own, else the file's
 * name) and the whole record. A file being rewritten or removed is read at the next scan.
 */
export function pidFiles(dir: string): { pid: number; sessionId: string; rec: Json }[] {
  const out: { pid: number; sessionId: string; rec: Json }[] = [];
  for (const e of listDir(dir)) {
    if (!e.isFile || !/^\d+\.json$/.test(e.name)) continue;
    const rec = jsonObject(readText(e.path) ?? '');
    const sessionId = str(rec?.sessionId);
    if (!rec || !sessionId) continue;
    out.push({ pid: typeof rec.pid === 'number' ? rec.pid : Number(e.name.slice(0, -5)), sessionId, rec });
  }
  return out;
}
