/**
 * Tree quality in hardware-independent counts, from a tree read back (Bvh.snapshot): its SAH
 * cost, and per ray the steps a closest-hit walk takes and the boxes it tests, in float64: the
 * walk of shaders/rays/tree_walk.wgsl over the wide records (walkTree: a record per step, its four
 * AABBs tested, leaves' boxes tested, internal entries pushed farthest first, pruned by the best
 * t), or the binary walk it replaced (a node per step, leaf children tested unconditionally).
 * For the bench and tests; no query uses it.
 */
import { BVH_AABB_PAD, BVH_LEAF, EPS_DIR } from '../constants.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Vec3 } from '../core/types.ts';
import { aabbHalfWidthAt } from '../core/helpers.ts';
import { makeRayObbScratch, rayObbAt } from '../reference/query/rayObb.ts';
import type { BvhSnapshot } from './Bvh.ts';

/** The costs of the SAH (relative): visiting an internal node, testing a box. */
export interface SahCosts {
  readonly node: number;
  readonly box: number;
}

/** Surface area of node n's AABB (nodeFloats: min xyz at 8n, max xyz at 8n + 4). */
function nodeArea(f: Float32Array, n: number): number {
  const x = Math.max(0, f[8 * n + 4]! - f[8 * n]!);
  const y = Math.max(0, f[8 * n + 5]! - f[8 * n + 1]!);
  const z = Math.max(0, f[8 * n + 6]! - f[8 * n + 2]!);
  return 2 * (x * y + y * z + z * x);
}

function boxArea(boxes: BoxArray, i: number): number {
  const o = i * BOX_F64.STRIDE;
  const e = [0, 1, 2].map((k) => aabbHalfWidthAt(boxes.data, o, k));
  return 8 * (e[0]! * e[1]! + e[1]! * e[2]! + e[2]! * e[0]!);
}

/**
 * The SAH cost of a binary tree (Goldsmith & Salmon's surface-area heuristic as BVH papers use
 * it): Σ over internal nodes of node · A(n) / A(root) plus Σ over leaves of box · A(leaf) /
 * A(root), A the AABB's surface area; default costs 1 and 1. Lower is better; comparable between
 * trees over the same boxes.
 */
export function bvhSahCost(tree: BvhSnapshot, boxes: BoxArray, costs: SahCosts = { node: 1, box: 1 }): number {
  const internal = Math.max(0, tree.count - 1);
  if (internal === 0) {
    return tree.count * costs.box;
  }
  const f = tree.nodeFloats;
  const rootArea = nodeArea(f, 0);
  let nodes = 0;
  for (let n = 0; n < internal; n++) {
    nodes += nodeArea(f, n);
  }
  let leaves = 0;
  for (let i = 0; i < boxes.count; i++) {
    leaves += boxArea(boxes, i);
  }
  return rootArea === 0 ? internal * costs.node + tree.count * costs.box : (costs.node * nodes + costs.box * leaves) / rootArea;
}

/**
 * Entry distance of a ray into the AABB with min xyz at a[minAt ..] and max xyz at a[maxAt ..]
 * (−1 on a miss): the slab test of the walks, axes along `par` decided by containment.
 */
function aabbEntry(ray: RayWalk, a: ArrayLike<number>, minAt: number, maxAt: number): number {
  let tIn = 0;
  let tOut = Infinity;
  for (let k = 0; k < 3; k++) {
    const mn = a[minAt + k]!;
    const mx = a[maxAt + k]!;
    const ok = ray.o[k]!;
    if (ray.par[k]) {
      if (ok < mn || ok > mx) {
        return -1;
      }
      continue;
    }
    const t1 = (mn - ok) * ray.inv[k]!;
    const t2 = (mx - ok) * ray.inv[k]!;
    tIn = Math.max(tIn, Math.min(t1, t2));
    tOut = Math.min(tOut, Math.max(t1, t2));
  }
  return tIn > tOut ? -1 : tIn;
}

/** One ray's walk: its frame relative to the tree's origin, its best hit so far, its counts. */
interface RayWalk {
  readonly o: Vec3;
  readonly inv: Vec3;
  readonly par: readonly [boolean, boolean, boolean];
  readonly maxDistance: number;
  /** The best t so far (Infinity: none). */
  best: number;
  steps: number;
  /** Tests box i (smallest t, then smallest index: the walk meets boxes out of index order). */
  test(i: number): void;
}

