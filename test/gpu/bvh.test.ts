/** The BVH on the GPU: scan and radix sort first, then the tree and its queries. */
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

describe('building blocks', () => {
  it.each([1, 1000, 1024, 1025, 300_000, 2_000_000])('exclusive scan of %i values (seed 1), both workgroup shapes', async (n) => {
    for (const gpuShape of [false, true]) {
      const r = await gpu.call('bvh', 'scan', 1, n, gpuShape);
      expect(r.wrong).toBe(0);
    }
  });

  it.each([
    [2, 32, 2], [1000, 30, 50], [1025, 30, 1025], [20_000, 17, 700], [100_000, 30, 100], [300_000, 30, 300_000], [1_000_000, 30, 1_000_000],
  ])('radix sort of %i keys (%i bits, %i distinct, seed 2) is stable, both workgroup shapes', async (n, bits, distinct) => {
    for (const gpuShape of [false, true]) {
      const r = await gpu.call('bvh', 'sort', 2, n, bits, distinct, gpuShape);
      console.log(`sort ${n} keys (${gpuShape ? 'GPU' : 'adapter default'} shape): ${r.ms.toFixed(1)} ms`);
      expect(r.wrong).toBe(0);
    }
  });

  it.each([3, 5, 7])('radix sort with %i-bit digits (an odd pass count for 32 and 30 bits, rounded up to even) is stable', async (sortBits) => {
    for (const bits of [32, 30]) {
      const r = await gpu.call('bvh', 'sort', 4, 20_000, bits, 5000, false, sortBits);
      expect(r.wrong).toBe(0);
    }
  });

  it('a sort tuning over the workgroup memory limit (128 threads × 8-bit digits) is refused with the bytes it needs', async () => {
    const msg = await gpu.call('bvh', 'sortTuningRefused');
    expect(msg).toMatch(/^RangeError: RadixSort: 128 threads × 2\^8 digits need 133632 bytes of workgroup memory, over the device's \d+/);
  });
});

describe('tree', () => {
  it.each([
    ['random', 2], ['random', 3], ['random', 1000], ['random', 100_000],
    ['identical', 5000], ['plane', 20_000], ['mixed', 20_000], ['clustered', 20_000],
  ] as const)('%s scene, %i boxes (seed 5): every leaf once, parents consistent, AABBs nest', async (kind, n) => {
    const r = await gpu.call('bvh', 'invariants', kind, n, 5, false);
    console.log(`${kind} ${n}: depth ${r.maxDepth}, build ${r.buildMs.toFixed(1)} ms`);
    expect(r.errors).toEqual([]);
    expect(r.maxDepth).toBeLessThan(64);
  });

  it.each([
    ['random', 50_000], ['random', 2], ['identical', 5000], ['plane', 20_000], ['mixed', 20_000],
  ] as const)('refit after every box moved keeps the invariants (%s, %i boxes, seed 6)', async (kind, n) => {
    const r = await gpu.call('bvh', 'invariants', kind, n, 6, true);
    console.log(`refit ${kind} ${n}: ${r.refitMs.toFixed(1)} ms`);
    expect(r.errors).toEqual([]);
  });
});

describe('LiDAR and frustum', () => {
  it.each([
    [0, 'raster', 'default'], [1e5, 'raster', 'default'], [0, 'raster', 100], [0, 'bvh', 'default'], [1e5, 'bvh', 'default'],
  ] as const)('a 32 × 512 sweep over 3,000 boxes at offset %d by the %s method (tile lists %s) equals the reference (seed 11)', async (offset, method, lists) => {
    const r = await gpu.call('bvh', 'lidar', 11, 32, 512, 3000, offset, method, lists === 'default' ? null : lists);
    console.log(`LiDAR (${r.method}, tile lists ${lists}) ${r.rays} rays: ${r.returns} returns, ${r.ms.toFixed(0)} ms; ${r.vsBvh} rays differ from the BVH method`);
    expect(r.method).toBe(method);
    expectClean(r.summary, 1e-3);
    expect(r.returns).toBeGreaterThan(r.rays / 10);
    expect(r.pointErrors).toBe(0);
    expect(r.overflowed).toBe(0);
    expect(r.vsBvh).toBe(0);
    if (lists !== 'default') {
      // The lists of 100 entries overflowed: the sweep was run again with lists of its size.
      expect(r.listCapacity).toBeGreaterThan(1000);
    }
  });

  it('the raster method on its hard cases (unsorted channels up to 80°, seam, tilt, tiny far boxes, masks, exact copies, inside a box) equals the reference and the BVH method (seed 13)', async () => {
    const r = await gpu.call('bvh', 'lidarRasterAdversarial', 13);
    const [outside, inside] = r.poses;
    console.log(`raster LiDAR, ${r.rays} rays: outside ${outside!.returns} returns (${outside!.ties} on boxes with an exact copy), inside ${inside!.returns} returns (${inside!.zeros} at t = 0)`);
    expect(outside!.ties).toBeGreaterThan(100);
    for (const p of r.poses) {
      expectClean(p.summary, 1e-3);
      expect(p.vsBvh).toBe(0);
    }
    expect(outside!.returns).toBeGreaterThan(r.rays / 3);
    expect(outside!.zeros).toBe(0);
    expect(inside!.zeros).toBe(r.rays);
  });

  it('frustum culling at 1e4 from the origin equals the reference, with draw arguments (seed 12)', async () => {
    const r = await gpu.call('bvh', 'frustum', 12, 20_000);
    expectClean(r.summary, 1e-3);
    expect(r.visible).toBeGreaterThan(100);
    expect(r.visible).toBeLessThan(20_000);
    expect(r.drawArgs).toEqual([36, r.visible, 0, 0, 0]);
  });
});
