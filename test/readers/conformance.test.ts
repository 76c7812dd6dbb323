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
import { rooCode } from '../../src/readers/roo-code/reader.js';
import { kimiCli } from '../../src/readers/kimi-cli/reader.js';
import { openclaw } from '../../src/readers/openclaw/reader.js';
import { amp } from '../../src/readers/amp/reader.js';
import { auggie } from '../../src/readers/auggie/reader.js';
import { junie } from '../../src/readers/junie/reader.js';
import { traeCli } from '../../src/readers/trae-cli/reader.js';
import { grok } from '../../src/readers/grok/reader.js';
import { openhands } from '../../src/readers/openhands/reader.js';
import { kiro } from '../../src/readers/kiro/reader.js';
import { qoder } from '../../src/readers/qoder/reader.js';
import { zed } from '../../src/readers/zed/reader.js';
import { cursor } from '../../src/readers/cursor/reader.js';
import { warp } from '../../src/readers/warp/reader.js';
import { copilotVscode } from '../../src/readers/copilot-vscode/reader.js';
import { crushHome } from '../helpers/crush-db.js';
import { FIXTURES } from '../helpers/run.js';
import { READERS } from '../helpers/readers.js';
import { HARNESSES } from '../../src/collectors/registry.js';
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
const editor = (dir: string, ext: string) => join(FIXTURES, `wave3-home/${dir}/User/globalStorage/${ext}/tasks`);
readerConformance(cline, editor('.config/Code', 'saoudrizwan.claude-dev'));
readerConformance(rooCode, editor('.vscode-server/data', 'rooveterinaryinc.roo-cline'));
readerConformance(kilo, editor('.config/Code', 'kilocode.kilo-code'));
readerConformance(kimiCli, join(FIXTURES, 'wave3-home/.kimi/sessions'));
readerConformance(openclaw, join(FIXTURES, 'captures/openclaw/tool/.openclaw'));
readerConformance(openclaw, join(FIXTURES, 'wave3-home/.openclaw'));
readerConformance(amp, join(FIXTURES, 'wave3-home/.local/share/amp/threads'));
readerConformance(auggie, join(FIXTURES, 'wave3-home/.augment/sessions'));
readerConformance(junie, join(FIXTURES, 'wave3-home/.junie/sessions'), { noCwd: true });
readerConformance(traeCli, join(FIXTURES, 'wave4-home/.trae/cli'));
readerConformance(grok, join(FIXTURES, 'wave4-home/.grok'));
readerConformance(openhands, join(FIXTURES, 'wave4-home/.openhands/conversations'));
readerConformance(kiro, join(FIXTURES, 'wave4-home/.kiro/sessions/cli'));
readerConformance(qoder, join(FIXTURES, 'wave4-home/.qoder'));
readerConformance(zed, join(FIXTURES, 'wave4-home/.local/share/zed/threads'));
readerConformance(cursor, join(FIXTURES, 'wave4-home/.config/Cursor'));
readerConformance(warp, join(FIXTURES, 'wave4-home/.local/state/warp-terminal'));
readerConformance(copilotVscode, join(FIXTURES, 'wave4-home/.config/Code/User'));
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
    expect(Object.keys(READERS).sort()).toEqual(['aider', 'amp', 'antigravity-cli', 'auggie', 'claude-code', 'cline', 'codex', 'continue-cli', 'copilot-cli', 'copilot-vscode', 'crush', 'cursor', 'cursor-agent', 'droid', 'gemini-cli', 'goose', 'grok', 'hermes', 'junie', 'kilo', 'kimi-cli', 'kiro', 'kodelet', 'openclaw', 'opencode', 'openhands', 'pi', 'qoder', 'qwen-code', 'roo-code', 'trae-cli', 'warp', 'zed']);
  });

  // What the registry knows before a reader is loaded (its `where.ts`) is what the reader says once loaded.
  it.each(Object.entries(HARNESSES))('%s: where it looks is where its reader looks', (id, where) => {
    const reader = READERS[id as keyof typeof READERS];
    const env = { CODEX_HOME: '/x/codex', XDG_DATA_HOME: '/x/data', OPENCODE_DB: 'o.db', KILO_DB: 'k.db', CLAUDE_CONFIG_DIR: '/x/claude' };
    for (const home of [join(FIXTURES, 'home'), join(FIXTURES, 'longtail-home'), join(FIXTURES, 'wave3-home'), join(FIXTURES, 'wave4-home')]) {
      const roots = where.defaultRoots(env, home);
      expect(reader.defaultRoots(env, home)).toEqual(roots);
      for (const root of [...roots, ...reader.defaultRoots({}, home)]) {
        expect(reader.watchPaths(root)).toEqual(where.watchPaths(root));
        expect(reader.watchFiles?.(root)).toEqual(where.watchFiles?.(root));
      }
    }
    expect([reader.harness, reader.facts, reader.sessionOfOpenFile?.('/s/rollout-2026-01-01T00-00-00-0199a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl')])
      .toEqual([id, where.facts, where.sessionOfOpenFile?.('/s/rollout-2026-01-01T00-00-00-0199a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl')]);
  });
});
