/**
 * Suite `bvhQueries`: every query through the BVH, against the float64 reference (exact grid and
 * sort-and-sweep twins of the brute-force reference for large scenes) and against the GPU's own
 * brute-force path, through the comparator.
 */
import { BOX_F64, type BoxArray, type RaycastOptions } from '../../../../src/index.ts';
import { adversarialPairGroups, adversarialRayGroups, compareAllHits, compareAnyHits, compareClosestHits, comparePairLists, comparePairs, mulberry32, randomBoxes, randomRays } from '../../../../src/judge/index.ts';
import { allHitsGrid, allPairs as refAllPairs, allPairsSweep, anyHitGrid, closestHitGrid } from '../../../../src/reference/index.ts';
import { bvhScene } from './bvh.ts';
import { scoped, summarize, type ComparisonSummary } from '../shared.ts';

/** A big scene: boxes spread so rays meet a handful each. */
function bigScene(n: number, rays: number, seed: number): { boxes: BoxArray; rays: ReturnType<typeof randomRays> } {
  const rnd = mulberry32(seed);
  const extent = 8 * Math.cbrt(n);
  const boxes = randomBoxes(n, rnd, { extent, halfMin: 0.2, halfMax: 2 });
  return { boxes, rays: randomRays(rays, boxes, rnd, { extent: extent * 1.1 }) };
}

/** Closest, any and all hits of `rays` rays over `n` boxes through the BVH vs the reference. */
export async function raysVsReference(n: number, rayCount: number, seed: number) {
  return scoped(async (gpu) => {
    const { boxes, rays } = bigScene(n, rayCount, seed);
    const set = gpu.createBoxSet(boxes);
    try {
      const t0 = performance.now();
      await gpu.buildBvh(set);
      const buildMs = performance.now() - t0;
      const t1 = performance.now();
      const closest = await gpu.closestHit(set, rays, { accel: 'bvh' });
      const closestMs = performance.now() - t1;
      const any = await gpu.anyHit(set, rays, { accel: 'bvh' });
      const all = await gpu.allHits(set, rays, { accel: 'bvh' });
      const input = { boxes: set.boxes, rays, origin: set.origin };
      const t2 = performance.now();
      const refClosest = closestHitGrid(boxes, rays);
      const refMs = performance.now() - t2;
      return {
        closest: summarize(compareClosestHits(input, closest, refClosest)),
        any: summarize(compareAnyHits(input, any, anyHitGrid(boxes, rays))),
        all: summarize(compareAllHits(input, all, allHitsGrid(boxes, rays))),
        hits: closest.box.filter((b) => b >= 0).length, allCount: all.count, buildMs, closestMs, refMs,
      };
    } finally {
      set.destroy();
    }
  });
}

/** BVH against the GPU's brute-force path, box for box (closest) and flag for flag (any). */
export async function raysVsBrute(n: number, rayCount: number, seed: number) {
  return scoped(async (gpu) => {
    const { boxes, rays } = bigScene(n, rayCount, seed);
    const set = gpu.createBoxSet(boxes);
    try {
      const bvh = await gpu.closestHit(set, rays, { accel: 'bvh' });
      const brute = await gpu.closestHit(set, rays, { accel: 'brute' });
      let boxDiff = 0;
      let tDiff = 0;
      for (let r = 0; r < rays.count; r++) {
        if (bvh.box[r] !== brute.box[r]) {
          boxDiff++;
        } else if (bvh.box[r]! >= 0 && bvh.t[r] !== brute.t[r]) {
          tDiff++;
        }
      }
      const anyB = await gpu.anyHit(set, rays, { accel: 'bvh' });
      const anyF = await gpu.anyHit(set, rays, { accel: 'brute' });
      const anyDiff = anyB.reduce((s, v, r) => s + (v !== anyF[r] ? 1 : 0), 0);
      return { boxDiff, tDiff, anyDiff, hits: bvh.box.filter((b) => b >= 0).length };
    } finally {
      set.destroy();
    }
  });
}

