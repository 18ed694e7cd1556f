/**
 * Tree quality counts (src/tree/quality.ts) on a tree written by hand: its SAH cost worked out
 * on paper, its wide records, and the closest-hit walks' steps and boxes tested for rays from
 * either end (the binary walk from the far end prunes the near subtree by the best t). The
 * GPU-built trees' wide records and walks are checked in test/node/treeQuality.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { boxArrayFrom, rayArrayFrom } from '../../src/index.ts';
import { BVH_LEAF } from '../../src/constants.ts';
import { bvhSahCost, bvhWalkCounts, wideRecords } from '../../src/tree/quality.ts';
import type { BvhSnapshot } from '../../src/tree/Bvh.ts';

// Three unit cubes on the x axis at 0, 2 and 10; root = (node 1, leaf 2), node 1 = (leaf 0, leaf 1).
const boxes = boxArrayFrom([0, 2, 10].map((x) => ({ center: [x, 0, 0], halfExtents: [0.5, 0.5, 0.5], rotation: [0, 0, 0, 1] })) as never);
function handTree(): BvhSnapshot {
  const bytes = new ArrayBuffer(2 * 32);
  const f = new Float32Array(bytes);
  const w = new Uint32Array(bytes);
  f.set([-0.5, -0.5, -0.5], 0);
  w[3] = 1;
  f.set([10.5, 0.5, 0.5], 4);
  w[7] = (BVH_LEAF | 2) >>> 0;
  f.set([-0.5, -0.5, -0.5], 8);
  w[11] = (BVH_LEAF | 0) >>> 0;
  f.set([2.5, 0.5, 0.5], 12);
  w[15] = (BVH_LEAF | 1) >>> 0;
  return {
    count: 3, nodeFloats: f, nodeWords: w, wideFloats: new Float32Array(0), wideWords: new Uint32Array(0), keys: new Uint32Array(3), values: Uint32Array.from([0, 1, 2]),
    parents: new Uint32Array(5), rootRefits: 1, sah: 0, bounds: new Float32Array(6),
  };
}

describe('tree quality counts', () => {
  it('SAH: (A(root) + A(node 1) + three cubes) / A(root) = (46 + 14 + 18) / 46', () => {
    expect(bvhSahCost(handTree(), boxes)).toBeCloseTo(78 / 46, 12);
    expect(bvhSahCost(handTree(), boxes, { node: 2, box: 1 })).toBeCloseTo((2 * 60 + 18) / 46, 12);
  });

  it('the binary walk from −x visits both nodes and tests all three boxes; from +x the best t prunes node 1', () => {
    const rays = rayArrayFrom([
      { origin: [-5, 0, 0], direction: [1, 0, 0] },
      { origin: [20, 0, 0], direction: [-1, 0, 0] },
      { origin: [20, 5, 0], direction: [-1, 0, 0] },
    ] as never);
    const c = bvhWalkCounts(handTree(), boxes, [0, 0, 0], rays, 'binary');
    expect(Array.from(c.nodes)).toEqual([2, 1, 0]);
    expect(Array.from(c.boxTests)).toEqual([3, 1, 0]);
    expect(Array.from(c.box)).toEqual([0, 2, -1]);
    // The tree's coordinates relative to a floating origin 100 m along x: the same walk.
    const shifted = handTree();
    for (const k of [0, 4, 8, 12]) {
      shifted.nodeFloats[k]! -= 100;
    }
    const again = bvhWalkCounts(shifted, boxes, [100, 0, 0], rays, 'binary');
    expect([Array.from(again.nodes), Array.from(again.box)]).toEqual([[2, 1, 0], [0, 2, -1]]);
    // The wide walk: the root's record holds the three leaves (node 1's two, then the root's
    // own, then none), so one step each; the boxes whose padded AABBs the ray meets are tested.
    const wide = bvhWalkCounts(handTree(), boxes, [0, 0, 0], rays);
    expect([Array.from(wide.nodes), Array.from(wide.boxTests), Array.from(wide.box)]).toEqual([[1, 1, 1], [3, 3, 0], [0, 2, -1]]);
    const records = wideRecords(handTree(), boxes, [0, 0, 0]);
    expect(Array.from(records.ptrs)).toEqual([BVH_LEAF | 0, BVH_LEAF | 1, BVH_LEAF | 2, 0xffffffff, BVH_LEAF | 0, 0xffffffff, BVH_LEAF | 1, 0xffffffff].map((x) => x >>> 0));
    // A leaf's AABB is its box's, padded as the kernel pads it (BVH_AABB_PAD of extent and position).
    expect(records.bounds[0]).toBeLessThan(-0.5);
    expect(records.bounds[0]).toBeGreaterThan(-0.5 - 1e-4);
  });
});
