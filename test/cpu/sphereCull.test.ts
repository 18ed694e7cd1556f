/**
 * The kernels' bounding-sphere early-out (raySphereCull) must never skip a box the slab test hits,
 * and must skip most of the boxes a random ray misses (otherwise it is useless).
 */
import { describe, expect, it } from 'vitest';
import { adversarialRayGroups } from '../../src/scenes/adversarial.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/scenes/generate.ts';
import { makeRayObbScratch, rayObbAt, raySphereCull } from '../../src/reference/query/rayObb.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Vec3 } from '../../src/core/types.ts';

function check(boxes: BoxArray, rays: RayArray, solid: boolean): { hits: number; culledMisses: number; misses: number } {
  const s = makeRayObbScratch();
  let hits = 0, misses = 0, culledMisses = 0;
  for (let r = 0; r < rays.count; r++) {
    const o = r * RAY_F64.STRIDE;
    const origin: Vec3 = [rays.data[o]!, rays.data[o + 1]!, rays.data[o + 2]!];
    const dir: Vec3 = [rays.data[o + 3]!, rays.data[o + 4]!, rays.data[o + 5]!];
    for (let b = 0; b < boxes.count; b++) {
      const bo = b * BOX_F64.STRIDE;
      const c: Vec3 = [boxes.data[bo]!, boxes.data[bo + 1]!, boxes.data[bo + 2]!];
      const radius = Math.hypot(boxes.data[bo + 3]!, boxes.data[bo + 4]!, boxes.data[bo + 5]!);
      const culled = raySphereCull(origin, dir, c, radius, rays.data[o + RAY_F64.MAX]!);
      if (rayObbAt(boxes.data, b, rays.data, r, solid, s)) {
        hits++;
        // A hit (t ≤ maxDistance) must never be culled, and a hit at t must survive tLimit = t.
        expect(culled).toBe(false);
        expect(raySphereCull(origin, dir, c, radius, s.t)).toBe(false);
      } else {
        misses++;
        culledMisses += culled ? 1 : 0;
      }
    }
  }
  return { hits, culledMisses, misses };
}

describe('raySphereCull', () => {
  it('never culls a hit on random scenes and culls most misses (seed 77)', () => {
    const rnd = mulberry32(77);
    const boxes = randomBoxes(200, rnd, { extent: 20, halfMin: 0.05, halfMax: 3 });
    const rays = randomRays(2000, boxes, rnd, { extent: 25 });
    const r = check(boxes, rays, true);
    expect(r.hits).toBeGreaterThan(500);
    expect(r.culledMisses / r.misses).toBeGreaterThan(0.8);
  });

  it('never culls a hit on the adversarial ray groups (seed 7)', () => {
    for (const g of adversarialRayGroups(7)) {
      check(g.boxes, g.rays, g.solid);
    }
  });

  it('is conservative far from the origin (1e6)', () => {
    const rnd = mulberry32(78);
    const boxes = randomBoxes(100, rnd, { extent: 50, offset: [1e6, -1e6, 5e5] });
    const rays = randomRays(1000, boxes, rnd, { extent: 60, offset: [1e6, -1e6, 5e5], aimed: 1 });
    expect(check(boxes, rays, true).hits).toBeGreaterThan(300);
  });
});
