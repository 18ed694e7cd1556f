import { defineConfig } from 'vitest/config';

// Two projects: `cpu` runs the float64 reference, layouts and the CLI's pure parts in Node;
// `gpu` runs Node-side tests that serve a page with Vite and drive headless Chromium through
// Puppeteer, where the WGSL kernels run on a real WebGPU implementation (SwiftShader here).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'cpu',
          include: ['test/cpu/**/*.test.ts', 'test/repro/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'gpu',
          include: ['test/gpu/**/*.test.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 120_000,
          // One browser at a time: SwiftShader already uses every core.
          fileParallelism: false,
        },
      },
    ],
  },
});