/** Per ray: the walk's steps (nodes or wide records visited) and boxes tested, and the box it found (−1: none). */
export interface WalkCounts {
  readonly nodes: Uint32Array;
  readonly boxTests: Uint32Array;
  readonly box: Int32Array;
}

/**
 * The wide records of a binary tree, as the refit writes them (shaders/tree/build.wgsl): per
 * internal node four entries two levels down, 0 and 1 from its left child, 2 and 3 from its right
 * (pointer, AABB: a leaf's padded box AABB as obbAabb pads it, an internal node's), unused entries
 * BVH_NONE; AABBs relative to `origin`.
 */
export function wideRecords(tree: BvhSnapshot, boxes: BoxArray, origin: Vec3): { readonly ptrs: Uint32Array; readonly bounds: Float64Array } {
  const internal = Math.max(0, tree.count - 1);
  const ptrs = new Uint32Array(4 * internal).fill(0xffffffff);
  const bounds = new Float64Array(24 * internal);
  const f = tree.nodeFloats;
  const w = tree.nodeWords;
  const bound = (c: number, out: number): void => {
    if ((c & BVH_LEAF) !== 0) {
      const o = ((c & ~BVH_LEAF) >>> 0) * BOX_F64.STRIDE;
      for (let k = 0; k < 3; k++) {
        const e = aabbHalfWidthAt(boxes.data, o, k);
        const c0 = boxes.data[o + k]! - origin[k]!;
        const pad = BVH_AABB_PAD * (e + Math.abs(c0)) + 1e-30;
        bounds[out + k] = c0 - e - pad;
        bounds[out + 3 + k] = c0 + e + pad;
      }
      return;
    }
    for (let k = 0; k < 3; k++) {
      bounds[out + k] = f[8 * c + k]!;
      bounds[out + 3 + k] = f[8 * c + 4 + k]!;
    }
  };
  for (let n = 0; n < internal; n++) {
    // Entries 0, 1 from the left child, 2, 3 from the right (a leaf: itself, then none).
    [w[8 * n + 3]!, w[8 * n + 7]!].forEach((c, side) => {
      const pair = (c & BVH_LEAF) !== 0 ? [c] : [w[8 * c + 3]!, w[8 * c + 7]!];
      pair.forEach((e, j) => {
        ptrs[4 * n + 2 * side + j] = e;
        bound(e, 24 * n + 6 * (2 * side + j));
      });
    });
  }
  return { ptrs, bounds };
}

/**
 * The closest-hit walk of every ray over the tree, counted: by the wide records (`walk: 'wide'`,
 * the default: what the kernels run) or the binary nodes (`'binary'`: the walk before them).
 * `origin`: the set's floating origin (the tree's coordinates are relative to it; boxes and rays
 * are in world coordinates).
 */
export function bvhWalkCounts(tree: BvhSnapshot, boxes: BoxArray, origin: Vec3, rays: RayArray, walk: 'wide' | 'binary' = 'wide'): WalkCounts {
  const nodes = new Uint32Array(rays.count);
  const boxTests = new Uint32Array(rays.count);
  const found = new Int32Array(rays.count).fill(-1);
  const step = walk === 'wide' ? wideWalk(wideRecords(tree, boxes, origin)) : binaryWalk(tree);
  const s = makeRayObbScratch();
  for (let r = 0; r < rays.count; r++) {
    const q = r * RAY_F64.STRIDE;
    const d: Vec3 = [rays.data[q + 3]!, rays.data[q + 4]!, rays.data[q + 5]!];
    const len = Math.hypot(...d);
    const dir: Vec3 = [d[0] / len, d[1] / len, d[2] / len];
    const par: [boolean, boolean, boolean] = [Math.abs(dir[0]) < EPS_DIR, Math.abs(dir[1]) < EPS_DIR, Math.abs(dir[2]) < EPS_DIR];
    const maxDistance = rays.data[q + 6]!;
    const ray: RayWalk = {
      o: [rays.data[q]! - origin[0], rays.data[q + 1]! - origin[1], rays.data[q + 2]! - origin[2]],
      inv: [par[0] ? 0 : 1 / dir[0], par[1] ? 0 : 1 / dir[1], par[2] ? 0 : 1 / dir[2]],
      par, maxDistance, best: Infinity, steps: 0,
      test(i: number): void {
        boxTests[r]!++;
        if (rayObbAt(boxes.data, i, rays.data, r, true, s) && s.t <= maxDistance && (s.t < ray.best || (s.t === ray.best && i < found[r]!))) {
          ray.best = s.t;
          found[r] = i;
        }
      },
    };
    if (tree.count === 1) {
      ray.test(0);
    } else if (tree.count > 1) {
      step(ray);
    }
    nodes[r] = ray.steps;
  }
  return { nodes, boxTests, box: found };
}

