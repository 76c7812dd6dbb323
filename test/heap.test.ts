// Which Node.js is told to favour memory once the first read is done (the heap's behaviour itself
// is test/e2e/heap.test.ts's, in a fresh Node).

import { describe, expect, it } from 'vitest';
import { favoursMemory } from '../src/heap.js';

describe('favouring memory at run time', () => {
  it('is done up to Node.js 22, where it gives memory back', () => {
    expect(favoursMemory('20.20.2')).toBe(true);
    expect(favoursMemory('22.23.5')).toBe(true);
  });

  it('is not done from Node.js 24 on, where it gives nothing back and a process could hang in its exit', () => {
    expect(favoursMemory('24.22.3')).toBe(false);
    expect(favoursMemory('26.12.1')).toBe(false);
    expect(favoursMemory('30.0.0')).toBe(false);
  });
});
