/**
 * The wide records and the counted walk on trees built on the GPU (Dawn in Node): the records
 * bvhWiden wrote equal their CPU twin (wideRecords) entry for entry; the counted float64 walk
 * finds the boxes the GPU walk and the reference find; and closest, any and all hits through the
 * tree equal the reference on scenes that stress a tree: identical boxes, a planar scene, huge and
 * tiny boxes mixed; the GPU's counting kernel (RayQueries.walkCounts) counts what the twin counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoxArray, type ObbGpu } from '../../src/index.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/judge/index.ts';
import { anyHitGrid, closestHitGrid } from '../../src/reference/index.ts';
import { anyHit, allHits } from '../../src/reference/raycast.ts';
import { bvhSahCost, bvhWalkCounts, wideRecords } from '../../src/tree/quality.ts';
import { BOX_F64 } from '../../src/core/types.ts';
import { RayQueries, directionOrder } from '../../src/rays/RayQueries.ts';
import { Bvh } from '../../src/tree/Bvh.ts';
import { BVH_REBUILD_SAH_RATIO } from '../../src/constants.ts';
import { openNodeGpu, scoped, TEST_DRIVER } from './shared.ts';
import { createNodeGpu } from '../../src/node/runtime.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

/** Scenes that stress a tree: copies of one box, boxes on a plane (zero height), huge and tiny mixed. */
function scenes(): { name: string; boxes: BoxArray }[] {
  const rnd = mulberry32(77);
  const random = randomBoxes(4000, rnd, { extent: 60, halfMin: 0.1, halfMax: 2 });
  const S = BOX_F64.STRIDE;
  const identical: BoxArray = { count: 600, data: new Float64Array(600 * S) };
  for (let i = 0; i < 600; i++) {
    identical.data.set(random.data.subarray(0, S), i * S);
  }
  const planar = randomBoxes(3000, mulberry32(78), { extent: 80, halfMin: 0.2, halfMax: 1.5 });
  for (let i = 0; i < planar.count; i++) {
    planar.data[i * S + 2] = 0;
    planar.data[i * S + BOX_F64.HALF + 2] = 0;
  }
  const mixed = randomBoxes(3000, mulberry32(79), { extent: 100, halfMin: 0.001, halfMax: 0.01 });
  for (let i = 0; i < mixed.count; i += 50) {
    for (let k = 0; k < 3; k++) {
      mixed.data[i * S + BOX_F64.HALF + k] = 20 + 30 * rnd();
    }
  }
  return [{ name: 'random', boxes: random }, { name: 'identical', boxes: identical }, { name: 'planar', boxes: planar }, { name: 'huge and tiny', boxes: mixed }];
}

describe('the wide tree', () => {
  it('bvhWiden\'s records equal their CPU twin; the counted walk finds what the GPU and the reference find; every query equals the reference', async () => {
    for (const { name, boxes } of scenes()) {
      const set = gpu.createBoxSet(boxes);
      await gpu.buildBvh(set);
      const bvh = (await gpu.bvhOf(set))!;
      const snap = await bvh.snapshot();
      const twin = wideRecords(snap, boxes, set.origin);
      // Entry k of record r: (min xyz, pointer) at vec4 8r + 2k, (max xyz, 0) after it.
      expect(Array.from(snap.wideWords.filter((_, k) => k % 8 === 3)), name).toEqual(Array.from(twin.ptrs));
      // Internal entries: the node's AABB, the same floats; leaf entries: the padded box AABB, to f32.
      let worst = 0;
      for (let r = 0; r < snap.count - 1; r++) {
        for (let k = 0; k < 4; k++) {
          if (twin.ptrs[4 * r + k] === 0xffffffff) {
            continue;
          }
          for (let a = 0; a < 6; a++) {
            const gpuValue = snap.wideFloats[32 * r + 8 * k + (a < 3 ? a : a + 1)]!;
            const cpuValue = twin.bounds[24 * r + 6 * k + a]!;
            worst = Math.max(worst, Math.abs(gpuValue - cpuValue) / (1 + Math.abs(cpuValue)));
          }
        }
      }
      expect(worst, name).toBeLessThan(1e-5);
      const rays = randomRays(3000, boxes, mulberry32(80), { extent: 120 });
      const ref = closestHitGrid(boxes, rays);
      const counts = bvhWalkCounts(snap, boxes, set.origin, rays);
      const hits = await scoped(gpu, () => gpu.closestHit(set, rays, { accel: 'bvh' }));
      let twinOff = 0;
      let gpuOff = 0;
      for (let r = 0; r < rays.count; r++) {
        twinOff += counts.box[r] === ref.box[r] ? 0 : 1;
        gpuOff += hits.box[r] === ref.box[r] ? 0 : 1;
      }
      expect([twinOff, gpuOff], name).toEqual([0, 0]);
      const any = await gpu.anyHit(set, rays, { accel: 'bvh' });
      expect(Array.from(any, (x) => (x ? 1 : 0)), name).toEqual(Array.from(anyHit(boxes, rays)));
      const all = await gpu.allHits(set, rays, { accel: 'bvh' });
      const refAll = allHits(boxes, rays);
      expect(all.count, name).toBe(refAll.count);
      expect(bvhSahCost(snap, boxes), name).toBeGreaterThan(1);
      // The refit's own SAH count (Bvh.sahCost: padded AABBs, f32 sums) is the twin's.
      expect(Math.abs(snap.sah / bvhSahCost(snap, boxes) - 1), name).toBeLessThan(1e-3);
      expect(await bvh.sahCost(), name).toBe(snap.sah);
      expect(Math.max(...counts.nodes), name).toBeGreaterThan(0);
      // The GPU's counting kernel counts what the twin counts: the same boxes found, the same
      // records and box tests on all but the rays whose f32 and float64 pruning split a tie.
      const onGpu = await scoped(gpu, () => gpu.rays.walkCounts(set, rays, bvh));
      expect(Array.from(onGpu.box), name).toEqual(Array.from(hits.box));
      let differ = 0;
      let gpuSteps = 0;
      let twinSteps = 0;
      for (let r = 0; r < rays.count; r++) {
        differ += onGpu.nodes[r] === counts.nodes[r] && onGpu.boxTests[r] === counts.boxTests[r] ? 0 : 1;
        gpuSteps += onGpu.nodes[r]!;
        twinSteps += counts.nodes[r]!;
      }
      expect(differ, name).toBeLessThan(rays.count / 100);
      expect(Math.abs(gpuSteps - twinSteps), name).toBeLessThanOrEqual(twinSteps / 200);
      set.destroy();
    }
  });
});

