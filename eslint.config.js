// ESLint with typescript-eslint's recommended rules (npm run lint). Prettier formats; ESLint judges.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'completions/**', 'reports/**', '.stryker-tmp/**', 'node_modules/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks a parameter or binding kept for its position or to drop it from a rest object.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Plain JavaScript (bin, scripts, stubs) runs on Node: its globals are the platform's, not undeclared names.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: { 'no-undef': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read the CLI's --json documents as `any`: their shapes are what the assertions check.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
