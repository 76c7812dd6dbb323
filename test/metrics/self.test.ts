// The exporter's own event-loop lag is how late a timer ran (as prom-client reads it), timed by the
// tick the exporter runs anyway: no timer of its own wakes an idle process.

import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog.js';
import { SelfMetrics } from '../../src/metrics/self.js';

const lag = (self: SelfMetrics) => self.current().find((f) => f.def === catalog.eventLoopLag)?.points[0]?.value;

describe('nodejs_eventloop_lag_seconds', () => {
  it('is how late the sample ran after its period', () => {
    const self = new SelfMetrics(5000);
    // Nothing was due before the first sample: nothing was late.
    self.sample(1000);
    expect(lag(self)).toBe(0);
    self.sample(6030);
    expect(lag(self)).toBeCloseTo(0.03, 6);
    // Each sample is timed from the previous one: the late run is not counted twice.
    self.sample(11_030);
    expect(lag(self)).toBe(0);
    // A run a bit early (timers' rounding) is no negative lag.
    self.sample(16_029);
    expect(lag(self)).toBe(0);
  });
});
