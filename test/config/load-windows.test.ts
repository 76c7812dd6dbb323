// The configuration's paths on Windows, through node:path's win32 rules (the module is replaced by
// `path.win32` for this file, as node:path is on Windows).

import { afterEach, describe, expect, it, vi } from 'vitest';
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

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('keeps its state under %LOCALAPPDATA% by default, under XDG_STATE_HOME where that is set', () => {
    vi.stubEnv('XDG_STATE_HOME', '');
    vi.stubEnv('LOCALAPPDATA', 'C:\\Users\\me\\AppData\\Local');
    expect(loadConfig([], { HOME: 'C:\\Users\\me' }).stateDir).toBe(
      'C:\\Users\\me\\AppData\\Local\\coding-agent-exporter',
    );
    vi.stubEnv('XDG_STATE_HOME', 'D:\\state');
    expect(loadConfig([], { HOME: 'C:\\Users\\me' }).stateDir).toBe('D:\\state\\coding-agent-exporter');
  });
});
