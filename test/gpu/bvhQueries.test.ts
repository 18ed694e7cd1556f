/**
 * Queries through the GPU-built BVH: the same answers as the reference (zero mismatches) and as
 * the GPU's brute-force path, on large scenes, adversarial rays, updates, and all-pairs.
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

describe('BVH rays', () => {
  it('100,000 rays over 100,000 boxes: closest, any and all hits equal the reference (seed 21)', async () => {
    const r = await gpu.call('bvhQueries', 'raysVsReference', 100_000, 100_000, 21);
    console.log(`build ${r.buildMs.toFixed(0)} ms, closest ${r.closestMs.toFixed(0)} ms (reference ${r.refMs.toFixed(0)} ms), ${r.hits} hits, ${r.allCount} in all-hits`);
    expect(r.closest.total).toBe(100_000);
    expect(r.hits).toBeGreaterThan(20_000);
    expectClean(r.closest, 1e-3);
    expectClean(r.any, 1e-3);
    expectClean(r.all, 1e-3);
  });

  it('20,000 rays over 10,000 boxes: the BVH equals the brute-force GPU path box for box (seed 22)', async () => {
    const r = await gpu.call('bvhQueries', 'raysVsBrute', 10_000, 20_000, 22);
    expect(r.hits).toBeGreaterThan(5000);
    expect(r.boxDiff).toBe(0);
    expect(r.tDiff).toBe(0);
    expect(r.anyDiff).toBe(0);
  });

  it('adversarial groups through the BVH (seed 23), on the walk the adapter defaults to', async () => {
    const r = await gpu.call('bvhQueries', 'adversarial', 23);
    console.log(`${r.adapter}: ${JSON.stringify(r.walk)}`);
    // The closest hits below ran the walk the tuning names: on a CPU adapter whose device has
    // subgroups (Chromium's SwiftShader, what CI runs) the subgroup walk, on GPUs the plain one.
    expect(r.walk.subgroupWalk).toBe(r.walk.fallbackAdapter && r.walk.subgroups);
    if (/swiftshader/i.test(r.adapter)) {
      expect(r.walk).toEqual({ fallbackAdapter: true, subgroups: true, subgroupWalk: true });
    }
    expect(r.groups.length).toBeGreaterThanOrEqual(12);
    for (const g of r.groups) {
      console.log(`[${g.name}]`);
      expectClean(g.closest);
      expectClean(g.any);
      expectClean(g.all);
    }
  });

  it('updates refit the tree and set() rebuilds it; every state equals the reference (seed 24)', async () => {
    const r = await gpu.call('bvhQueries', 'updates', 24);
    expect(r.reports).toHaveLength(4);
    for (const x of r.reports) {
      console.log(`[${x.label}]`);
      expectClean(x.summary, 1e-3);
    }
  });
});

describe('BVH pairs', () => {
  it.each([
    ['dense', 20_000], ['sparse', 20_000], ['identical', 1000], ['plane', 20_000], ['mixed', 10_000],
  ] as const)('all pairs, %s scene of %i boxes (seed 25), with contacts', async (kind, n) => {
    const r = await gpu.call('bvhQueries', 'allPairs', kind, n, 25);
    console.log(`${kind} ${n}: ${r.count} pairs in ${r.ms.toFixed(0)} ms`);
    expect(r.bvh).toBe(true);
    expect(r.count).toBeGreaterThan(0);
    expectClean(r.summary, 1e-3);
    expectClean(r.contacts);
  });

  it.each([
    ['dense', 20_000], ['sparse', 20_000], ['identical', 1000], ['plane', 20_000], ['mixed', 10_000],
  ] as const)('all pairs through the grid, %s scene of %i boxes (seed 25), with contacts', async (kind, n) => {
    const r = await gpu.call('bvhQueries', 'allPairs', kind, n, 25, 'grid');
    console.log(`${kind} ${n} (grid: ${r.grid}, bvh: ${r.bvh}): ${r.count} pairs in ${r.ms.toFixed(0)} ms`);
    expect(r.grid).toBe(true);
    expect(r.count).toBeGreaterThan(0);
    expectClean(r.summary, 1e-3);
    expectClean(r.contacts);
  });

  it.each([
    ['dense', 'grid'], ['slab', 'bvh'],
  ] as const)('accel auto: the %s scene of 20,000 boxes goes to the %s (a box as wide as the scene crowds the grid)', async (kind, path) => {
    const r = await gpu.call('bvhQueries', 'allPairs', kind, 20_000, 28, 'auto');
    expect({ grid: r.grid, bvh: r.bvh }).toEqual({ grid: path === 'grid', bvh: path === 'bvh' });
    expect(r.count).toBeGreaterThan(100);
    expectClean(r.summary, 1e-3);
    expectClean(r.contacts);
  });

  it.each(['grid', 'bvh'] as const)('all pairs through the %s from lists of 16: candidates and pairs regrown, nothing lost (dense, 5,000 boxes)', async (accel) => {
    const r = await gpu.call('bvhQueries', 'allPairs', 'dense', 5000, 27, accel, 16);
    expect(r[accel]).toBe(true);
    expect(r.count).toBeGreaterThan(16);
    // One run with 16 candidates, one with every candidate but 16 pairs, one with both sized.
    expect(r.runs).toBe(3);
    expectClean(r.summary, 1e-3);
    expectClean(r.contacts);
  });

  it('a SAT tolerance larger than the AABB padding reaches every all-pairs path (brute, BVH, grid, sweep)', async () => {
    // 1,500 pairs of cubes 0.05 apart, tolerance 0.1: every pair overlaps by the tolerance.
    const r = await gpu.call('bvhQueries', 'pairsWithinTolerance', 1500);
    expect(r['reference']!.length).toBe(2 * 1500);
    for (const path of ['brute', 'bvh', 'grid', 'sweep']) {
      expect(r[path], path).toEqual(r['reference']);
    }
  });

  it('adversarial SAT groups (seed 29, 600 boxes of each): every pair through the grid and through the BVH equals the reference', async () => {
    const r = await gpu.call('bvhQueries', 'adversarialAllPairs', 29, 600);
    expect(r.groups.length).toBeGreaterThan(4);
    for (const g of r.groups) {
      expect(g.name).toContain(`(${g.path})`);
      expectClean(g.summary, 1e-3);
    }
    // Near-contact pairs in every group (the far-from-origin group has about one per pair).
    for (const g of r.groups) {
      expect(g.count, g.name).toBeGreaterThanOrEqual(250);
    }
  });

  it('two sets with different origins through a tree over B (seed 26)', async () => {
    const r = await gpu.call('bvhQueries', 'cross', 5000, 4000, 26);
    expect(r.bvh).toBe(true);
    expect(r.count).toBeGreaterThan(100);
    expectClean(r.summary, 1e-3);
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
