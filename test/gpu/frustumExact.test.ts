/**
 * The exact frustum cull in headless Chromium (suite `frustumExact`): the GPU against the float64
 * twin through the comparator (compareFrustum with `exact`), random frusta over 120,000 boxes and
 * the adversarial groups of test/fixtures/frustumCases.ts, as test/node/frustumExact.test.ts does
 * on Dawn. The plane test's list on the same boxes passes its own comparison and contains the
 * exact one.
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

describe('exact frustum culling (browser)', () => {
  it('random frusta: 4 kinds × 3 cameras × 10,000 boxes = 120,000 boxes, zero mismatches, ambiguous under 1e-3 (seed 3340)', async () => {
    const r = await gpu.call('frustumExact', 'exactCull', 3340, 3, 10_000, 'random/');
    let total = 0, ambiguous = 0, planeOnly = 0;
    for (const rep of r.reports) {
      expectClean(rep.exact, 1e-3);
      expectClean(rep.planes, 1e-3);
      expect(rep.notSubset, rep.name).toBe(0);
      expect(rep.drawArgsCount, rep.name).toBe(true);
      total += rep.exact.total;
      ambiguous += rep.exact.ambiguous;
      planeOnly += rep.planeOnly;
    }
    console.log(`random (${r.adapter}): ${total} boxes, ${ambiguous} ambiguous, ${planeOnly} outside boxes that only the plane test keeps`);
    expect(total).toBe(120_000);
    expect(ambiguous / total).toBeLessThan(1e-3);
    expect(planeOnly).toBeGreaterThan(1000);
  });

  it('adversarial groups against 4 frusta (edges, corners, faces, containment, inside, flat, near-parallel edges): zero mismatches (seed 3341)', async () => {
    const r = await gpu.call('frustumExact', 'exactCull', 3341, 0, 0, 'adversarial/');
    let total = 0, ambiguous = 0, planeOnly = 0;
    for (const rep of r.reports) {
      expectClean(rep.exact);
      expectClean(rep.planes);
      expect(rep.notSubset, rep.name).toBe(0);
      expect(rep.clearOutsideKept, rep.name).toBe(0);
      total += rep.exact.total;
      ambiguous += rep.exact.ambiguous;
      planeOnly += rep.planeOnly;
    }
    console.log(`adversarial: ${total} boxes in ${r.reports.length} groups, ${ambiguous} ambiguous, ${planeOnly} outside boxes that only the plane test keeps`);
    expect(r.reports.length).toBe(28);
    expect(planeOnly).toBeGreaterThan(1000);
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
