// @ts-check
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Findings that predate the linter live in eslint-suppressions.json (ESLint bulk suppressions),
// so every rule below holds at full strength for new code. `npm run lint` fails on a new finding
// and on a suppression that no longer matches; after fixing old ones, run
// `npx eslint --prune-suppressions .` to shrink the file.

export default defineConfig(
  globalIgnores(['dist/', 'bench/results/', 'test/.tmp/', 'node_modules/']),
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Job queues, stores and fakes implement async interfaces with bodies that happen to be
      // synchronous; the contract is "returns a promise", not "awaits something".
      '@typescript-eslint/require-await': 'off',
      // `'memory' | string` documents a special value; the rule would reduce it to `string`.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // `_` marks a deliberately unused binding; a rest sibling drops a key (`{ $schema: _, ...rest }`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }],
        },
      ],
      // Passing on a caught rejection reason unchanged is fine; inventing a non-Error one is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Keeps a missing case visible where a switch over a union has no default.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // The house style already marks type-only imports; keep it so imports show real dependencies.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // Async stack traces keep the caller's frame only when the promise is awaited inside try.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      eqeqeq: ['error', 'smart'],
      'prefer-const': 'error',
    },
  },
  {
    // In the server, stdout is the stdio transport's JSON-RPC stream: a stray console.log
    // corrupts it. Diagnostics go to the logger or stderr.
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    rules: { 'no-console': ['error', { allow: ['error', 'warn'] }] },
  },
  {
    // @huggingface/tokenizers 0.2 ships declarations with extensionless relative imports that
    // NodeNext cannot resolve, so `Tokenizer` is an error type here; tsc sees `any`.
    files: ['src/embed/onnx.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Tests read JSON-RPC payloads and tool results as loosely typed data on purpose: asserting
    // on their shape is the test.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  {
    // The memory explorer's page (ui/): plain ES modules that run in the browser.
    files: ['ui/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'sessionStorage',
          'fetch',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'TextDecoder',
          'Node',
          'AbortController',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
);