describe('rays per lane', () => {
  it('the tree\'s closest- and any-hit answers equal the reference\'s with 1, 3 and 8 rays per lane (a GPU runs 1, a CPU adapter 8), with and without the subgroup walk, batches not a multiple of them, in the caller\'s order or walked by direction; points and normals equal brute force\'s', async () => {
    const boxes = randomBoxes(20_000, mulberry32(81), { extent: 150, halfMin: 0.2, halfMax: 2 });
    const set = gpu.createBoxSet(boxes);
    await gpu.buildBvh(set);
    const bvh = (await gpu.bvhOf(set))!;
    const rays = randomRays(5003, boxes, mulberry32(82), { extent: 160 });
    const ref = closestHitGrid(boxes, rays);
    const refAny = anyHitGrid(boxes, rays);
    // Brute force's geometry: the walks write theirs after their loop (shaders/rays/tree.wgsl),
    // from the hits they stored, and must give the same floats for the same box and face.
    const brute = await gpu.closestHit(set, rays, { geometry: true, accel: 'brute' });
    // SwiftShader's device has subgroups, so the default CPU-adapter walk is the subgroup one
    // (shaders/rays/tree_subgroup.wgsl); both walks run here.
    expect(gpu.ctx.device.features.has('subgroups'), 'Dawn\'s SwiftShader device has subgroups').toBe(true);
    expect(gpu.rays.tuning.subgroupWalk).toBe(gpu.ctx.adapter.isFallbackAdapter);
    for (const [raysPerLane, sortRays, subgroupWalk] of [
      [1, false, false], [1, true, true], [3, true, false], [3, true, true], [8, true, false], [8, true, true], [8, false, true],
    ] as const) {
      const rq = new RayQueries(gpu.ctx, undefined, 64, { raysPerLane, sortRays, subgroupWalk });
      const tree = (): Promise<typeof bvh> => Promise.resolve(bvh);
      const hits = await scoped(gpu, () => rq.closestHit(set, rays, { tree, geometry: true }));
      const any = await scoped(gpu, () => rq.anyHit(set, rays, { tree }));
      let off = 0;
      let anyOff = 0;
      let pointOff = 0;
      let geometryOff = 0;
      for (let r = 0; r < rays.count; r++) {
        off += hits.box[r] === ref.box[r] ? 0 : 1;
        for (let k = 3 * r; k < 3 * r + 3; k++) {
          // Object.is: a miss's point is NaN in both.
          geometryOff += Object.is(hits.normal![k], brute.normal![k]) && Object.is(hits.point![k], brute.point![k]) ? 0 : 1;
        }
        anyOff += any[r] === refAny[r] ? 0 : 1;
        // The hit point belongs to this ray (origin + t · direction), in the caller's order.
        if (hits.box[r]! >= 0) {
          const o = r * 7;
          const d = Math.hypot(rays.data[o + 3]!, rays.data[o + 4]!, rays.data[o + 5]!);
          const x = rays.data[o]! + hits.t[r]! * rays.data[o + 3]! / d;
          pointOff += Math.abs(hits.point![3 * r]! - x) < 1e-3 * (1 + Math.abs(x)) ? 0 : 1;
        }
      }
      expect([off, anyOff, pointOff, geometryOff], `${raysPerLane} per lane, sorted ${sortRays}, subgroup walk ${subgroupWalk}`).toEqual([0, 0, 0, 0]);
      expect(hits.normal!.some((x) => x !== 0)).toBe(true);
      expect(hits.box.filter((b) => b >= 0).length).toBeGreaterThan(1000);
      rq.trim();
    }
    // The order is a permutation with non-decreasing direction keys.
    const order = directionOrder(rays);
    expect(new Set(order).size).toBe(rays.count);
    expect(() => new RayQueries(gpu.ctx, undefined, 64, { raysPerLane: 0 })).toThrow(/raysPerLane/);
    // A device without subgroups cannot take the subgroup walk: said at construction.
    const noSubgroups = Object.create(gpu.ctx, { device: { value: Object.create(gpu.ctx.device, { features: { value: new Set<string>() } }) } }) as typeof gpu.ctx;
    expect(() => new RayQueries(noSubgroups, undefined, 64, { subgroupWalk: true })).toThrow(/subgroupWalk.*'subgroups' feature/);
    expect(new RayQueries(noSubgroups).tuning.subgroupWalk).toBe(false);
    set.destroy();
  });
});

