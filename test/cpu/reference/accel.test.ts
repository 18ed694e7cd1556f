/**
 * The accelerated reference (grid for rays, sort-and-sweep for pairs) must give exactly the
 * brute-force reference's answers: it is what checks the GPU's BVH at 100,000 × 100,000.
 */
import { describe, expect, it } from 'vitest';
import { allHitsGrid, allPairsSweep, anyHitGrid, closestHitGrid } from '../../../src/reference/accel.ts';
import { allHits, anyHit, closestHit } from '../../../src/reference/raycast.ts';
import { allPairs, obbCross } from '../../../src/reference/pairs.ts';
import { adversarialRayGroups } from '../../../src/scenes/adversarial.ts';
import { mulberry32, randomBoxes, randomRays } from '../../../src/scenes/generate.ts';
import { BOX_F64, type BoxArray } from '../../../src/core/types.ts';

function same(a: { box: Int32Array; t: ArrayLike<number>; face: Uint8Array; inside: Uint8Array }, b: typeof a): number {
  let diff = 0;
  for (let r = 0; r < a.box.length; r++) {
    if (a.box[r] !== b.box[r] || (a.box[r]! >= 0 && (a.t[r] !== b.t[r] || a.face[r] !== b.face[r] || a.inside[r] !== b.inside[r]))) {
      diff++;
    }
  }
  return diff;
}

describe('grid reference equals brute force', { timeout: 60_000 }, () => {
  it.each([[1], [2], [500], [1500]])('random scene of %i boxes, 2,000 rays (seed 61)', (n) => {
    const rnd = mulberry32(61);
    const boxes = randomBoxes(n, rnd, { extent: 30, halfMin: 0.05, halfMax: 3 });
    const rays = randomRays(2000, boxes, rnd, { extent: 40 });
    expect(same(closestHitGrid(boxes, rays), closestHit(boxes, rays))).toBe(0);
    expect(anyHitGrid(boxes, rays)).toEqual(anyHit(boxes, rays));
    const ga = allHitsGrid(boxes, rays);
    const ba = allHits(boxes, rays);
    expect(ga.count).toBe(ba.count);
    expect(Array.from(ga.box)).toEqual(Array.from(ba.box));
    expect(Array.from(ga.ray)).toEqual(Array.from(ba.ray));
  });

  it('with masks, exclusion, max distance and solid: false (seed 62)', () => {
    const rnd = mulberry32(62);
    const boxes = randomBoxes(800, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
    const rays = randomRays(3000, boxes, rnd, { extent: 15, maxDistance: 8 });
    const options = {
      solid: false,
      boxMasks: Uint32Array.from({ length: 800 }, (_, i) => 1 << (i % 3)),
      rayMasks: Uint32Array.from({ length: 3000 }, (_, i) => 3 << (i % 2)),
      exclude: Int32Array.from({ length: 3000 }, (_, i) => (i % 4 === 0 ? i % 800 : -1)),
    };
    expect(same(closestHitGrid(boxes, rays, options), closestHit(boxes, rays, options))).toBe(0);
    expect(anyHitGrid(boxes, rays, options)).toEqual(anyHit(boxes, rays, options));
  });

  it('adversarial ray groups (seed 7), including rays in face planes and axis-aligned rays', () => {
    for (const g of adversarialRayGroups(7)) {
      const options = {
        solid: g.solid,
        ...(g.boxMasks ? { boxMasks: g.boxMasks } : {}),
        ...(g.rayMasks ? { rayMasks: g.rayMasks } : {}),
        ...(g.exclude ? { exclude: g.exclude } : {}),
      };
      expect(same(closestHitGrid(g.boxes, g.rays, options), closestHit(g.boxes, g.rays, options)), g.name).toBe(0);
    }
  });

  it('identical boxes and boxes in a plane (seed 63)', () => {
    const rnd = mulberry32(63);
    const boxes = randomBoxes(600, rnd, { extent: 10 });
    const identical: BoxArray = { count: 600, data: boxes.data.slice() };
    const plane: BoxArray = { count: 600, data: boxes.data.slice() };
    for (let i = 0; i < 600; i++) {
      identical.data.set(boxes.data.subarray(0, 15), i * BOX_F64.STRIDE);
      plane.data[i * BOX_F64.STRIDE + 2] = 0;
    }
    for (const b of [identical, plane]) {
      const rays = randomRays(2000, b, rnd, { extent: 15 });
      expect(same(closestHitGrid(b, rays), closestHit(b, rays))).toBe(0);
    }
  });
});

describe('sort-and-sweep pairs equal brute force', { timeout: 60_000 }, () => {
  it.each([[2, 3], [400, 5], [2000, 20], [2000, 60]])('%i boxes in a cube of half-size %i (seed 64)', (n, extent) => {
    const boxes = randomBoxes(n, mulberry32(64), { extent, halfMin: 0.1, halfMax: 2 });
    expect(Array.from(allPairsSweep(boxes))).toEqual(Array.from(allPairs(boxes)));
  });

  it('two sets (seed 65)', () => {
    const rnd = mulberry32(65);
    const a = randomBoxes(700, rnd, { extent: 12 });
    const b = randomBoxes(500, rnd, { extent: 12 });
    expect(Array.from(allPairsSweep(a, {}, b))).toEqual(Array.from(obbCross(a, b)));
  });
});
