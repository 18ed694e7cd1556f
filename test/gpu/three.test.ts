/**
 * webgpu-obb/three in headless Chromium with three.js r187 from npm (suite test/gpu/page/suites/three.ts):
 * picks equal three's Raycaster over meshes in nested rotated and scaled groups and over an
 * InstancedMesh, in both clip spaces, with layers; after 1% of the objects move and sync();
 * sheared parents follow the policy; marquee selection equals three's Frustum on the same boxes;
 * sparse updates equal their CPU twin and are refused whole when bad. Picks and syncs in flight:
 * every value of a pick belongs to its own ray, syncs called while one runs share the next one,
 * everything rejects after destroy(), bad arguments are named, `layers` is a mask or a Layers;
 * face normals equal three's on mirrored objects; where small scenes spend their time (printed).
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

describe('picks and syncs in flight', () => {
  it('picks in flight together each answer for their own ray: 40 pickAt at once, a re-aimed raycaster, pickEach beside pickAt (seed 77)', async () => {
    const r = await gpu.call('three', 'concurrentPicks', 77, 5000, 40);
    console.log(`concurrent picks: ${r.hits} of ${r.points} hit; pickAt points off their ray: ${r.pickAtWrongPoints} (worst ${r.worstOffRay.toExponential(2)}), pick: ${r.pickWrongPoints}`);
    expect(r.hits).toBeGreaterThan(10);
    expect({ pickAtWrongPoints: r.pickAtWrongPoints, pickAtDiffer: r.pickAtDiffer, pickWrongPoints: r.pickWrongPoints, pickDiffer: r.pickDiffer, mixedDiffer: r.mixedDiffer })
      .toEqual({ pickAtWrongPoints: 0, pickAtDiffer: 0, pickWrongPoints: 0, pickDiffer: 0, mixedDiffer: 0 });
  });

  it('a sync() called while one is in flight shares the next one: three calls are two uploads, a burst of 20 at most two, nothing lost (seed 79)', async () => {
    const r = await gpu.call('three', 'coalescedSyncs', 79);
    expect(r.reports[0]).toEqual({ moved: 1, relayered: 0, rebuilt: false });
    expect(r.reports[1]).toEqual({ moved: 2, relayered: 0, rebuilt: false });
    expect(r.reports[2]).toEqual(r.reports[1]);
    expect(r.sameBC).toBe(true);
    expect(r.uploads).toBe(2);
    expect(r.burstUploads).toBeLessThanOrEqual(2);
    expect(r.last.moved).toBe(0);
    expect(r.bufferDiffers).toBe(0);
    r.centre29.forEach((x, k) => expect(x).toBeCloseTo(r.world[k]!, 9));
  });

  it('after destroy(), sync() rejects with StaleObjectError whether or not anything changed, as every pick does', async () => {
    const r = await gpu.call('three', 'afterDestroy', 80);
    for (const [call, result] of Object.entries(r).filter(([k]) => k !== 'adapter' && k !== 'tuning' && k !== 'walk')) {
      expect(result, call).toMatch(/^StaleObjectError: /);
    }
    expect(r.unchanged).toMatch(/^StaleObjectError: sync: /);
    expect(r.pickAt).toMatch(/^StaleObjectError: pickAt: /);
  });

  it('bad arguments of pickAt, pick and pickEach name the call and the argument', async () => {
    const r = await gpu.call('three', 'pickArguments');
    expect(r.xNaN).toBe('ValidationError: pickAt: x is not a finite number (got NaN)');
    expect(r.yNaN).toBe('ValidationError: pickAt: y is not a finite number (got NaN)');
    expect(r.xInfinite).toBe('ValidationError: pickAt: x is not a finite number (got Infinity)');
    expect(r.yString).toBe('ValidationError: pickAt: y is not a finite number (got string "0.5")');
    expect(r.camera).toMatch(/^ValidationError: pickAt: camera must be a three\.js Camera \(got undefined\)/);
    expect(r.layersFraction).toMatch(/^ValidationError: pickAt: options\.layers must be a layer mask .*\(got 1\.5\)/);
    expect(r.layersString).toMatch(/^ValidationError: pickAt: options\.layers must be a layer mask .*\(got string "all"\)/);
    expect(r.all).toMatch(/^ValidationError: pickAt: options\.all must be a boolean/);
    expect(r.raycaster).toMatch(/^ValidationError: pick: raycaster must be a three\.js Raycaster \(got undefined\)/);
    expect(r.rayNaN).toBe('ValidationError: pick: raycaster.ray.origin.y is not a finite number (got NaN)');
    expect(r.far).toMatch(/^ValidationError: pick: raycaster\.far /);
    expect(r.eachNaN).toBe('ValidationError: pickEach: raycasters[1].ray.origin.y is not a finite number (got NaN)');
    expect(r.each).toMatch(/^ValidationError: pickEach: raycasters must be an array of three\.js Raycasters/);
  });

  it('pickAt\'s layers is a mask (Layers.mask) or a Layers object, as three\'s Raycaster.layers: 13 cases, layer 31 both ways', async () => {
    const r = await gpu.call('three', 'layerOption');
    for (const c of r.report) {
      expect(c.ours, c.name).toBe(c.three);
    }
    const by = Object.fromEntries(r.report.map((c) => [c.name, c.ours]));
    expect(by).toMatchObject({
      'default': 'far', 'mask 1 (layer 0)': 'far', 'mask 2 (layer 1)': 'near', 'mask 0': 'nothing', 'Layers set(1)': 'near', 'Layers enableAll': 'near',
      'new Layers()': 'far', 'layer 31: Layers set(31)': 'near', 'layer 31: Layers enable(31)': 'near', 'layer 31: its mask': 'near',
    });
  });
});

describe('face normals', () => {
  it('face.normal equals the normal three reports, in object space: turned, scaled and mirrored meshes and instances, 400 rays (seed 82)', async () => {
    const r = await gpu.call('three', 'faceNormals', 82, 400);
    // 4 of the 5 scales have a negative determinant (mirrored), as meshes and as instances.
    console.log(`face normals: ${r.compared} hits compared, worst difference ${r.worst.toExponential(2)}`);
    expect(r.compared).toBeGreaterThan(200);
    expect(r.differs).toBe(0);
  });
});

describe('small scenes', () => {
  // The crossover sweep of docs/three.md ("Small scenes"): WEBGPU_OBB_THREE_SWEEP=1.
  const sweep = process.env.WEBGPU_OBB_THREE_SWEEP === '1';
  const sizes = sweep ? [500, 1000, 2000, 4000, 7000, 15000, 30000, 60000, 100000] : [7000];
  it(`where pickAt and sync() spend their time: ${sizes.join(', ')} meshes and instances (printed; docs/three.md, "Small scenes")`, async () => {
    for (const kind of ['meshes', 'instances'] as const) {
      for (const n of sizes.filter((s) => kind === 'instances' || s <= 30000)) {
        const r = await gpu.call('three', 'smallSceneCosts', 81, n, kind, sweep ? 40 : 20);
        console.log(`${kind} ${r.count}: pick ${JSON.stringify(r.pick)}; sync ${JSON.stringify(r.sync)}`);
        expect(r.count).toBe(n);
        expect(r.sync.movedPerSync).toBeGreaterThan(0);
      }
    }
  }, 900_000);
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
