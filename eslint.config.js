// Lint rules for the whole repository: typescript-eslint's recommended set, no unused code, no import cycles.
// Formatting is prettier's (see .prettierrc.json); eslint-config-prettier turns off the rules that would disagree.
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettierConfig from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'var/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // `self` names the object a callback with its own `this` (a prom-client collector) reports on.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
    },
  },
  {
    // Tests read whole JSON answers of every shape and assert on them; typing each one would only restate the answer.
    files: ['test/**/*.ts', 'test/**/*.tsx'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettierConfig,
);
