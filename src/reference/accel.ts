/**
 * Exact CPU answers for large scenes, fast enough to check GPU results over 100,000 rays ×
 * 100,000 boxes in a test. These are the reference queries (same rayObbAt / obbObbSatAt, same
 * tie rule) restricted to *candidates* that provably include every box that could count:
 *
 * - rays: a uniform grid over padded box AABBs, walked cell by cell along the ray
 *   (Amanatides & Woo 1987). A box hit at distance t overlaps the cell the ray is in at t, so it
 *   is met no later than that cell; the walk stops once the next cell starts beyond the best t
 *   (closest) or beyond maxDistance. Boxes are inserted with a margin far above the walk's
 *   rounding, so a boundary-grazing hit still finds its box in a visited cell.
 * - pairs: sort-and-sweep on padded AABBs; SAT on every overlapping candidate.
 *
 * test/cpu/reference/accel.test.ts checks these against the brute-force reference case by case.
 */
import { HIT_FLAG_INSIDE, SAT_TOLERANCE } from '../constants.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray } from '../core/types.ts';
import { aabbHalfWidthAt } from '../core/helpers.ts';
import type { SatOptions } from './query/obbObbSat.ts';
import { makeSatScratch, obbObbSatAt } from './query/obbObbSat.ts';
import { makeRayObbScratch, rayObbAt } from './query/rayObb.ts';
import type { AllHits, ClosestHits, RaycastOptions } from './raycast.ts';
import { allPairs, obbCross } from './pairs.ts';

/** Padded AABBs of every box, 6 numbers each (min xyz, max xyz); `absPad` is added to the pad. */
export function paddedAabbs(boxes: BoxArray, relPad = 1e-7, absPad = 1e-12): Float64Array {
  const out = new Float64Array(boxes.count * 6);
  const d = boxes.data;
  for (let b = 0; b < boxes.count; b++) {
    const o = b * BOX_F64.STRIDE;
    for (let k = 0; k < 3; k++) {
      const e = aabbHalfWidthAt(d, o, k);
      const c = d[o + k]!;
      const pad = relPad * (e + Math.abs(c)) + absPad;
      out[6 * b + k] = c - e - pad;
      out[6 * b + 3 + k] = c + e + pad;
    }
  }
  return out;
}

/** A uniform grid of box indices over the boxes' AABBs. */
export class BoxGrid {
  readonly lo: [number, number, number] = [Infinity, Infinity, Infinity];
  readonly hi: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  readonly dims: [number, number, number];
  readonly cell: [number, number, number];
  private readonly start: Int32Array;
  private readonly items: Int32Array;
  private readonly stamp: Int32Array;
  private stampValue = 0;

  constructor(readonly boxes: BoxArray, cellsPerBox = 1) {
    const a = paddedAabbs(boxes);
    const n = boxes.count;
    for (let b = 0; b < n; b++) {
      for (let k = 0; k < 3; k++) {
        this.lo[k] = Math.min(this.lo[k]!, a[6 * b + k]!);
        this.hi[k] = Math.max(this.hi[k]!, a[6 * b + 3 + k]!);
      }
    }
    if (n === 0) {
      this.lo.fill(0);
      this.hi.fill(1);
    }
    const ext = this.lo.map((l, k) => Math.max(this.hi[k]! - l, 1e-9));
    const vol = ext[0]! * ext[1]! * ext[2]!;
    const target = Math.max(1, n * cellsPerBox);
    const side = Math.cbrt(vol / target);
    this.dims = ext.map((e) => Math.max(1, Math.min(1024, Math.ceil(e / side)))) as [number, number, number];
    this.cell = ext.map((e, k) => e / this.dims[k]!) as [number, number, number];
    // Insert each box into every cell its AABB (plus a margin) overlaps: counting pass, then fill.
    const cells = this.dims[0] * this.dims[1] * this.dims[2];
    const counts = new Int32Array(cells + 1);
    const ranges: number[] = [];
    for (let b = 0; b < n; b++) {
      const r = this.cellRange(a, b);
      ranges.push(...r);
      this.forCells(r, (c) => {
        counts[c + 1]!++;
      });
    }
    for (let c = 0; c < cells; c++) {
      counts[c + 1]! += counts[c]!;
    }
    this.start = counts;
    this.items = new Int32Array(counts[cells]!);
    const fill = counts.slice(0, cells);
    for (let b = 0; b < n; b++) {
      this.forCells(ranges.slice(6 * b, 6 * b + 6), (c) => {
        this.items[fill[c]!++] = b;
      });
    }
    this.stamp = new Int32Array(n);
  }

  private cellRange(a: Float64Array, b: number): number[] {
    const r: number[] = [];
    for (let k = 0; k < 3; k++) {
      const margin = 1e-6 * this.cell[k]!;
      r.push(Math.max(0, Math.floor((a[6 * b + k]! - margin - this.lo[k]!) / this.cell[k]!)));
    }
    for (let k = 0; k < 3; k++) {
      const margin = 1e-6 * this.cell[k]!;
      r.push(Math.min(this.dims[k]! - 1, Math.floor((a[6 * b + 3 + k]! + margin - this.lo[k]!) / this.cell[k]!)));
    }
    return r;
  }

