// The rescan, which catches what watching misses, backs off while watching misses nothing: an
// exporter with nothing to do does not list and stat every file every 30 s.

import { describe, expect, it } from 'vitest';
import { nextRescanMs } from '../src/agent.js';

describe('the wait before the next rescan', () => {
  it('doubles after each rescan that found nothing new while watching works, up to ten times rescanSeconds; anything found brings it back', () => {
    const waits = [30_000];
    for (let i = 0; i < 5; i++) waits.push(nextRescanMs(waits.at(-1)!, 30_000, true));
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
    // A file read, come or gone, a collector failing or a watch error since: back to rescanSeconds.
    expect(nextRescanMs(300_000, 30_000, false)).toBe(30_000);
  });
});
