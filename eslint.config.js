// ESLint flat config: typescript-eslint's recommended rules (syntax only), plus eqeqeq and curly
// everywhere. The library itself (src/) also bans `any`, and gets the two type-aware promise
// rules (no-floating-promises, no-misused-promises; type-aware on src/ only, so linting stays
// fast). Non-null assertions are allowed: with noUncheckedIndexedAccess every `data[i]` is
// `number | undefined`, and in the typed-array loops the index is in bounds by the loop
// condition; `!` says so at zero cost (a checked helper per read would cost the reference its
// speed).
//
// The layers of src/, checked by eslint-plugin-import-x: `no-restricted-paths` forbids each
// folder to import from the folders above it (so no cycle can form between folders), and
// `no-cycle` catches a cycle between modules inside one folder. Chosen over dependency-cruiser
// because it runs inside the linter the project already has (and dependency-cruiser 18 needs
// Node 22, while the project supports Node 20).
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';

/**
 * The folders of src/, lowest first, each allowed to import only from those before it (and
 * itself). Top-level modules: constants.ts and errors.ts at the bottom; ObbGpu.ts (the facade)
 * and the entries (index.ts, advanced.ts) at the top, with cli/ and node/ above the facade.
 */
const LAYERS = [
  ['src/constants.ts', 'src/errors.ts'],
  ['src/core'],
  ['src/layout', 'src/files'],
  ['src/reference'],
  ['src/compare', 'src/scenes'],
  ['src/judge'],
  ['src/runtime'],
  ['src/boxes'],
  ['src/tree'],
  ['src/rays', 'src/pairs', 'src/lidar', 'src/frustum'],
  ['src/ObbGpu.ts'],
  ['src/index.ts', 'src/advanced.ts', 'src/node', 'src/cli', 'src/three'],
];

/** For each layer: it may not import from any layer above it, nor from its siblings. */
const zones = LAYERS.flatMap((layer, k) => {
  const above = LAYERS.slice(k + 1).flat();
  return layer.flatMap((target) => {
    const siblings = layer.filter((other) => other !== target);
    const from = [...above, ...siblings];
    return from.length === 0 ? [] : [{ target: `./${target}`, from: from.map((f) => `./${f}`), message: `${target} may import only from the layers below it (LAYERS in eslint.config.js)` }];
  });
});

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', 'test/artifacts/', 'coverage/', 'bench/out/', '.gpu/', 'docs/api/', '.doctest/']),
  tseslint.configs.recommended,
  {
    rules: {
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Type-aware promise rules on the library only (the API is async throughout; a promise
    // dropped or handed to a void callback loses its rejection). Type information comes from
    // tsconfig.json through the project service; on src/ alone it keeps `eslint .` fast.
    files: ['src/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The CLI's browser page and the Node runtime reach the facade from above; the CLI's pure
    // parts (scene files) sit beside them.
    files: ['src/cli/**/*.ts', 'src/node/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': 'off',
    },
  },
  {
    // The demo and the examples are apps built on the package as a user would: they import
    // webgpu-obb through its entries only ('webgpu-obb', 'webgpu-obb/advanced', …, which their
    // Vite configs and tsconfig.json's `paths` resolve to the entries' sources), never a module
    // of src/ (what an entry does not export is a gap in the API, closed in the entry).
    files: ['demo/**/*.ts', 'examples/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/src', '**/src/**', 'webgpu-obb/dist', 'webgpu-obb/dist/**'],
          message: 'demo/ and examples/ import webgpu-obb through its package entries (webgpu-obb, webgpu-obb/advanced, …), not src/ or dist/ modules.',
        }],
      }],
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