describe('refit or rebuild', () => {
  it('boxes scattering frame by frame: ObbGpu refits its tree until the SAH passes BVH_REBUILD_SAH_RATIO × the built one, then rebuilds; a tree only refitted keeps loosening; every frame equals the reference', async () => {
    const n = 4000;
    const boxes = randomBoxes(n, mulberry32(83), { extent: 100, halfMin: 0.2, halfMax: 1.5 });
    const set = gpu.createBoxSet(boxes);
    const rays = randomRays(1500, boxes, mulberry32(84), { extent: 110 });
    await gpu.closestHit(set, rays, { accel: 'bvh' });
    const managed = (await gpu.bvhOf(set))!;
    const built = await managed.sahCost();
    const refitOnly = await Bvh.create(gpu.ctx, set);
    await refitOnly.build();
    const rnd = mulberry32(85);
    const S = BOX_F64.STRIDE;
    const sah: number[] = [];
    const loose: number[] = [];
    let moved = boxes;
    for (let frame = 0; frame < 12; frame++) {
      // Every box steps up to 6 m along a random direction (a random walk: the boxes scatter).
      const data = moved.data.slice();
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < 3; k++) {
          data[i * S + k] = data[i * S + k]! + 6 * (2 * rnd() - 1);
        }
      }
      moved = { count: n, data };
      await set.update(0, moved);
      const hits = await scoped(gpu, () => gpu.closestHit(set, rays, { accel: 'bvh' }));
      const ref = closestHitGrid(moved, rays);
      let off = 0;
      for (let r = 0; r < rays.count; r++) {
        off += hits.box[r] === ref.box[r] ? 0 : 1;
      }
      expect(off, `frame ${frame}`).toBe(0);
      expect(await gpu.bvhOf(set)).toBe(managed);
      sah.push(await managed.sahCost());
      await refitOnly.refit();
      loose.push(await refitOnly.sahCost());
    }
    // Loosening by refits, then a rebuild: the managed tree's cost fell back at least once, and
    // never went past the ratio by more than one frame's loosening.
    const drops = sah.filter((x, k) => k > 0 && x < 0.8 * sah[k - 1]!).length;
    expect(drops, sah.map((x) => (x / built).toFixed(2)).join(' ')).toBeGreaterThan(0);
    const step = Math.max(...loose.map((x, k) => x / (k === 0 ? built : loose[k - 1]!)));
    expect(Math.max(...sah), sah.join(' ')).toBeLessThan(BVH_REBUILD_SAH_RATIO * step * 1.5 * built);
    expect(loose[loose.length - 1]!, loose.join(' ')).toBeGreaterThan(BVH_REBUILD_SAH_RATIO * built);
    expect(loose[loose.length - 1]!, `${loose.join(' ')} vs ${sah.join(' ')}`).toBeGreaterThan(1.2 * Math.max(...sah));
    refitOnly.destroy();
    set.destroy();
  });
});

describe('rebuildSahRatio', () => {
  it('Infinity keeps refitting (the cost only grows); a ratio below 1 is refused', async () => {
    await expect(createNodeGpu({ driver: TEST_DRIVER, rebuildSahRatio: 0.5 })).rejects.toThrow(/rebuildSahRatio/);
    const never = await createNodeGpu({ driver: TEST_DRIVER, rebuildSahRatio: Infinity });
    try {
      const boxes = randomBoxes(3000, mulberry32(86), { extent: 80, halfMin: 0.2, halfMax: 1.5 });
      const set = never.createBoxSet(boxes);
      await never.buildBvh(set);
      const tree = (await never.bvhOf(set))!;
      const costs = [await tree.sahCost()];
      const rnd = mulberry32(87);
      let data = boxes.data;
      for (let frame = 0; frame < 4; frame++) {
        data = data.map((x, k) => (k % BOX_F64.STRIDE < 3 ? x + 8 * (2 * rnd() - 1) : x));
        await set.update(0, { count: boxes.count, data });
        await never.bvhOf(set);
        costs.push(await tree.sahCost());
      }
      expect(costs.every((x, k) => k === 0 || x > costs[k - 1]!), costs.join(' ')).toBe(true);
      expect(costs[4]!, costs.join(' ')).toBeGreaterThan(BVH_REBUILD_SAH_RATIO * costs[0]!);
    } finally {
      never.destroy();
    }
  });
});
