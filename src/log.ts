// A small structured logger: one JSON object per line on stderr. Fields are metadata (paths,
// counts, errors), never prompt or reply text.

import { printableJson } from './terminal.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: Level, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const log =
    (l: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[l] < ORDER[level]) return;
      // A path or a name from a harness's files may hold a C1 or bidi character: a terminal shows stderr.
      write(`${printableJson({ time: new Date().toISOString(), level: l, msg, ...fields }, 0)}\n`);
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
