// Prometheus text exposition of the snapshot: served on /metrics and printed by `once`.

import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { gzipSync } from 'node:zlib';
import { resourceMetrics, toMetricData } from './producer.js';
import type { Family } from './snapshot.js';

// No scope labels (they would change every series with each OTel upgrade) and no target_info
// (Prometheus's own target labels identify the machine).
const WITHOUT_TARGET_INFO = true;
const WITHOUT_SCOPE_INFO = true;

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The exposition the /metrics endpoint would serve for these families. */
export function exposition(families: Family[], startMs: number, nowMs = Date.now()): string {
  const serializer = new PrometheusSerializer(undefined, false, undefined, WITHOUT_TARGET_INFO, WITHOUT_SCOPE_INFO);
  return serializer.serialize(resourceMetrics(resourceFromAttributes({}), toMetricData(families, startMs, nowMs)));
}

/**
 * The exposition rendered once per data change: every scrape until the next change is answered
 * with the same bytes, so a scrape costs writing them whatever the number of scrapers. A change
 * renders again off the scrape path (once for any burst of changes), gzipped too once a scraper
 * has asked for gzip (Prometheus always does); a scrape that comes before that render does it
 * itself, so no scrape ever sees data older than the last change.
 */
export class RenderedExposition {
  private plainBytes?: Buffer;
  private gzipBytes?: Buffer;
  private gzipWanted = false;
  private pending?: NodeJS.Immediate;

  constructor(private readonly render: () => string) {}

  /** The data changed. */
  invalidate(): void {
    this.plainBytes = this.gzipBytes = undefined;
    this.pending ??= setImmediate(() => {
      this.pending = undefined;
      try {
        if (this.gzipWanted) this.gzip();
        else this.plain();
      } catch {
        // Left for the next scrape, which renders again and answers (and logs) the error.
      }
    });
  }

  plain(): Buffer {
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
