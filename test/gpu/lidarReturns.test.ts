/**
 * What the beam sees in headless Chromium's WebGPU (SwiftShader here): intensity, seeded noise and
 * dropout, dual returns from a beam of sub-rays, by both methods, each judged against the float64
 * reference (the suite test/gpu/page/suites/lidarReturns.ts; the same features on Dawn:
 * test/node/lidarReturns.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClean } from './expect.ts';
import { openGpuPage, type GpuPage } from './harness.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

describe('what the beam sees', () => {
  it.each(['raster', 'bvh'] as const)('intensity, noise and dropout, dual returns over 9 sub-rays with motion, by the %s method (seed 31): judged clean', async (method) => {
    const r = await gpu.call('lidarReturns', 'beamSees', 31, method);
    for (const summary of Object.values(r.summaries)) {
      expectClean(summary, 2e-3);
    }
    expect(r.passes).toBe(9);
    expect(r.twoReturns).toBeGreaterThan(50);
  });
});