/** The adversarial ray groups (masks, exclusion, max distance, solid, grazing…) through the BVH. */
export async function adversarial(seed: number) {
  return scoped(async (gpu) => {
    const groups: { name: string; closest: ComparisonSummary; any: ComparisonSummary; all: ComparisonSummary }[] = [];
    for (const g of adversarialRayGroups(seed)) {
      const set = gpu.createBoxSet(g.boxes, g.boxMasks ? { masks: g.boxMasks } : {});
      try {
        const q = {
          accel: 'bvh' as const, solid: g.solid,
          ...(g.rayMasks ? { rayMasks: g.rayMasks } : {}), ...(g.exclude ? { exclude: g.exclude } : {}),
        };
        const options: RaycastOptions = {
          solid: g.solid, ...(g.boxMasks ? { boxMasks: g.boxMasks } : {}),
          ...(g.rayMasks ? { rayMasks: g.rayMasks } : {}), ...(g.exclude ? { exclude: g.exclude } : {}),
        };
        const input = { boxes: set.boxes, rays: g.rays, options, origin: set.origin };
        groups.push({
          name: g.name,
          closest: summarize(compareClosestHits(input, await gpu.closestHit(set, g.rays, q)), 2),
          any: summarize(compareAnyHits(input, await gpu.anyHit(set, g.rays, q)), 2),
          all: summarize(compareAllHits(input, await gpu.allHits(set, g.rays, q)), 2),
        });
      } finally {
        set.destroy();
      }
    }
    return { groups };
  });
}

/** Updates drive refits (same count) and rebuilds (set): every state answers like the reference. */
export async function updates(seed: number) {
  return scoped(async (gpu) => {
    const { boxes, rays } = bigScene(4000, 4000, seed);
    const set = gpu.createBoxSet(boxes);
    const reports: { label: string; summary: ComparisonSummary }[] = [];
    try {
      const check = async (label: string, current: BoxArray) => {
        const hits = await gpu.closestHit(set, rays, { accel: 'bvh' });
        reports.push({ label, summary: summarize(compareClosestHits({ boxes: current, rays, origin: set.origin }, hits, closestHitGrid(current, rays), { maxCases: 2 })) });
      };
      await check('built', boxes);
      // Move every box (refit), twice, without awaiting the first (ordering).
      const rnd = mulberry32(seed + 1);
      const moved = (src: BoxArray): BoxArray => {
        const data = src.data.slice();
        for (let i = 0; i < src.count; i++) {
          for (let k = 0; k < 3; k++) {
            data[i * BOX_F64.STRIDE + k]! += (rnd() - 0.5) * 6;
          }
        }
        return { count: src.count, data };
      };
      const m1 = moved(boxes);
      const m2 = moved(m1);
      void set.update(0, m1);
      await check('after update (refit)', m1);
      await set.update(0, m2);
      await check('after a second update (refit)', m2);
      // Replace with a different count (rebuild).
      const other = bigScene(6000, 1, seed + 2).boxes;
      await set.set(other);
      await check('after set (rebuild, more boxes)', other);
      return { reports };
    } finally {
      set.destroy();
    }
  });
}

/**
 * All pairs through the BVH or the grid vs the sort-and-sweep reference, with contacts; a
 * `capacity` makes the lists start that small (re-runs).
 */
export async function allPairs(kind: string, n: number, seed: number, accel: 'bvh' | 'grid' | 'auto' = 'bvh', capacity?: number) {
  return scoped(async (gpu) => {
    const boxes = kind === 'dense' ? randomBoxes(n, mulberry32(seed), { extent: 1.6 * Math.cbrt(n), halfMin: 0.2, halfMax: 1 })
      : kind === 'sparse' || kind === 'slab' ? randomBoxes(n, mulberry32(seed), { extent: 6 * Math.cbrt(n), halfMin: 0.2, halfMax: 1 })
        : bvhScene(kind, n, seed);
    if (kind === 'slab') {
      // 'sparse' with box 0 as wide as the scene and 0.2 thick: a ground slab that many boxes meet.
      boxes.data.set([6 * Math.cbrt(n), 6 * Math.cbrt(n), 0.2], BOX_F64.HALF);
    }
    const set = gpu.createBoxSet(boxes);
    try {
      const t0 = performance.now();
      const list = await gpu.allPairs(set, { accel, contacts: true, ...(capacity === undefined ? {} : { capacity }) });
      const ms = performance.now() - t0;
      const ref = allPairsSweep(boxes);
      const cmp = comparePairLists({ a: set.boxes, origin: set.origin }, list.pairs, ref);
      // The contacts of each pair equal the per-pair SAT (gap and axis within the error model).
      const contacts = comparePairs({ a: set.boxes, pairs: list.pairs, origin: set.origin },
        { count: list.count, overlap: new Uint8Array(list.count).fill(1), gap: list.gap!, axis: list.axis! });
      return { summary: summarize(cmp), contacts: summarize(contacts, 2), count: list.count, runs: list.runs, bvh: list.bvh, grid: list.grid, ms };
    } finally {
      set.destroy();
    }
  });
}

