import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { entryAliases } from '../tools/entryAliases.ts';

// The demo page (`npm run demo`): served from demo/, importing webgpu-obb as a user would, through
// its package entries only ('webgpu-obb', 'webgpu-obb/advanced', …; a lint rule forbids src/
// paths), resolved here to the entries' sources (the same map as tsconfig.json's `paths`), so the
// dev server and the tests run from source with the WGSL through `?raw`. WebGPU needs a secure
// context: localhost qualifies, so the dev server stays on localhost (its URL is printed at
// start). `vite build --config demo/vite.config.ts` writes a static copy to dist/demo/
// (test/gpu/demo.test.ts builds its own copy).
const root = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));


export default defineConfig({
  root,
  base: './',
  cacheDir: `${repo}node_modules/.vite/demo`,
  resolve: {
    alias: entryAliases(repo),
  },
  server: {
    host: 'localhost',
    fs: { allow: [repo] },
  },
  preview: {
    host: 'localhost',
  },
  build: {
    target: 'es2022',
    outDir: `${repo}dist/demo`,
    emptyOutDir: true,
    sourcemap: true,
  },
});
