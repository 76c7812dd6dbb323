// The configuration's paths on Windows, through node:path's win32 rules (the module is replaced by
// `path.win32` for this file, as node:path is on Windows).

import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load.js';

vi.mock('node:path', async () => {
  const real = await vi.importActual<typeof import('node:path')>('node:path');
  return { ...real.win32, default: real.win32 };
});

describe('configuration on Windows', () => {
  it('puts ~\\ and ~/ under the home, and leaves a drive path as it is', () => {
    const env = { HOME: 'C:\\Users\\me' };
    expect(loadConfig(['--state-dir', '~\\exporter'], env).stateDir).toBe('C:\\Users\\me\\exporter');
    expect(loadConfig(['--state-dir', '~/exporter'], env).stateDir).toBe('C:\\Users\\me\\exporter');
    expect(loadConfig(['--state-dir', 'D:\\exporter'], env).stateDir).toBe('D:\\exporter');
  });
});
