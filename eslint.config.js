// Lint for what the compiler does not catch: the recommended rules, and type-aware ones over the
// TypeScript, each file checked against its own tsconfig (src/, test/, bench/).

import js from '@eslint/js';
import vitest from '@vitest/eslint-plugin';
import { defineConfig } from 'eslint/config';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const readonly = (names) => Object.fromEntries(names.map((n) => [n, 'readonly']));
// What a test asserts with: vitest's `expect`, the helpers named `expect…` (expectSame,
// expectFinite), and the ones that fail a test by themselves: `until` (and the file watch test's
// `told`, which is one) fails when its condition never comes, start-up's `refusedWith` expects.
const ASSERTS = ['expect*', 'assert', 'until', 'told', 'refusedWith'];

export default defineConfig(
  { ignores: ['dist/', 'dist-bench/', 'coverage/', 'test-artifacts/', 'bench-corpus/', 'test/fixtures/', '.ci/node/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: fileURLToPath(new URL('.', import.meta.url)) },
    },
    rules: {
      // Interfaces here declare methods that plain objects of closures implement (loggers,
      // readers): passing one on is safe, and the rule cannot tell.
      '@typescript-eslint/unbound-method': 'off',
      // An async function without await is how an interface that wants a promise is met.
      '@typescript-eslint/require-await': 'off',
      // `const { dropped: _, ...rest } = x` is how a field is left out.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // Tests walk parsed documents (dashboards, rules, OTLP bodies) through one declared `Json`
    // type; a wrong access there fails the test's own assertion, so these rules only add noise.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // A focused test silently drops the rest of the suite, a skipped one stops being the spec, and
    // one without an assertion cannot fail. A conditional skip (`skipIf`, where a program is
    // missing) is not caught and says why in its condition.
    files: ['test/**/*.ts'],
    plugins: { vitest },
    rules: {
      'vitest/no-focused-tests': 'error',
      'vitest/no-disabled-tests': 'error',
      'vitest/expect-expect': ['error', { assertFunctionNames: ASSERTS }],
    },
  },
  {
    // The fuzz test's readers assert as they read: nothing thrown, nothing infinite.
    files: ['test/readers/fuzz.test.ts'],
    rules: { 'vitest/expect-expect': ['error', { assertFunctionNames: [...ASSERTS, 'feed', 'readDamaged'] }] },
  },
  // In no tsconfig of its own (the tests' covers it).
  {
    files: ['vitest.config.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './test/tsconfig.json' } },
  },
  // The few scripts in plain JavaScript: no types to check them with.
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  { files: ['**/*.mjs', 'eslint.config.js'], languageOptions: { globals: readonly(['process', 'console', 'URL']) } },
  {
    files: ['web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: readonly(['document', 'fetch', 'setInterval']) },
  },
);
