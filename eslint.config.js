// Lint for what the compiler does not catch: the recommended rules, and type-aware ones over the
// TypeScript, each file checked against its own tsconfig (src/, test/, bench/).

import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const readonly = (names) => Object.fromEntries(names.map((n) => [n, 'readonly']));

export default defineConfig(
  { ignores: ['dist/', 'dist-bench/', 'coverage/', 'test-artifacts/', 'bench-corpus/', 'test/fixtures/'] },
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
  // In no tsconfig of its own (the tests' covers it).
  { files: ['vitest.config.ts'], languageOptions: { parserOptions: { projectService: false, project: './test/tsconfig.json' } } },
  // The few scripts in plain JavaScript: no types to check them with.
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  { files: ['**/*.mjs', 'eslint.config.js'], languageOptions: { globals: readonly(['process', 'console', 'URL']) } },
  { files: ['web/**/*.js'], languageOptions: { sourceType: 'module', globals: readonly(['document', 'fetch', 'setInterval']) } },
);
