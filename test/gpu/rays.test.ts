/**
 * Ray kernels on the GPU (headless Chromium; SwiftShader here, a real GPU where present) against
 * the float64 reference through the comparator: zero mismatches on random and adversarial
 * suites, ambiguous counts printed.
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


const families = ['closest', 'any', 'all'] as const;

describe.each(families)('%s hit', (family) => {
  // 100,000 rays per family (× 64 boxes); random suites must stay well under 0.1% ambiguous.
  it(`random: 100,000 rays × 64 boxes (seed ${1000 + families.indexOf(family)})`, async () => {
    const r = await gpu.call('rays', 'random', family, 1000 + families.indexOf(family), 100_000, 64);
    expect(r.summary.total).toBe(100_000);
    expectClean(r.summary, 1e-3);
  });

  it('random, solid: false (seed 2024)', async () => {
    const r = await gpu.call('rays', 'random', family, 2024, 20_000, 64, false);
    expectClean(r.summary, 1e-3);
  });

  it('adversarial groups (seed 7)', async () => {
    const r = await gpu.call('rays', 'adversarial', family, 7);
    expect(r.groups.length).toBeGreaterThanOrEqual(12);
    for (const g of r.groups) {
      console.log(`[${g.name}]`);
      expectClean(g.summary);
    }
  });
});

// The other kernel path: the default tuning depends on the adapter (plain loop on CPU adapters,
// workgroup tiling + sphere cull on GPUs); both must be proven wherever the tests run.
describe.each(families)('%s hit, both kernel paths', (family) => {
  it.each(['tiled-cull', 'flat'] as const)(`%s: random 20,000 rays × 200 boxes (seed ${3000 + families.indexOf(family)}) and adversarial groups`, async (tuning) => {
    const r = await gpu.call('rays', 'random', family, 3000 + families.indexOf(family), 20_000, 200, true, tuning);
    console.log(r.tuning);
    expect(r.tuning).toBe(tuning === 'flat' ? 'tiled=false cull=false' : 'tiled=true cull=true');
    expectClean(r.summary, 1e-3);
    const a = await gpu.call('rays', 'adversarial', family, 8, tuning);
    for (const g of a.groups) {
      console.log(`[${g.name}]`);
      expectClean(g.summary);
    }
  });
});

describe('ray options', () => {
  it('max distance just short of and just past each hit (seed 31)', async () => {
    const r = await gpu.call('rays', 'maxDistanceAroundHit', 31, 5000);
    expect(r.refHits).toBeGreaterThan(1000);
    expectClean(r.short);
    expectClean(r.past);
  });

  it('non-unit directions are normalised (seed 32)', async () => {
    const r = await gpu.call('rays', 'nonUnitDirections', 32, 5000);
    expectClean(r.summary, 1e-3);
  });

  it('hit points and normals (geometry output, seed 33)', async () => {
    const r = await gpu.call('rays', 'geometry', 33, 5000);
    expectClean(r.summary, 1e-3);
    expect(r.hitCount).toBeGreaterThan(1000);
    expect(r.normalErrors).toBe(0);
  });

  it('all hits: capacity 1 re-runs and drops nothing (seed 34)', async () => {
    const r = await gpu.call('rays', 'allHitsOverflow', 34, 1);
    expect(r.count).toBeGreaterThan(100);
    expect(r.runs).toBe(2);
    expectClean(r.summary);
  });

  it('dispatch beyond 65,535 workgroups (workgroup size 1, 70,000 rays, both kernel paths)', async () => {
    const r = await gpu.call('rays', 'largeDispatch', 70_000);
    expect(Object.keys(r).sort()).toEqual(['any', 'anyTiled', 'closest', 'closestTiled']);
    for (const s of Object.values(r)) {
      expect(s.total).toBe(70_000);
      expectClean(s, 1e-3);
    }
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
