import { join } from 'node:path';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { codex } from '../../src/readers/codex/reader.js';
import { geminiCli } from '../../src/readers/gemini-cli/reader.js';
import { FIXTURES } from '../helpers/run.js';
import { READERS } from '../../src/collectors/registry.js';
import { describe, expect, it } from 'vitest';
import { readerConformance } from './conformance.js';

readerConformance(claudeCode, join(FIXTURES, 'captures/claude-code/tool/.claude'));
readerConformance(claudeCode, join(FIXTURES, 'captures/claude-code-2.1.197/tool/.claude'));
readerConformance(codex, join(FIXTURES, 'captures/codex/tool/.codex'));
readerConformance(geminiCli, join(FIXTURES, 'captures/gemini-cli/tool/.gemini'));

describe('registry', () => {
  it('runs the conformance suite for every registered reader', () => {
    expect(Object.keys(READERS).sort()).toEqual(['claude-code', 'codex', 'gemini-cli']);
  });
});
