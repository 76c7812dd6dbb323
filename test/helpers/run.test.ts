// The test helpers' own promises: a wait that times out says what it waited for and what it saw.

import { describe, expect, it } from 'vitest';
import { until } from './run.js';

/** The message `p` rejects with. */
const failure = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (e: Error) => e.message,
  );

describe('until', () => {
  it('returns the first value the condition gives', async () => {
    let n = 0;
    await expect(until(async () => (++n === 3 ? `try ${n}` : undefined), 5_000, 'the third try', 1)).resolves.toBe(
      'try 3',
    );
  });

  it('times out naming what it waited for and the last value it saw', async () => {
    let n = 0;
    const message = await failure(until(async (saw) => (saw(++n) === -1 ? true : undefined), 50, 'the new row', 1));
    expect(message).toBe(`timed out after 50 ms waiting for the new row: the last try saw ${n}`);
    expect(
      await failure(
        until(async (saw) => (saw('a "quoted"\nline').length === 0 ? true : undefined), 10, 'an empty line', 1),
      ),
    ).toBe('timed out after 10 ms waiting for an empty line: the last try saw \'a "quoted"\\nline\'');
  });

  it('times out saying what the last try threw, or that it returned nothing', async () => {
    let n = 0;
    const refused = async (): Promise<true | undefined> => {
      throw new Error(`refused on try ${++n}`);
    };
    expect(await failure(until(refused, 50, 'the server', 1))).toBe(
      `timed out after 50 ms waiting for the server: the last try threw Error: refused on try ${n}`,
    );
    // What an earlier try saw is not the last try's.
    let tries = 0;
    const once = async (saw: <V>(v: V) => V): Promise<true | undefined> =>
      tries++ === 0 && saw(tries) === -1 ? true : undefined;
    expect(await failure(until(once, 50, undefined, 1))).toBe(
      'timed out after 50 ms waiting for a condition: the last try returned undefined',
    );
    expect(tries).toBeGreaterThan(1);
  });
});