/**
 * Every pair within each adversarial SAT group (near-parallel edges, touching faces, …: boxes at
 * contact distance, where the broad phases' AABB padding and the narrow phase's tolerance
 * matter) through the grid and the BVH, against the sort-and-sweep reference.
 */
export async function adversarialAllPairs(seed: number, perGroup: number) {
  return scoped(async (gpu) => {
    const groups = [];
    for (const g of adversarialPairGroups(seed)) {
      // The groups' pairs share one neighbourhood: every box meets most others, so the first
      // `perGroup` boxes (whole pairs) keep the lists small.
      const n = Math.min(g.boxes.count, perGroup);
      const boxes = { count: n, data: g.boxes.data.slice(0, n * BOX_F64.STRIDE) };
      const set = gpu.createBoxSet(boxes);
      try {
        const ref = allPairsSweep(boxes);
        for (const accel of ['grid', 'bvh'] as const) {
          const list = await gpu.allPairs(set, { accel });
          groups.push({
            name: `${g.name} (${accel})`, path: list.grid ? 'grid' : list.bvh ? 'bvh' : 'brute', count: list.count,
            summary: summarize(comparePairLists({ a: set.boxes, origin: set.origin }, list.pairs, ref), 3),
          });
        }
      } finally {
        set.destroy();
      }
    }
    return { groups };
  });
}

/** Two sets through a BVH over B vs the reference. */
export async function cross(nA: number, nB: number, seed: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const a = randomBoxes(nA, rnd, { extent: 40, halfMin: 0.2, halfMax: 1.5 });
    const b = randomBoxes(nB, rnd, { extent: 40, halfMin: 0.2, halfMax: 1.5 });
    const setA = gpu.createBoxSet(a, { origin: [3, -2, 1] });
    const setB = gpu.createBoxSet(b, { origin: [-7, 5, 2] });
    try {
      const list = await gpu.obbCross(setA, setB, { accel: 'bvh' });
      const cmp = comparePairLists({ a: setA.boxes, b: setB.boxes, origin: setA.origin, originB: setB.origin }, list.pairs, allPairsSweep(a, {}, b));
      return { summary: summarize(cmp), count: list.count, bvh: list.bvh };
    } finally {
      setA.destroy();
      setB.destroy();
    }
  });
}

/**
 * A custom SAT tolerance through every all-pairs path: pairs of small boxes near the origin
 * whose gaps (0.05) are under the tolerance (0.1) but over any AABB padding.
 */
export async function pairsWithinTolerance(n: number) {
  return scoped(async (gpu) => {
    const inputs = Array.from({ length: 2 * n }, (_, k) => ({
      center: [Math.floor(k / 2) * 3 + (k % 2) * 0.25, 0, 0] as [number, number, number],
      halfExtents: [0.1, 0.1, 0.1] as [number, number, number],
      axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] as [[number, number, number], [number, number, number], [number, number, number]],
    }));
    const set = gpu.createBoxSet(inputs);
    try {
      const out: Record<string, number[]> = {};
      for (const accel of ['brute', 'bvh', 'grid'] as const) {
        out[accel] = Array.from((await gpu.allPairs(set, { accel, tolerance: 0.1 })).pairs);
      }
      out['sweep'] = Array.from(allPairsSweep(set.boxes, { tolerance: 0.1 }));
      out['reference'] = Array.from(refAllPairs(set.boxes, { tolerance: 0.1 }));
      return out;
    } finally {
      set.destroy();
    }
  });
}
