import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The three.js picking example: served from examples/three-picking/, importing webgpu-obb as a
// user would ('webgpu-obb', 'webgpu-obb/three'), resolved here to the repository's sources.
// `npx vite --config examples/three-picking/vite.config.ts` serves it on localhost;
// test/gpu/threeExample.test.ts builds and drives it.
const root = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
  root,
  base: './',
  cacheDir: `${repo}node_modules/.vite/three-picking`,
  resolve: {
    alias: [
      { find: /^webgpu-obb\/three$/, replacement: `${repo}src/three/index.ts` },
      { find: /^webgpu-obb\/reference$/, replacement: `${repo}src/reference/index.ts` },
      { find: /^webgpu-obb$/, replacement: `${repo}src/index.ts` },
    ],
  },
  server: { host: 'localhost', fs: { allow: [repo] } },
  preview: { host: 'localhost' },
  build: { target: 'es2022', outDir: `${repo}dist/three-picking`, emptyOutDir: true },
});
