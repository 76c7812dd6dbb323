import { join } from 'node:path';
import { claudeCode } from '../../src/readers/claude-code/reader.js';
import { codex } from '../../src/readers/codex/reader.js';
import { kilo } from '../../src/readers/kilo/reader.js';
import { opencode } from '../../src/readers/opencode/reader.js';
import { qwenCode } from '../../src/readers/qwen-code/reader.js';
import { copilotCli } from '../../src/readers/copilot-cli/reader.js';
import { geminiCli } from '../../src/readers/gemini-cli/reader.js';
import { droid } from '../../src/readers/droid/reader.js';
import { pi } from '../../src/readers/pi/reader.js';
import { aider } from '../../src/readers/aider/reader.js';
import { cursorAgent } from '../../src/readers/cursor-agent/reader.js';
import { antigravityCli } from '../../src/readers/antigravity-cli/reader.js';
import { hermes } from '../../src/readers/hermes/reader.js';
import { kodelet } from '../../src/readers/kodelet/reader.js';
import { goose } from '../../src/readers/goose/reader.js';
import { crush } from '../../src/readers/crush/reader.js';
import { continueCli } from '../../src/readers/continue-cli/reader.js';
import { cline } from '../../src/readers/cline/reader.js';
import { crushHome } from '../helpers/crush-db.js';
import { FIXTURES } from '../helpers/run.js';
import { READERS } from '../../src/collectors/registry.js';
import { describe, expect, it } from 'vitest';
import { readerConformance } from './conformance.js';

readerConformance(claudeCode, join(FIXTURES, 'captures/claude-code/tool/.claude'));
readerConformance(claudeCode, join(FIXTURES, 'captures/claude-code-2.1.197/tool/.claude'));
readerConformance(codex, join(FIXTURES, 'captures/codex/tool/.codex'));
readerConformance(opencode, join(FIXTURES, 'captures/opencode/tool/.local/share/opencode'));
readerConformance(kilo, join(FIXTURES, 'captures/kilo-cli/tool/.local/share/kilo'));
readerConformance(qwenCode, join(FIXTURES, 'captures/qwen-code/tool/.qwen'));
readerConformance(qwenCode, join(FIXTURES, 'captures/qwen-code-0.15.10/tool/.qwen'));
readerConformance(copilotCli, join(FIXTURES, 'captures/copilot-cli/tool/.copilot'));
readerConformance(geminiCli, join(FIXTURES, 'captures/gemini-cli/tool/.gemini'));
readerConformance(droid, join(FIXTURES, 'captures/droid/tool/.factory/sessions'));
readerConformance(droid, join(FIXTURES, 'captures/droid-anthropic/tool/.factory/sessions'));
readerConformance(pi, join(FIXTURES, 'captures/pi/tool/.pi/agent/sessions'));
readerConformance(continueCli, join(FIXTURES, 'captures/continue-cli/tool/.continue/sessions'));
readerConformance(cline, join(FIXTURES, 'captures/cline/tool/.cline/data/sessions'));
readerConformance(aider, join(FIXTURES, 'longtail-home'), { textLines: true });
readerConformance(cursorAgent, join(FIXTURES, 'longtail-home/.cursor'));
readerConformance(antigravityCli, join(FIXTURES, 'longtail-home/.gemini/antigravity-cli'));

readerConformance(hermes, join(FIXTURES, 'longtail-home/.hermes'));
readerConformance(kodelet, join(FIXTURES, 'longtail-home/.kodelet'));
readerConformance(goose, join(FIXTURES, 'longtail-home/.local/share/goose'));
const crushAt = crushHome();
readerConformance(crush, join(crushAt, '.local/share/crush'), { elsewhere: join(crushAt, 'src') });

describe('registry', () => {
  it('runs the conformance suite for every registered reader', () => {
    expect(Object.keys(READERS).sort()).toEqual(['aider', 'antigravity-cli', 'claude-code', 'cline', 'codex', 'continue-cli', 'copilot-cli', 'crush', 'cursor-agent', 'droid', 'gemini-cli', 'goose', 'hermes', 'kilo', 'kodelet', 'opencode', 'pi', 'qwen-code']);
  });
});
