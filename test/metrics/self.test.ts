// The exporter's own event-loop lag is how late a timer ran since the last sample (Node's delay
// histogram, as prom-client reads it), not how long one callback waited for an idle loop to wake.

import { createHistogram } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog.js';
import { SelfMetrics } from '../../src/metrics/self.js';

const lag = (self: SelfMetrics) => self.current().find((f) => f.def === catalog.eventLoopLag)?.points[0]?.value;

describe('nodejs_eventloop_lag_seconds', () => {
  it('is the mean lateness of the delay timer since the last sample', () => {
    // Times between two runs of a timer asked to fire every second (not prom-client's 10 ms: an idle
    // exporter would wake 100 times a second), as monitorEventLoopDelay records them.
    const delays = createHistogram();
    const self = new SelfMetrics(delays);
    self.sample();
    expect(lag(self)).toBe(0);
    for (const ms of [1000, 1000, 1030]) delays.record(ms * 1e6);
    self.sample();
    expect(lag(self)).toBeCloseTo(0.01, 2); // a mean of 1010 ms, 1000 of which the timer was asked to wait (the histogram keeps 3 digits)
    // Each sample starts a new window: the late run is not counted twice.
    delays.record(1000e6);
    self.sample();
    expect(lag(self)).toBeCloseTo(0, 3);
  });
});
