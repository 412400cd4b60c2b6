import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    // the domain core and the control layer stay pure: no frameworks, drivers or Node I/O
    files: ['libs/core/src/**/*.ts', 'libs/control/src/**/*.ts'],
    // tests and their support files (never built: tsconfig excludes them) may use Node
    ignores: [
      'libs/core/src/**/*.test.ts',
      'libs/control/src/**/*.test.ts',
      'libs/core/src/**/*.test-support.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@nestjs/*', 'typeorm', 'ioredis', 'bullmq', 'pg', 'node:*'] },
      ],
    },
  },
);
