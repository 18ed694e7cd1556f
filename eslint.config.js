// ESLint flat config: typescript-eslint's recommended rules (syntax only, no type-aware rules, so
// linting stays fast), plus eqeqeq and curly everywhere; the library itself (src/) also bans `any`
// and non-null assertions.
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', 'test/artifacts/', 'coverage/', 'bench/out/', '.gpu/']),
  tseslint.configs.recommended,
  {
    rules: {
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
    },
  },
  {
    // Typed-array number crunching: with noUncheckedIndexedAccess every `data[i]` is
    // `number | undefined`; in these loops the index is in bounds by the loop condition, and `!`
    // says so at zero cost (a checked helper per read would cost the reference its speed).
    files: [
      'src/reference/**/*.ts', 'src/layout/**/*.ts', 'src/compare/**/*.ts', 'src/scenes/**/*.ts',
      'src/core/**/*.ts', 'src/gpu/**/*.ts', 'src/cli/**/*.ts', 'src/bvh/**/*.ts', 'src/node/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Node scripts (bin/, bench/, config files) written as plain JavaScript.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
      },
    },
  },
);