  private forCells(r: readonly number[], fn: (cell: number) => void): void {
    for (let z = r[2]!; z <= r[5]!; z++) {
      for (let y = r[1]!; y <= r[4]!; y++) {
        for (let x = r[0]!; x <= r[3]!; x++) {
          fn(x + this.dims[0] * (y + this.dims[1] * z));
        }
      }
    }
  }

  /**
   * Visits each box in the cells ray r passes through, in cell order, once per ray.
   * `visit(box)` runs on new boxes; `stopAt()` returns the distance beyond which the walk may
   * stop (checked against the next cell's entry distance).
   */
  walk(rays: RayArray, r: number, visit: (box: number) => void, stopAt: () => number): void {
    const o = r * RAY_F64.STRIDE;
    const org = [rays.data[o]!, rays.data[o + 1]!, rays.data[o + 2]!];
    const dir = [rays.data[o + 3]!, rays.data[o + 4]!, rays.data[o + 5]!];
    // Clip the ray to the grid bounds.
    let t0 = 0;
    let t1 = rays.data[o + RAY_F64.MAX]!;
    for (let k = 0; k < 3; k++) {
      if (Math.abs(dir[k]!) < 1e-300) {
        if (org[k]! < this.lo[k]! || org[k]! > this.hi[k]!) {
          return;
        }
        continue;
      }
      let ta = (this.lo[k]! - org[k]!) / dir[k]!;
      let tb = (this.hi[k]! - org[k]!) / dir[k]!;
      if (ta > tb) {
        [ta, tb] = [tb, ta];
      }
      t0 = Math.max(t0, ta);
      t1 = Math.min(t1, tb);
    }
    if (t0 > t1) {
      return;
    }
    this.stampValue++;
    const cellOf = (k: number, t: number): number =>
      Math.min(this.dims[k]! - 1, Math.max(0, Math.floor((org[k]! + t * dir[k]! - this.lo[k]!) / this.cell[k]!)));
    const idx = [cellOf(0, t0), cellOf(1, t0), cellOf(2, t0)];
    const step = dir.map((d) => (d > 0 ? 1 : d < 0 ? -1 : 0));
    const tNext = [0, 1, 2].map((k) => {
      if (step[k] === 0) {
        return Infinity;
      }
      const boundary = this.lo[k]! + (idx[k]! + (step[k]! > 0 ? 1 : 0)) * this.cell[k]!;
      return (boundary - org[k]!) / dir[k]!;
    });
    const tDelta = [0, 1, 2].map((k) => (step[k] === 0 ? Infinity : this.cell[k]! / Math.abs(dir[k]!)));
    for (;;) {
      const c = idx[0]! + this.dims[0] * (idx[1]! + this.dims[1] * idx[2]!);
      for (let s = this.start[c]!; s < this.start[c + 1]!; s++) {
        const b = this.items[s]!;
        if (this.stamp[b] !== this.stampValue) {
          this.stamp[b] = this.stampValue;
          visit(b);
        }
      }
      const k = tNext[0]! < tNext[1]! ? (tNext[0]! < tNext[2]! ? 0 : 2) : (tNext[1]! < tNext[2]! ? 1 : 2);
      // The next cell starts at tNext[k]; stop when it is beyond the ray or the answer.
      if (tNext[k]! > t1 || tNext[k]! > stopAt()) {
        return;
      }
      idx[k]! += step[k]!;
      if (idx[k]! < 0 || idx[k]! >= this.dims[k]!) {
        return;
      }
      tNext[k]! += tDelta[k]!;
    }
  }
}

function accepts(options: RaycastOptions, r: number, b: number): boolean {
  const rm = options.rayMasks ? options.rayMasks[r]! : 0xffffffff;
  const bm = options.boxMasks ? options.boxMasks[b]! : 0xffffffff;
  return (rm & bm) !== 0 && (!options.exclude || options.exclude[r] !== b);
}

/**
 * Exactly `closestHit` (same results, same tie rule), through a grid.
 *
 * @example
 * closestHitGrid(boxes, rays) // equal to closestHit(boxes, rays), much faster on big scenes
 */
export function closestHitGrid(boxes: BoxArray, rays: RayArray, options: RaycastOptions = {}, grid = new BoxGrid(boxes)): ClosestHits {
  const solid = options.solid ?? true;
  const n = rays.count;
  const box = new Int32Array(n).fill(-1);
  const t = new Float64Array(n).fill(Infinity);
  const face = new Uint8Array(n).fill(0xff);
  const inside = new Uint8Array(n);
  const s = makeRayObbScratch();
  for (let r = 0; r < n; r++) {
    grid.walk(rays, r, (b) => {
      if (!accepts(options, r, b) || !rayObbAt(boxes.data, b, rays.data, r, solid, s)) {
        return;
      }
      if (s.t < t[r]! || (s.t === t[r]! && b < box[r]!)) {
        box[r] = b;
        t[r] = s.t;
        face[r] = s.face;
        inside[r] = s.flags & HIT_FLAG_INSIDE ? 1 : 0;
      }
    }, () => t[r]!);
  }
  return { count: n, box, t, face, inside };
}

