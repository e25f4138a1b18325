// ESLint: typescript-eslint's type-checked rules over every TypeScript project of the tree
// (each file is checked with the tsconfig that owns it, through the project service).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'dist-app/',
      'dist-test/',
      'test/consumer/app/',
      '.tsbuild/',
      'test-results/',
      'wasm/',
      'models/',
      '.cache/',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Methods implement async interfaces (comlink remotes, the Engine, storage repositories)
      // whose callers always await; an async method without an await is that contract, not a slip.
      '@typescript-eslint/require-await': 'off',
      // An abort rejects with the signal's reason, whatever the aborter passed (typed any in lib.dom).
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
    },
  },
  {
    // Tests read untyped JSON bodies and assert their shape; typing each one would only restate
    // the assertion, so the unsafe-any family is off there (it stays on for shipped code).
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
);
