import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { entryAliases } from '../../tools/entryAliases.ts';

// The three.js GPU-instances example: served from examples/three-gpu-instances/, importing webgpu-obb as a
// user would, through its package entries only ('webgpu-obb', 'webgpu-obb/three', …; a lint rule
// forbids src/ paths), resolved here to the entries' sources (the same map as tsconfig.json's
// `paths`). `npx vite --config examples/three-gpu-instances/vite.config.ts` serves it on localhost;
// test/gpu/threeGpuInstances.test.ts builds and drives it.
const root = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));


export default defineConfig({
  root,
  base: './',
  cacheDir: `${repo}node_modules/.vite/three-gpu-instances`,
  resolve: {
    alias: entryAliases(repo),
  },
  server: { host: 'localhost', fs: { allow: [repo] } },
  preview: { host: 'localhost' },
  build: { target: 'es2022', outDir: `${repo}dist/three-gpu-instances`, emptyOutDir: true },
});
