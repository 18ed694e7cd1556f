import { defineConfig } from 'vitest/config';

// Four projects: `cpu` runs the float64 reference, layouts and the CLI's pure parts in Node;
// `node` runs the GPU suites in Node on Dawn (the optional `webgpu` package); `package` installs
// the packed tarball into fresh projects and uses it as a user would; `gpu` runs Node-side tests
// that serve a page with Vite and drive headless Chromium through Puppeteer, where the WGSL
// kernels run on a real WebGPU implementation (SwiftShader here).
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
          // The same kernels in Node through Dawn (the `webgpu` package; src/node/runtime.ts).
          // One file per child process (forks): each gets its own Dawn instance, and a native
          // crash shows up as a failed file instead of taking the runner down.
          name: 'node',
          include: ['test/node/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 300_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The packed tarball installed into fresh projects (test/package/consumer.test.ts).
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          environment: 'node',
          testTimeout: 900_000,
          hookTimeout: 900_000,
          fileParallelism: false,
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
