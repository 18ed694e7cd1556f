/** The BVH on the GPU: scan and radix sort first, then the tree and its queries. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGpuPage, type GpuPage } from './harness.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

describe('building blocks', () => {
  it.each([1, 1000, 1024, 1025, 300_000, 2_000_000])('exclusive scan of %i values (seed 1)', async (n) => {
    const r = await gpu.call<{ n: number; wrong: number }>('bvh', 'scan', 1, n);
    expect(r.wrong).toBe(0);
  });

  it.each([
    [2, 32, 2], [1000, 30, 50], [1025, 30, 1025], [100_000, 30, 100], [300_000, 30, 300_000], [1_000_000, 30, 1_000_000],
  ])('radix sort of %i keys (%i bits, %i distinct, seed 2) is stable', async (n, bits, distinct) => {
    const r = await gpu.call<{ n: number; wrong: number; ms: number }>('bvh', 'sort', 2, n, bits, distinct);
    console.log(`sort ${n} keys: ${r.ms.toFixed(1)} ms`);
    expect(r.wrong).toBe(0);
  });
});
