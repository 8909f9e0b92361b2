// ESLint (typescript-eslint, type-aware) for every TypeScript file of the apps and libs. Formatting
// is Prettier's (.prettierrc.json); nothing here is about layout. The rules and why are in
// docs/decisions.md, "A linter (issue 36)".
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'bench/**', 'scripts/**', 'deploy/**'] },
  {
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        // Nest's injection reads constructor parameter types from decorator metadata: an import used
        // only there is a value import, and consistent-type-imports must know it.
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
      },
    },
    rules: {
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/await-thenable': 'error',
      // Rethrowing what a catch or a rejection handed over (typed unknown) is allowed; throwing a
      // string or a literal is not.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/restrict-plus-operands': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Production files: at most 500 lines each. Tests and test support are exempt (a scenario file
    // reads best as one story).
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing/**', 'libs/testing/**', 'apps/e2e/**'],
    rules: {
      'max-lines': ['error', { max: 500 }],
      // An object's default "[object Object]" in an answer or a log is a bug; the tests stringify
      // parsed headers and YAML values in their assertions on purpose, so they are exempt.
      '@typescript-eslint/no-base-to-string': 'error',
    },
  },
);
