import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { entryAliases } from '../../tools/entryAliases.ts';

// The three.js picking example: served from examples/three-picking/, importing webgpu-obb as a
// user would, through its package entries only ('webgpu-obb', 'webgpu-obb/three', …; a lint rule
// forbids src/ paths), resolved here to the entries' sources (the same map as tsconfig.json's
// `paths`). `npx vite --config examples/three-picking/vite.config.ts` serves it on localhost;
// test/gpu/threeExample.test.ts builds and drives it.
const root = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));


export default defineConfig({
  root,
  base: './',
  cacheDir: `${repo}node_modules/.vite/three-picking`,
  resolve: {
    alias: entryAliases(repo),
  },
  server: { host: 'localhost', fs: { allow: [repo] } },
  preview: { host: 'localhost' },
  build: { target: 'es2022', outDir: `${repo}dist/three-picking`, emptyOutDir: true },
});
