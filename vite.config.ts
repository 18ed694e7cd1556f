import { defineConfig } from 'vite';

// Library build: one ESM bundle per entry in dist/; WGSL is imported with `?raw`, so the
// shaders travel inside the bundle as strings. Declarations come from `tsc -p tsconfig.build.json`.
export default defineConfig({
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    lib: {
      entry: { index: 'src/index.ts', cli: 'src/cli/main.ts' },
      formats: ['es'],
    },
    rolldownOptions: {
      external: [/^node:/, 'puppeteer', 'vite', /^wgsl_reflect/],
    },
  },
});
