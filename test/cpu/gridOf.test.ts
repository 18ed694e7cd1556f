/**
 * The host side of the all-pairs grid (gridOf in src/pairs/gridLayout.ts): its reach covers half
 * of every box's padded AABB (so a box whose AABB meets another's has its centre within that AABB
 * widened by the reach, which is all gridPairs looks at), it covers every centre, and its cell
 * count stays within a constant of 4 per box however small or clustered the boxes are. The GPU path itself is compared with the reference in test/gpu/bvhQueries.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BVH_AABB_PAD } from '../../src/constants.ts';
import { BOX_F64, type BoxArray, type Vec3 } from '../../src/core/types.ts';
import { GRID_MAX_CROWDING, gridOf } from '../../src/pairs/gridLayout.ts';
import { mulberry32, randomBoxes } from '../../src/scenes/generate.ts';
import { paddedAabbs } from '../../src/reference/accel.ts';

/** The widest AABB as the GPU pads it (BVH_AABB_PAD of the set-frame |centre| and extent). */
function widestPaddedAabb(boxes: BoxArray, origin: Vec3): number {
  const rebased = Float64Array.from(boxes.data);
  for (let o = 0; o < rebased.length; o += BOX_F64.STRIDE) {
    for (let k = 0; k < 3; k++) {
      rebased[o + k]! -= origin[k]!;
    }
  }
  const aabbs = paddedAabbs({ count: boxes.count, data: rebased }, BVH_AABB_PAD, 0);
  let widest = 0;
  for (let i = 0; i < aabbs.length; i += 6) {
    for (let k = 0; k < 3; k++) {
      widest = Math.max(widest, aabbs[i + 3 + k]! - aabbs[i + k]!);
    }
  }
  return widest;
}

describe('gridOf (all-pairs grid)', () => {
  it.each([
    ['uniform', randomBoxes(5000, mulberry32(1), { extent: 40, halfMin: 0.1, halfMax: 1 })],
    ['tiny boxes far apart', randomBoxes(2000, mulberry32(2), { extent: 1e4, halfMin: 1e-3, halfMax: 2e-3 })],
    ['one huge box among small ones', (() => {
      const b = randomBoxes(3000, mulberry32(3), { extent: 50, halfMin: 0.1, halfMax: 0.5 });
      b.data[BOX_F64.HALF] = 200;
      return b;
    })()],
    ['far from the origin', randomBoxes(3000, mulberry32(4), { extent: 30, offset: [1e6, -1e6, 5e5], halfMin: 0.1, halfMax: 1 })],
  ] as const)('%s: reach over half of every padded AABB, every centre inside, O(n) cells', (_name, boxes) => {
    const origin: Vec3 = [boxes.data[0]!, boxes.data[1]!, boxes.data[2]!];
    const g = gridOf(boxes, origin)!;
    expect(g).toBeDefined();
    expect(g.reach).toBeGreaterThanOrEqual(0.5 * 1.01 * widestPaddedAabb(boxes, origin) * (1 - 1e-12)); // 1e-12: rounding of the rebased copy
    // A search region of a few cells per axis, at most.
    expect(g.cell).toBeGreaterThanOrEqual(0.5 * g.reach);
    const cells = g.dims[0] * g.dims[1] * g.dims[2];
    // The coarsening loop stops at 4n + 64 cells; one spare cell per axis at most doubles each.
    expect(cells).toBeLessThanOrEqual(8 * (4 * boxes.count + 64));
    for (let o = 0; o < boxes.count * BOX_F64.STRIDE; o += BOX_F64.STRIDE) {
      for (let k = 0; k < 3; k++) {
        const q = Math.floor((boxes.data[o + k]! - origin[k]! - g.lo[k]!) / g.cell);
        expect(q).toBeGreaterThanOrEqual(0);
        expect(q).toBeLessThan(g.dims[k]!);
      }
    }
  });

  it('estimates the candidates per box: a handful for similar sizes, about n / 2 when one box spans the scene', () => {
    const similar = randomBoxes(10_000, mulberry32(5), { extent: 20, halfMin: 0.1, halfMax: 1 });
    const g = gridOf(similar, [0, 0, 0])!;
    expect(g.crowding).toBeGreaterThan(1);
    expect(g.crowding).toBeLessThan(50);
    similar.data[BOX_F64.HALF] = 100;
    const crowded = gridOf(similar, [0, 0, 0])!;
    expect(crowded.crowding).toBeGreaterThan(0.4 * similar.count);
    expect(crowded.crowding).toBeGreaterThan(GRID_MAX_CROWDING);
  });

  it('has no grid for an empty set', () => {
    expect(gridOf({ count: 0, data: new Float64Array(0) }, [0, 0, 0])).toBeUndefined();
  });
});
