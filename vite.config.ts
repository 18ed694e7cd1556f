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
      // `page` is the browser side of the CLI's GPU backend (src/cli/gpuRunner.ts serves it).
      // `node` is the Node runtime (webgpu-obb/node): Dawn from the optional `webgpu` package.
      // `advanced` and `reference` are the layers under the facade and the float64 reference;
      // `judge` is the verification kit (judge any result file, export the suites, reports; the
      // comparator, its error model and the scene generators); `lidar` the LiDAR presets, the
      // Ouster import and the point-cloud writers.
      entry: {
        index: 'src/index.ts', advanced: 'src/advanced.ts', reference: 'src/reference/index.ts',
        cli: 'src/cli/main.ts', page: 'src/cli/pageEntry.ts', node: 'src/node/runtime.ts', three: 'src/three/index.ts',
        judge: 'src/judge/index.ts', lidar: 'src/lidar/index.ts',
      },
      formats: ['es'],
    },
    rolldownOptions: {
      external: [/^node:/, 'puppeteer', 'vite', /^wgsl_reflect/, 'webgpu', /^three($|\/)/],
    },
  },
});
