// One lint setup for the whole monorepo (type-aware rules are left to `tsc --noEmit`, which runs first).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const FS_MODULES = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({
  name,
  message:
    'Files are read and written through an adapter (server/src/adapters: DataStore, FileSystemAdapter).',
}));
const PROCESS_MODULES = ['child_process', 'node:child_process'].map((name) => ({
  name,
  message: 'Processes (ffmpeg, ffprobe…) run behind an adapter (server/src/adapters).',
}));

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'data/**',
      'test-output/**',
      'bench-output/**',
      'contract/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'warn',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-control-regex': 'off',
    },
  },
  {
    // Tool configs that must be CommonJS (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  // The walls (docs/architecture.md): services hold rules and domain holds pure decisions; files and
  // processes are reached only through server/src/adapters (the data dir through DataStore).
  {
    files: ['server/src/services/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [...FS_MODULES, ...PROCESS_MODULES] }] },
  },
  {
    files: ['server/src/domain/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [...FS_MODULES, ...PROCESS_MODULES] }] },
  },
  // http/ serves bytes only from a CheckedFile a service got from an adapter (DataStore for the data
  // dir, MediaPathService over FileSystemAdapter for media): it never opens a path itself. The pages'
  // own CSS and scripts are read at start through the adapter too (readBundledFilesSync).
  {
    files: ['server/src/http/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [...FS_MODULES, ...PROCESS_MODULES] }] },
  },
);
