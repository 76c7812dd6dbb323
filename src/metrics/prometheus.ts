// Prometheus text exposition of the snapshot: served on /metrics and printed by `once`.
//
// Written here rather than through OpenTelemetry's Prometheus exporter: the format is a few lines
// per family, and `once` or a scrape-only exporter then loads no OpenTelemetry module at all
// (they were most of the start-up time). The output is the exporter's, byte for byte: HELP, UNIT
// and TYPE lines, `_total` on counters, no scope labels and no target_info (Prometheus's own
// target labels identify the machine).

import { gzipSync } from 'node:zlib';
import type { Family } from './snapshot.js';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The exposition the /metrics endpoint would serve for these families. */
export function exposition(families: Family[]): string {
  if (families.length === 0) return '# no registered metrics';
  let text = '';
  for (const { def, points } of families) {
    const name = def.kind === 'counter' ? `${def.name}_total` : def.name;
    text += `# HELP ${name} ${escape(def.help)}\n`;
    if (def.unit) text += `# UNIT ${name} ${escape(def.unit)}\n`;
    text += `# TYPE ${name} ${def.kind}\n`;
    for (const { labels, value } of points) {
      let pairs = '';
      for (const key in labels) pairs += `${pairs ? ',' : ''}${key}="${escape(labels[key]!).replaceAll('"', '\\"')}"`;
      text += `${name}${pairs ? `{${pairs}}` : ''} ${number(value)}\n`;
    }
  }
  return text;
}

/** Backslash and newline escaped, as HELP text and label values need (label values escape `"` too). */
const escape = (s: string) => s.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');

const number = (v: number) => (v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : `${v}`);

/**
 * A body rendered once per data change: /metrics, and the live page's JSON. Every request until the
 * next change is answered with the same bytes, so a request costs writing them whatever the number
 * of clients. Once a client has asked, a change renders again off the request path (once for any
 * burst of changes), gzipped too once a client has asked for gzip (Prometheus always does); a
 * request that comes before that render does it itself, so none ever sees data older than the last
 * change. Until anyone asks, nothing is rendered: an exporter nobody reads costs no renders.
 */
export class RenderedExposition {
  private plainBytes?: Buffer;
  private gzipBytes?: Buffer;
  private wanted = false;
  private gzipWanted = false;
  private pending?: NodeJS.Immediate;

  constructor(private readonly render: () => string) {}

  /** The data changed. */
  invalidate(): void {
    this.plainBytes = this.gzipBytes = undefined;
    if (!this.wanted) return;
    this.pending ??= setImmediate(() => {
      this.pending = undefined;
      try {
        if (this.gzipWanted) this.gzip();
        else this.plain();
      } catch {
        // Left for the next request, which renders again and answers (and logs) the error.
      }
    });
  }

  plain(): Buffer {
    this.wanted = true;
    return (this.plainBytes ??= Buffer.from(this.render()));
  }

  gzip(): Buffer {
    this.gzipWanted = true;
    return (this.gzipBytes ??= gzipSync(this.plain()));
  }

  /** Drops a render still scheduled (at shutdown). */
  close(): void {
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
  }
}