/** The binary walk (nodeFloats: min xyz at 8n, max at 8n + 4): leaf children tested when their parent is visited. */
function binaryWalk(tree: BvhSnapshot): (ray: RayWalk) => void {
  const f = tree.nodeFloats;
  const w = tree.nodeWords;
  const stackNode: number[] = [];
  const stackT: number[] = [];
  return (ray) => {
    stackNode.length = 0;
    stackT.length = 0;
    const t0 = aabbEntry(ray, f, 0, 4);
    if (t0 >= 0) {
      stackNode.push(0);
      stackT.push(t0);
    }
    while (stackNode.length > 0) {
      const node = stackNode.pop()!;
      if (stackT.pop()! > Math.min(ray.maxDistance, ray.best)) {
        continue;
      }
      ray.steps++;
      const entry = (c: number): number => {
        if ((c & BVH_LEAF) !== 0) {
          ray.test((c & ~BVH_LEAF) >>> 0);
          return -1;
        }
        const t = aabbEntry(ray, f, 8 * c, 8 * c + 4);
        return t >= 0 && t <= Math.min(ray.maxDistance, ray.best) ? t : -1;
      };
      const left = w[8 * node + 3]!;
      const right = w[8 * node + 7]!;
      const tl = entry(left);
      const tr = entry(right);
      if (tl >= 0 && tr >= 0) {
        const leftFirst = tl <= tr;
        stackNode.push(leftFirst ? right : left, leftFirst ? left : right);
        stackT.push(leftFirst ? tr : tl, leftFirst ? tl : tr);
      } else if (tl >= 0) {
        stackNode.push(left);
        stackT.push(tl);
      } else if (tr >= 0) {
        stackNode.push(right);
        stackT.push(tr);
      }
    }
  };
}

/** The wide walk of tree_walk.wgsl: a record per step, its leaves met tested, its internal entries pushed farthest first. */
function wideWalk({ ptrs, bounds }: ReturnType<typeof wideRecords>): (ray: RayWalk) => void {
  const stackNode: number[] = [];
  const stackT: number[] = [];
  return (ray) => {
    stackNode.length = 0;
    stackT.length = 0;
    stackNode.push(0);
    stackT.push(0);
    while (stackNode.length > 0) {
      const w = stackNode.pop()!;
      const limit = Math.min(ray.maxDistance, ray.best);
      if (stackT.pop()! > limit) {
        continue;
      }
      ray.steps++;
      const t = [0, 1, 2, 3].map((k) => {
        const x = ptrs[4 * w + k] === 0xffffffff ? -1 : aabbEntry(ray, bounds, 24 * w + 6 * k, 24 * w + 6 * k + 3);
        return x <= limit ? x : -1;
      });
      for (let k = 0; k < 4; k++) {
        const p = ptrs[4 * w + k]!;
        if (p !== 0xffffffff && (p & BVH_LEAF) !== 0 && t[k]! >= 0) {
          ray.test((p & ~BVH_LEAF) >>> 0);
        }
      }
      const after = Math.min(ray.maxDistance, ray.best);
      // The internal entries still within reach, in the kernel's order (its sorting network,
      // ties included): farthest pushed first.
      const e = [0, 1, 2, 3].map((k) => ((ptrs[4 * w + k]! & BVH_LEAF) === 0 && t[k]! >= 0 && t[k]! <= after ? t[k]! : -1));
      const order = [0, 1, 2, 3];
      for (const [a, b] of [[0, 1], [2, 3], [0, 2], [1, 3], [1, 2]] as const) {
        if (e[b]! > e[a]!) {
          [e[a], e[b]] = [e[b]!, e[a]!];
          [order[a], order[b]] = [order[b]!, order[a]!];
        }
      }
      for (let k = 0; k < 4 && e[k]! >= 0; k++) {
        stackNode.push(ptrs[4 * w + order[k]!]!);
        stackT.push(e[k]!);
      }
    }
  };
}
