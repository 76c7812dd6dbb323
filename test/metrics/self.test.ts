// The exporter's own event-loop lag is how late a timer ran (as prom-client reads it), timed by the
// clock the exporter runs anyway: no timer of its own wakes an idle process.

import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog.js';
import { SelfMetrics } from '../../src/metrics/self.js';

const lag = (self: SelfMetrics) => self.current().find((f) => f.def === catalog.eventLoopLag)?.points[0]?.value;

describe('nodejs_eventloop_lag_seconds', () => {
  it('is how late the timer that took the sample ran, never below 0', () => {
    const self = new SelfMetrics();
    self.sample(0);
    expect(lag(self)).toBe(0);
    self.sample(30);
    expect(lag(self)).toBeCloseTo(0.03, 6);
    // A run a bit early (timers' rounding) is no negative lag.
    self.sample(-1);
    expect(lag(self)).toBe(0);
  });
});