/** Exactly `anyHit`, through a grid. */
export function anyHitGrid(boxes: BoxArray, rays: RayArray, options: RaycastOptions = {}, grid = new BoxGrid(boxes)): Uint8Array {
  const solid = options.solid ?? true;
  const out = new Uint8Array(rays.count);
  const s = makeRayObbScratch();
  for (let r = 0; r < rays.count; r++) {
    grid.walk(rays, r, (b) => {
      if (!out[r] && accepts(options, r, b) && rayObbAt(boxes.data, b, rays.data, r, solid, s)) {
        out[r] = 1;
      }
    }, () => (out[r] ? -Infinity : Infinity));
  }
  return out;
}

/** Exactly `allHits` (sorted by ray, t, box), through a grid. */
export function allHitsGrid(boxes: BoxArray, rays: RayArray, options: RaycastOptions = {}, grid = new BoxGrid(boxes)): AllHits {
  const solid = options.solid ?? true;
  const s = makeRayObbScratch();
  const rows: { r: number; b: number; t: number; face: number; inside: number }[] = [];
  for (let r = 0; r < rays.count; r++) {
    const mine: typeof rows = [];
    grid.walk(rays, r, (b) => {
      if (accepts(options, r, b) && rayObbAt(boxes.data, b, rays.data, r, solid, s)) {
        mine.push({ r, b, t: s.t, face: s.face, inside: s.flags & HIT_FLAG_INSIDE ? 1 : 0 });
      }
    }, () => Infinity);
    mine.sort((x, y) => x.t - y.t || x.b - y.b);
    rows.push(...mine);
  }
  return {
    count: rows.length,
    ray: Uint32Array.from(rows, (x) => x.r),
    box: Uint32Array.from(rows, (x) => x.b),
    t: Float64Array.from(rows, (x) => x.t),
    face: Uint8Array.from(rows, (x) => x.face),
    inside: Uint8Array.from(rows, (x) => x.inside),
  };
}

/**
 * Exactly `allPairs` (or `obbCross(a, b)` when `b` is given): SAT on the AABB-overlapping
 * candidates of a sort-and-sweep, the AABBs grown by half the tolerance each (boxes within the
 * tolerance count as overlapping). Face-only lists are `allPairs` / `obbCross` themselves: six
 * axes can call boxes with disjoint AABBs overlapping, so no AABB sweep may cull them.
 *
 * @example
 * allPairsSweep(boxes) // equal to allPairs(boxes)
 */
export function allPairsSweep(a: BoxArray, options: SatOptions = {}, b?: BoxArray): Uint32Array {
  const tol = options.tolerance ?? SAT_TOLERANCE;
  if (options.faceOnly) {
    return b === undefined ? allPairs(a, options) : obbCross(a, b, options);
  }
  const self = b === undefined;
  const setB = b ?? a;
  const pad = 1e-12 + Math.max(tol, 0) / 2;
  const aa = paddedAabbs(a, 1e-7, pad);
  const bb = self ? aa : paddedAabbs(setB, 1e-7, pad);
  // Events on x: every box of A and of B, sorted by min x.
  type Item = { set: 0 | 1; i: number; lo: number };
  const items: Item[] = [];
  for (let i = 0; i < a.count; i++) {
    items.push({ set: 0, i, lo: aa[6 * i]! });
  }
  if (!self) {
    for (let j = 0; j < setB.count; j++) {
      items.push({ set: 1, i: j, lo: bb[6 * j]! });
    }
  }
  items.sort((x, y) => x.lo - y.lo);
  const s = makeSatScratch();
  const out: [number, number][] = [];
  const active: Item[] = [];
  const overlaps = (p: Float64Array, i: number, q: Float64Array, j: number): boolean =>
    p[6 * i + 1]! <= q[6 * j + 4]! && q[6 * j + 1]! <= p[6 * i + 4]! && p[6 * i + 2]! <= q[6 * j + 5]! && q[6 * j + 2]! <= p[6 * i + 5]!;
  for (const it of items) {
    const itBoxes = it.set === 0 ? aa : bb;
    // Drop boxes that end before this one starts.
    for (let k = active.length - 1; k >= 0; k--) {
      const x = active[k]!;
      if ((x.set === 0 ? aa : bb)[6 * x.i + 3]! < it.lo) {
        active.splice(k, 1);
      }
    }
    for (const x of active) {
      if (!self && x.set === it.set) {
        continue;
      }
      const [ia, ib] = self ? [Math.min(x.i, it.i), Math.max(x.i, it.i)] : x.set === 0 ? [x.i, it.i] : [it.i, x.i];
      if (overlaps(aa, ia, bb, ib) && obbObbSatAt(a.data, ia, setB.data, ib, false, s) <= tol) {
        out.push([ia, ib]);
      }
    }
    active.push(it);
    void itBoxes;
  }
  out.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  return Uint32Array.from(out.flat());
}
