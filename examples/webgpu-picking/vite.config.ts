import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { entryAliases } from '../../tools/entryAliases.ts';

// The plain-WebGPU picking example: served from examples/webgpu-picking/, importing webgpu-obb as
// a user would, through its package entries only ('webgpu-obb', 'webgpu-obb/advanced', …; a lint
// rule forbids src/ paths), resolved here to the entries' sources (the same map as
// tsconfig.json's `paths`). `npm run example:webgpu` serves it on localhost;
// test/gpu/webgpuExample.test.ts builds and drives it.
const root = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));


export default defineConfig({
  root,
  base: './',
  cacheDir: `${repo}node_modules/.vite/webgpu-picking`,
  resolve: {
    alias: entryAliases(repo),
  },
  server: { host: 'localhost', fs: { allow: [repo] } },
  preview: { host: 'localhost' },
  build: { target: 'es2022', outDir: `${repo}dist/webgpu-picking`, emptyOutDir: true },
});
