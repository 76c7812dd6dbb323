// The number formats every viewer uses (`sessions`, `top`, the status line, `report`, and the page,
// which imports this module's build): test/e2e/page.test.ts holds the page's to these.

import { describe, expect, it } from 'vitest';
import { compact, elapsed, timeLeft } from '../../src/view/format.js';

describe('the number formats', () => {
  it('gives a count with one decimal and a k, M or G', () => {
    expect([0, 999, 1234, 1_250_000, 3_000_000_000].map(compact)).toEqual(['0', '999', '1.2k', '1.3M', '3G']);
  });

  it('gives a time gone in its largest whole unit, never below nothing', () => {
    expect([-5000, 0, 59_400, 60_000, 3_599_000, 3_600_000, 86_399_000, 2 * 86_400_000].map(elapsed)).toEqual([
      '0s',
      '0s',
      '59s',
      '1m',
      '59m',
      '1h',
      '23h',
      '2d',
    ]);
  });

  it('gives the time left as a person says it', () => {
    expect([0, 12 * 60_000, 150 * 60_000, (3 * 24 + 4) * 3_600_000].map((ms) => timeLeft(ms, 0))).toEqual([
      '0m',
      '12m',
      '2h30m',
      '3d4h',
    ]);
  });
});
