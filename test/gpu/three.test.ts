/**
 * webgpu-obb/three in headless Chromium with three.js r187 from npm (suite test/gpu/page/suites/three.ts):
 * picks equal three's Raycaster over meshes in nested rotated and scaled groups and over an
 * InstancedMesh, in both clip spaces, with layers; after 1% of the objects move and sync();
 * sheared parents follow the policy; marquee selection equals three's Frustum on the same boxes;
 * sparse updates equal their CPU twin and are refused whole when bad.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClean } from './expect.ts';
import { openGpuPage, type GpuPage } from './harness.ts';
import type { ComparisonSummary } from './page/shared.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

interface PickReport { points: number; threeHits: number; threeVsReference: number; worstDistance: number; gpu: ComparisonSummary }

function expectSamePicks(r: PickReport, label: string): void {
  console.log(`[${label}] ${r.threeHits} of ${r.points} points hit; three vs reference: ${r.threeVsReference} differ, worst relative distance ${r.worstDistance.toExponential(2)}`);
  expect(r.points).toBeGreaterThanOrEqual(1000);
  expect(r.threeHits).toBeGreaterThan(r.points / 4);
  expect(r.threeVsReference).toBe(0);
  // three works through each matrix and its inverse in float64: agreement to ~1e-9, far inside float32 (6e-8).
  expect(r.worstDistance).toBeLessThan(1e-7);
  expectClean(r.gpu, 1e-2);
}

describe('picking (webgpu-obb/three vs three.js Raycaster)', () => {
  it('5,000 meshes in nested rotated, scaled groups, 30% on another layer: 1,000 screen points, both clip spaces (seed 71)', async () => {
    const r = await gpu.call('three', 'meshPicks', 71, 5000, 1000);
    expect(r.boxes).toBe(5000);
    expectSamePicks(r.webgpu, 'meshes, WebGPU clip space');
    expectSamePicks(r.webgl, 'meshes, WebGL clip space');
    expect(r.pickAt.same).toBe(true);
    expect(Math.abs((r.pickAt.distance ?? 0) - (r.pickAt.threeDistance ?? 1))).toBeLessThan(1e-3 * (r.pickAt.threeDistance ?? 1));
    expect(r.pickAt.normalLength).toBeCloseTo(1, 6);
  });

  it('an InstancedMesh of 5,000 instances: instance ids; 1% move, sync() updates exactly those, picks still equal (seed 72)', async () => {
    const r = await gpu.call('three', 'instancePicks', 72, 5000, 1000);
    expect(r.boxes).toBe(5000);
    expectSamePicks(r.before, 'instances');
    expect(r.sync).toMatchObject({ moved: r.moved, rebuilt: false });
    expect(r.resync.moved).toBe(0);
    expectSamePicks(r.after, 'instances after sync');
    expect(r.bufferDiffers).toBe(0);
  });

  it('meshes: 1% move and one changes layer, sync() finds them; added and removed objects rebuild (seed 73)', async () => {
    const r = await gpu.call('three', 'meshSync', 73, 3000, 1000);
    expect(r.sync).toEqual({ moved: r.moved, relayered: 1, rebuilt: false });
    expectSamePicks(r.after, 'meshes after sync');
    expect(r.added.rebuilt).toBe(true);
    expect(r.removed.rebuilt).toBe(true);
    expect(r.count).toBe(3000);
    expect(r.bufferDiffers).toBe(0);
  });
});

describe('sync beyond moved matrices', () => {
  it('a grown geometry, a moved InstancedMesh, moves during an upload, a refused sync and its retry (seed 76)', async () => {
    const r = await gpu.call('three', 'syncEdges', 76);
    expect(r.grown).toBe(1);
    expect(r.half).toBeCloseTo(1, 12);
    expect(r.all).toBe(2000);
    expect(r.during).toBe(1);
    expect(r.after).toBe(1);
    expect(r.refused).toBe('ValidationError');
    expect(r.untouched).toBe(true);
    expect(r.retried).toBe(2);
    expect(r.bufferDiffers).toBe(0);
  });
});

describe('which objects become boxes', () => {
  it('filter leaves a gizmo out (and sync puts it back when the filter changes its answer); a BatchedMesh is refused by name unless filtered out; a SkinnedMesh is its posed box', async () => {
    const r = await gpu.call('three', 'objectKinds');
    expect(r.filtered).toEqual({ count: 1, first: true });
    expect(r.unfiltered).toEqual({ count: 2, first: 'gizmo', rebuilt: true });
    expect(r.batchError).toMatch(/^ValidationError: .*BatchedMesh "batch".*filter/);
    expect(r.withoutCount).toBe(1);
    expect(r.skinned.centreX).toBeCloseTo(6, 5);
    expect(r.skinned.theirs).toBeGreaterThan(0);
    expect(r.skinned.ours).toBeCloseTo(r.skinned.theirs, 4);
  });
});

describe('policies and selection', () => {
  it('a sheared world matrix: shear "error" names the object; "fit" gives a box holding every corner', async () => {
    const r = await gpu.call('three', 'sheared');
    console.log(r.error);
    expect(r.isValidationError).toBe(true);
    expect(r.error).toMatch(/"crooked".*sheared/);
    expect(r.outside).toBe(0);
    expect(r.count).toBe(1);
  });

  it('marquee selection equals three\'s Frustum on the same boxes: 24 rectangles, both clip spaces, intersect and inside (seed 74)', async () => {
    const r = await gpu.call('three', 'marquee', 74, 24);
    const selected = r.reports.reduce((n, x) => n + x.intersect, 0);
    console.log(`marquee: ${selected} boxes selected over ${r.reports.length} rectangles, ${r.reports.reduce((n, x) => n + x.inside, 0)} inside`);
    expect(selected).toBeGreaterThan(100);
    for (const rep of r.reports) {
      expect(rep.missing + rep.extra + rep.insideDiffers, JSON.stringify(rep)).toBe(0);
    }
  });

  it('sparse updates: 100 scattered boxes in one call equal the host copy; duplicates, out-of-range, wrong counts and bad indices are refused whole', async () => {
    const r = await gpu.call('three', 'sparseUpdates', 75);
    expect(r.errors).toEqual([
      'ValidationError: indices[1]', 'ValidationError: indices[1]', 'ValidationError: indices', 'ValidationError: indices[0]', 'ValidationError: indices[0]',
    ]);
    expect(r.untouched).toBe(true);
    expect(r.changed).toBe(true);
    expect(r.differs).toBe(0);
    expect(r.masks).toEqual([2, 4, 1]);
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
