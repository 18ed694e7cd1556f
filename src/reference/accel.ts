/**
 * Exact CPU answers for large scenes: fast enough to check GPU results over 100,000 rays ×
 * 100,000 boxes in a test, and the float64 reference of `verify` and `judge` on a million boxes.
 * These are the reference queries (same rayObbAt / obbObbSatAt, same tie rule) restricted to
 * *candidates* that provably include every box or pair that could count:
 *
 * - rays: a uniform grid over padded box AABBs, walked cell by cell along the ray
 *   (Amanatides & Woo 1987). A box the slab test says is hit at distance t lies within a small
 *   radius of the ray's point at t: float64 rounding, and the slab test's parallel branch (a
 *   local direction component below EPS_DIR counts as 0, so the ray may drift EPS_DIR·t out of
 *   that slab and still hit). Boxes are inserted with a margin of MARGIN cells; a ray whose radius
 *   exceeds it (one from far away) visits the cells around its own too. The walk stops once the
 *   next cell starts beyond the best t (closest) or beyond maxDistance.
 * - pairs (one set): a grid of cells about a box wide; each box meets the boxes that share a
 *   cell with it, each pair in one cell only; SAT on every pair whose AABBs, padded by what SAT's
 *   `overlap` can hide (satAabbs), overlap. Two sets: sort-and-sweep on the same AABBs.
 * - degenerate scenes (boxes all in one place, a huge box among tiny ones): a grid holds at most
 *   ENTRIES_PER_BOX entries per box; the few boxes that would break that are left out of the
 *   cells and tested by every ray (against every box), and past MAX_LARGE of them the grid
 *   coarsens instead, down to one cell: brute force, still exact, memory O(boxes).
 *
 * test/cpu/reference/accel.test.ts checks these against the brute-force reference case by case.
 */
import { EPS_DIR, HIT_FLAG_INSIDE, SAT_EDGE_EPS_SQ, SAT_TOLERANCE } from '../constants.ts';
import { CapacityError } from '../errors.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray } from '../core/types.ts';
import { aabbHalfWidthAt } from '../core/helpers.ts';
import type { SatOptions } from './query/obbObbSat.ts';
import { makeSatScratch, obbObbSatAt } from './query/obbObbSat.ts';
import { makeRayObbScratch, rayObbAt } from './query/rayObb.ts';
import type { AllHits, ClosestHits, RaycastOptions } from './raycast.ts';
import { allPairs, obbCross } from './pairs.ts';

/**
 * Progress of a long query: `done` of `total` items (rays, boxes swept, LiDAR rays) and what it
 * found so far (hits, overlapping pairs). Called every PROGRESS_EVERY items and once at the end:
 * cheap enough to leave on, coarse enough for one line a second (judge.ts `phaseProgress`).
 */
export type AccelProgress = (done: number, total: number, found: number) => void;

/** What the accelerated queries take besides their inputs. */
export interface AccelOptions {
  readonly onProgress?: AccelProgress;
}

/** Items between two progress calls. */
const PROGRESS_EVERY = 4096;

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

/** Insertion margin around each box's bounds, in cells: far above the walk's rounding. */
const MARGIN = 1 / 64;
/** Cell entries a grid may hold per box (besides two per cell) before it leaves boxes out or coarsens. */
const ENTRIES_PER_BOX = 16;
/** Boxes a grid may leave out of its cells (each tested by every ray, against every box) before it coarsens instead. */
const MAX_LARGE = 256;
/** A box wider than this many median boxes is left out of the grid, when such boxes are few. */
const OUTLIER = 32;
/**
 * How far, per unit of distance along a ray, a box the slab test calls hit may lie from the ray's
 * line: √2·EPS_DIR (two slabs can take the parallel branch, each letting the ray drift up to
 * EPS_DIR·t out of it), doubled for rounding.
 */
const DRIFT = 4 * EPS_DIR;
/** Relative rounding of the walk and of the slab test in float64, with a wide margin. */
const ROUNDING = 1e-12;

/** A grid's cells and the boxes in each (CSR: cell c holds items[start[c] .. start[c + 1])). */
interface GridLayout {
  readonly lo: [number, number, number];
  readonly hi: [number, number, number];
  readonly dims: [number, number, number];
  readonly cell: [number, number, number];
  /** Per box its cell range, min xyz then max xyz (meaningless for a large box). */
  readonly ranges: Int32Array;
  readonly start: Int32Array;
  readonly items: Int32Array;
  /** The boxes left out of the cells, ascending; `isLarge[b]` says whether b is one. */
  readonly large: Int32Array;
  readonly isLarge: Uint8Array;
}

/**
 * The side of cubic cells for about `target` cells over extents `ext`: an axis thinner than a
 * cell gets one cell and no say in the side (a flat scene gets a 2D grid, not a fine 3D one).
 */
function sideFor(ext: readonly number[], target: number): number {
  let side = Math.cbrt((ext[0]! * ext[1]! * ext[2]!) / target);
  for (let pass = 0; pass < 2; pass++) {
    const wide = ext.filter((e) => e > side);
    if (wide.length === 0 || wide.length === 3) {
      break;
    }
    side = Math.pow(wide.reduce((p, e) => p * e, 1) / target, 1 / wide.length);
  }
  return side;
}

/**
 * Lays boxes (bounds `aabbs`, 6 numbers each) into a uniform grid with cells of about
 * `sideOf(extents, median box width)` (at most about 8 × `target` cells), each box into every
 * cell its bounds plus MARGIN cells overlap. Boxes wider than OUTLIER median boxes are left out
 * (`large`) when they are at most MAX_LARGE. Keeps within ENTRIES_PER_BOX entries per box: the
 * boxes that cover the most cells are left out too while that makes at most MAX_LARGE, else the
 * cells double in size and it tries again (one cell holds every box: brute force).
 */
function layoutGrid(
  aabbs: Float64Array, n: number, target: number, sideOf: (ext: readonly number[], medianWidth: number) => number,
): GridLayout {
  // Boxes far wider than the median, if few, stay out of the cells and out of the bounds: one
  // huge box must not stretch a grid of tiny ones over its own size.
  const widths = new Float64Array(n);
  for (let b = 0; b < n; b++) {
    widths[b] = Math.max(aabbs[6 * b + 3]! - aabbs[6 * b]!, aabbs[6 * b + 4]! - aabbs[6 * b + 1]!, aabbs[6 * b + 5]! - aabbs[6 * b + 2]!);
  }
  const sortedWidths = widths.slice().sort();
  const median = n > 0 ? sortedWidths[n >> 1]! : 1;
  const outlier = new Uint8Array(n);
  let outliers = 0;
  while (outliers < n && sortedWidths[n - 1 - outliers]! > OUTLIER * median) {
    outliers++;
  }
  if (outliers > MAX_LARGE) {
    outliers = 0;
  }
  for (let b = 0; b < n && outliers > 0; b++) {
    if (widths[b]! > OUTLIER * median) {
      outlier[b] = 1;
    }
  }
  const lo: [number, number, number] = [Infinity, Infinity, Infinity];
  const hi: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let b = 0; b < n; b++) {
    for (let k = 0; k < 3 && !outlier[b]; k++) {
      lo[k] = Math.min(lo[k]!, aabbs[6 * b + k]!);
      hi[k] = Math.max(hi[k]!, aabbs[6 * b + 3 + k]!);
    }
  }
  if (!(lo[0] <= hi[0])) {
    lo.fill(0);
    hi.fill(1);
  }
  const ext = [0, 1, 2].map((k) => Math.max(hi[k]! - lo[k]!, 1e-12));
  let side = sideOf(ext, median);
  if (!(side > 0 && Number.isFinite(side))) {
    side = Math.max(...ext);
  }
  const ranges = new Int32Array(6 * n);
  for (;;) {
    const dims = ext.map((e) => Math.max(1, Math.ceil(e / side))) as [number, number, number];
    if (dims[0] * dims[1] * dims[2] > 8 * target + 64) {
      // ceil() at most doubles an axis's cells: more than 8 × target means a side from elsewhere; widen it.
      side *= 1.25;
      continue;
    }
    const cell = ext.map((e, k) => e / dims[k]!) as [number, number, number];
    const cells = dims[0] * dims[1] * dims[2];
    const sizes = new Float64Array(n);
    let total = 0;
    for (let b = 0; b < n; b++) {
      if (outlier[b]) {
        continue;
      }
      let size = 1;
      for (let k = 0; k < 3; k++) {
        const m = MARGIN * cell[k]!;
        const r0 = Math.max(0, Math.min(dims[k]! - 1, Math.floor((aabbs[6 * b + k]! - m - lo[k]!) / cell[k]!)));
        const r1 = Math.max(0, Math.min(dims[k]! - 1, Math.floor((aabbs[6 * b + 3 + k]! + m - lo[k]!) / cell[k]!)));
        ranges[6 * b + k] = r0;
        ranges[6 * b + 3 + k] = r1;
        size *= r1 - r0 + 1;
      }
      sizes[b] = size;
      total += size;
    }
    const budget = ENTRIES_PER_BOX * n + 2 * cells;
    const isLarge = outlier.slice();
    if (total > budget) {
      // Leave out the boxes that cover the most cells until the rest fits: a threshold on size.
      const sorted = sizes.slice().sort();
      let rest = total;
      let k = n;
      while (k > 0 && rest > budget) {
        rest -= sorted[--k]!;
      }
      const threshold = Math.max(sorted[k]!, 1);
      let picked = outliers;
      for (let b = 0; b < n && picked <= MAX_LARGE; b++) {
        if (sizes[b]! >= threshold) {
          isLarge[b] = 1;
          picked++;
        }
      }
      if (picked > MAX_LARGE && cells > 1) {
        side *= 2;
        continue;
      }
    }
    const large: number[] = [];
    const start = new Int32Array(cells + 1);
    for (let b = 0; b < n; b++) {
      if (isLarge[b]) {
        large.push(b);
      } else {
        forCells(ranges, b, dims, (c) => {
          start[c + 1]!++;
        });
      }
    }
    for (let c = 0; c < cells; c++) {
      start[c + 1]! += start[c]!;
    }
    const items = new Int32Array(start[cells]!);
    const fill = start.slice(0, cells);
    for (let b = 0; b < n; b++) {
      if (!isLarge[b]) {
        forCells(ranges, b, dims, (c) => {
          items[fill[c]!++] = b;
        });
      }
    }
    return { lo, hi, dims, cell, ranges, start, items, large: Int32Array.from(large), isLarge };
  }
}

function forCells(ranges: Int32Array, b: number, dims: readonly number[], fn: (cell: number) => void): void {
  const r = 6 * b;
  for (let z = ranges[r + 2]!; z <= ranges[r + 5]!; z++) {
    for (let y = ranges[r + 1]!; y <= ranges[r + 4]!; y++) {
      for (let x = ranges[r]!; x <= ranges[r + 3]!; x++) {
        fn(x + dims[0]! * (y + dims[1]! * z));
      }
    }
  }
}

/** How {@link BoxGrid} indexes its boxes. */
export interface BoxGridOptions {
  /** Cells per box (default 1): the grid has about `boxes.count × cellsPerBox` cells. */
  readonly cellsPerBox?: number;
  /**
   * The bounds to index each box by, 6 numbers per box (min xyz, max xyz), when not its own padded
   * AABB: they must hold the box wherever it is tested (e.g. a moving box over a whole LiDAR sweep).
   */
  readonly aabbs?: Float64Array;
}

/** A uniform grid of box indices over the boxes' AABBs, for rays to walk. */
export class BoxGrid {
  readonly lo: [number, number, number];
  readonly hi: [number, number, number];
  readonly dims: [number, number, number];
  readonly cell: [number, number, number];
  /** Boxes left out of the cells (a degenerate scene's widest): every walk visits them. */
  readonly large: Int32Array;
  private readonly start: Int32Array;
  private readonly items: Int32Array;
  private readonly stamp: Int32Array;
  private stampValue = 0;
  /** The bounds' centre, half diagonal and largest coordinate magnitude (for a ray's radius). */
  private readonly centre: [number, number, number];
  private readonly halfDiagonal: number;
  private readonly magnitude: number;
  // Per-walk scratch (no allocation per ray).
  private readonly idx = new Float64Array(3);
  private readonly tNext = new Float64Array(3);
  private readonly reach = new Float64Array(3);

  /**
   * @example
   * const grid = new BoxGrid(boxes); // then closestHitGrid(boxes, rays, {}, grid) for several ray sets
   */
  constructor(readonly boxes: BoxArray, options: number | BoxGridOptions = {}) {
    const o: BoxGridOptions = typeof options === 'number' ? { cellsPerBox: options } : options;
    const n = boxes.count;
    const target = Math.max(1, n * (o.cellsPerBox ?? 1));
    const layout = layoutGrid(o.aabbs ?? paddedAabbs(boxes), n, target, (ext) => sideFor(ext, target));
    ({ lo: this.lo, hi: this.hi, dims: this.dims, cell: this.cell, start: this.start, items: this.items, large: this.large } = layout);
    this.stamp = new Int32Array(n);
    this.centre = [0, 1, 2].map((k) => (this.lo[k]! + this.hi[k]!) / 2) as [number, number, number];
    this.halfDiagonal = Math.hypot(this.hi[0] - this.lo[0], this.hi[1] - this.lo[1], this.hi[2] - this.lo[2]) / 2;
    this.magnitude = Math.max(...this.lo.map(Math.abs), ...this.hi.map(Math.abs));
  }

  /**
   * Visits each box in the cells ray r passes through, in cell order, once per ray.
   * `visit(box)` runs on new boxes; `stopAt()` returns the distance beyond which the walk may
   * stop (checked against the next cell's entry distance).
   */
  walk(rays: RayArray, r: number, visit: (box: number) => void, stopAt: () => number): void {
    const o = r * RAY_F64.STRIDE;
    const data = rays.data;
    const org: readonly number[] = [data[o]!, data[o + 1]!, data[o + 2]!];
    const dir: readonly number[] = [data[o + 3]!, data[o + 4]!, data[o + 5]!];
    const maxT = data[o + RAY_F64.MAX]!;
    this.stampValue++;
    const seen = (b: number): void => {
      if (this.stamp[b] !== this.stampValue) {
        this.stamp[b] = this.stampValue;
        visit(b);
      }
    };
    // The boxes left out of the cells, first (they may lie outside the cells' bounds).
    for (const b of this.large) {
      seen(b);
    }
    // The radius around the ray's line within which a box it hits may lie (see the module
    // comment): hits are no farther than the farthest point of the grid's bounds.
    const far = Math.hypot(org[0]! - this.centre[0], org[1]! - this.centre[1], org[2]! - this.centre[2]) + this.halfDiagonal;
    const radius = DRIFT * Math.min(far, maxT) + ROUNDING * (Math.max(Math.abs(org[0]!), Math.abs(org[1]!), Math.abs(org[2]!)) + far + this.magnitude);
    // Clip the ray to the grid's bounds, grown by that radius.
    let t0 = 0;
    let t1 = maxT;
    for (let k = 0; k < 3; k++) {
      const lo = this.lo[k]! - radius;
      const hi = this.hi[k]! + radius;
      if (Math.abs(dir[k]!) < 1e-300) {
        if (org[k]! < lo || org[k]! > hi) {
          return;
        }
        continue;
      }
      let ta = (lo - org[k]!) / dir[k]!;
      let tb = (hi - org[k]!) / dir[k]!;
      if (ta > tb) {
        [ta, tb] = [tb, ta];
      }
      t0 = Math.max(t0, ta);
      t1 = Math.min(t1, tb);
    }
    if (!(t0 <= t1)) {
      return;
    }
    // Cells around the ray's own that a hit box may lie in: none while the radius is within the
    // insertion margin; a neighbourhood that would be most of the grid is the whole set.
    const reach = this.reach;
    let around = 1;
    for (let k = 0; k < 3; k++) {
      reach[k] = radius < MARGIN * this.cell[k]! ? 0 : Math.ceil(radius / this.cell[k]!);
      around *= Math.min(2 * reach[k]! + 1, this.dims[k]!);
    }
    if (around > 64 && around * 4 > this.dims[0] * this.dims[1] * this.dims[2]) {
      for (let b = 0; b < this.boxes.count; b++) {
        seen(b);
      }
      return;
    }
    const idx = this.idx;
    const tNext = this.tNext;
    const boundary = (k: number): number =>
      dir[k]! === 0 ? Infinity : (this.lo[k]! + (idx[k]! + (dir[k]! > 0 ? 1 : 0)) * this.cell[k]! - org[k]!) / dir[k]!;
    // A line outside the cells (by less than the radius) stays in the nearest cell, whose
    // neighbourhood holds that of its own: the walk never leaves the grid's cells.
    for (let k = 0; k < 3; k++) {
      const at = Math.floor((org[k]! + t0 * dir[k]! - this.lo[k]!) / this.cell[k]!);
      idx[k] = Math.min(this.dims[k]! - 1, Math.max(0, at));
      tNext[k] = boundary(k);
    }
    const [dx, dy] = this.dims;
    for (;;) {
      if (reach[0] === 0 && reach[1] === 0 && reach[2] === 0) {
        const c = idx[0]! + dx * (idx[1]! + dy * idx[2]!);
        for (let s = this.start[c]!; s < this.start[c + 1]!; s++) {
          seen(this.items[s]!);
        }
      } else {
        const z1 = Math.min(this.dims[2] - 1, idx[2]! + reach[2]!);
        const y1 = Math.min(dy - 1, idx[1]! + reach[1]!);
        const x1 = Math.min(dx - 1, idx[0]! + reach[0]!);
        for (let z = Math.max(0, idx[2]! - reach[2]!); z <= z1; z++) {
          for (let y = Math.max(0, idx[1]! - reach[1]!); y <= y1; y++) {
            for (let x = Math.max(0, idx[0]! - reach[0]!); x <= x1; x++) {
              const c = x + dx * (y + dy * z);
              for (let s = this.start[c]!; s < this.start[c + 1]!; s++) {
                seen(this.items[s]!);
              }
            }
          }
        }
      }
      const k = tNext[0]! < tNext[1]! ? (tNext[0]! < tNext[2]! ? 0 : 2) : (tNext[1]! < tNext[2]! ? 1 : 2);
      // The next cell starts at tNext[k]; stop when it is beyond the ray or the answer.
      if (tNext[k]! > t1 || tNext[k]! > stopAt()) {
        return;
      }
      const next = idx[k]! + (dir[k]! > 0 ? 1 : -1);
      if (next < 0 || next >= this.dims[k]!) {
        // Out of the cells along k for good, yet maybe within the radius of them until t1: walk
        // on along the other axes, in the cells of the grid's face.
        tNext[k] = Infinity;
        continue;
      }
      idx[k] = next;
      // From the boundary itself, not by adding steps: no rounding piles up along a long walk.
      tNext[k] = boundary(k);
    }
  }
}

function accepts(options: RaycastOptions, r: number, b: number): boolean {
  const rm = options.rayMasks ? options.rayMasks[r]! : 0xffffffff;
  const bm = options.boxMasks ? options.boxMasks[b]! : 0xffffffff;
  return (rm & bm) !== 0 && (!options.exclude || options.exclude[r] !== b);
}

/**
 * Exactly `closestHit` (same results, same tie rule), through a grid. `onProgress` hears
 * (rays done, rays, hits so far).
 *
 * @example
 * closestHitGrid(boxes, rays) // equal to closestHit(boxes, rays), much faster on big scenes
 */
export function closestHitGrid(
  boxes: BoxArray, rays: RayArray, options: RaycastOptions & AccelOptions = {}, grid = new BoxGrid(boxes),
): ClosestHits {
  const solid = options.solid ?? true;
  const onProgress = options.onProgress;
  const n = rays.count;
  const box = new Int32Array(n).fill(-1);
  const t = new Float64Array(n).fill(Infinity);
  const face = new Uint8Array(n).fill(0xff);
  const inside = new Uint8Array(n);
  const s = makeRayObbScratch();
  let hits = 0;
  for (let r = 0; r < n; r++) {
    if (onProgress && r % PROGRESS_EVERY === 0) {
      onProgress(r, n, hits);
    }
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
    if (box[r]! >= 0) {
      hits++;
    }
  }
  onProgress?.(n, n, hits);
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
 * Each box's AABB grown by what SAT's `overlap` (largest gap over the tested axes ≤ tolerance)
 * can hide from a bounding-box test, so that boxes SAT calls overlapping always have overlapping
 * AABBs here:
 * - 2 · tolerance. With every axis tested, boxes at distance d have a tested gap ≥ d/√3: the
 *   direction of d lies in the normal cone of the closest feature of B − A, whose edges are
 *   candidate axes within one octant of A's frame (pairwise at most 90° apart), so it is a sum of
 *   at most three of them with weights summing to ≤ √3 (Carathéodory, then Cauchy–Schwarz).
 * - 8 · √SAT_EDGE_EPS_SQ · the largest half extent. A skipped edge-cross axis (edges within θ of
 *   parallel, sin θ < √SAT_EDGE_EPS_SQ) is the normal of a face of B − A at most 2·h·sin θ wide,
 *   flanked across its long edges by faces whose normals are tested axes within 45° of it (A's
 *   other two face normals are 90° apart around the edge), so it hides at most that width plus
 *   √2 × the tested gap (constants.ts says the same of the skip: about sin θ × edge length).
 * - the usual relative and absolute pads for float64 rounding.
 */
function satAabbs(boxes: BoxArray, tolerance: number): Float64Array {
  const out = paddedAabbs(boxes, 1e-7, 1e-12 + 2 * Math.max(tolerance, 0));
  const skip = 8 * Math.sqrt(SAT_EDGE_EPS_SQ);
  const d = boxes.data;
  for (let b = 0; b < boxes.count; b++) {
    const o = b * BOX_F64.STRIDE + BOX_F64.HALF;
    const grow = skip * Math.max(d[o]!, d[o + 1]!, d[o + 2]!);
    for (let k = 0; k < 3; k++) {
      out[6 * b + k]! -= grow;
      out[6 * b + 3 + k]! += grow;
    }
  }
  return out;
}

function aabbsOverlap(p: Float64Array, i: number, q: Float64Array, j: number): boolean {
  return p[6 * i]! <= q[6 * j + 3]! && q[6 * j]! <= p[6 * i + 3]! &&
    p[6 * i + 1]! <= q[6 * j + 4]! && q[6 * j + 1]! <= p[6 * i + 4]! &&
    p[6 * i + 2]! <= q[6 * j + 5]! && q[6 * j + 2]! <= p[6 * i + 5]!;
}

/** A growing list of (i, j) pairs, refused past `max` pairs. */
class PairList {
  private data = new Uint32Array(1024);
  length = 0;
  constructor(private readonly max: number) {}

  push(i: number, j: number): void {
    if (this.length / 2 >= this.max) {
      throw new CapacityError(
        `more than ${this.max} overlapping pairs (the most a CPU list may hold here; a scene whose boxes nearly all overlap?)`,
        'maxPairs', this.max + 1, this.max,
      );
    }
    if (this.length + 2 > this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = i;
    this.data[this.length++] = j;
  }

  result(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

/** How {@link allPairsSweep} runs, besides the SAT options. */
export interface PairSweepOptions extends AccelOptions {
  /** Overlapping pairs past which it throws a CapacityError rather than grow (default: no limit). */
  readonly maxPairs?: number;
}

/**
 * Every overlapping pair of one set through a grid of cells about a box wide (the median AABB
 * width, and at least as many boxes as cells). Box i meets the boxes in its cells; a pair sharing
 * several cells is examined in one only, the cell at the low corner of the two boxes' common cell
 * range (both boxes are in it), and by its smaller index i only. The boxes are swept in a
 * scrambled order (a stride coprime to their count), so that the boxes swept measure progress
 * evenly: in index order the first boxes, which have the most j > i, would do most of the work.
 * Sorted at the end.
 */
function allPairsGrid(boxes: BoxArray, tol: number, options: PairSweepOptions): Uint32Array {
  const n = boxes.count;
  const aabbs = satAabbs(boxes, tol);
  const { dims, ranges, start, items, large, isLarge } = layoutGrid(aabbs, n, Math.max(1, n), (ext, median) => Math.max(sideFor(ext, n), median));
  const [dx, dy] = dims;
  const out = new PairList(options.maxPairs ?? Infinity);
  const s = makeSatScratch();
  let candidates = new Int32Array(64);
  let m = 0;
  const candidate = (j: number): void => {
    if (m === candidates.length) {
      const grown = new Int32Array(2 * m);
      grown.set(candidates);
      candidates = grown;
    }
    candidates[m++] = j;
  };
  const onProgress = options.onProgress;
  // Steps of (2^31 − 1) mod n: a prime that no box count here is a multiple of, so the steps
  // visit every box once.
  const stride = n % 2147483647 === 0 ? 1 : 2147483647 % n;
  let i = -stride;
  for (let step = 0; step < n; step++) {
    if (onProgress && step % PROGRESS_EVERY === 0) {
      onProgress(step, n, out.length / 2);
    }
    i = (i + stride) % n;
    m = 0;
    if (isLarge[i]) {
      for (let j = i + 1; j < n; j++) {
        if (aabbsOverlap(aabbs, i, aabbs, j)) {
          candidate(j);
        }
      }
    } else {
      const r = 6 * i;
      for (let z = ranges[r + 2]!; z <= ranges[r + 5]!; z++) {
        for (let y = ranges[r + 1]!; y <= ranges[r + 4]!; y++) {
          for (let x = ranges[r]!; x <= ranges[r + 3]!; x++) {
            const c = x + dx * (y + dy * z);
            for (let e = start[c]!; e < start[c + 1]!; e++) {
              const j = items[e]!;
              const q = 6 * j;
              if (j > i && Math.max(ranges[r]!, ranges[q]!) === x && Math.max(ranges[r + 1]!, ranges[q + 1]!) === y &&
                Math.max(ranges[r + 2]!, ranges[q + 2]!) === z && aabbsOverlap(aabbs, i, aabbs, j)) {
                candidate(j);
              }
            }
          }
        }
      }
      for (const j of large) {
        if (j > i && aabbsOverlap(aabbs, i, aabbs, j)) {
          candidate(j);
        }
      }
    }
    for (let k = 0; k < m; k++) {
      const j = candidates[k]!;
      if (obbObbSatAt(boxes.data, i, boxes.data, j, false, s) <= tol) {
        out.push(i, j);
      }
    }
  }
  onProgress?.(n, n, out.length / 2);
  return sortedPairs(out.result(), n);
}

/** Flat (i, j) pairs sorted by i then j (through one numeric key per pair, i·n + j < 2^53). */
function sortedPairs(pairs: Uint32Array, n: number): Uint32Array {
  const keys = new Float64Array(pairs.length / 2);
  for (let k = 0; k < keys.length; k++) {
    keys[k] = pairs[2 * k]! * n + pairs[2 * k + 1]!;
  }
  keys.sort();
  for (let k = 0; k < keys.length; k++) {
    const i = Math.floor(keys[k]! / n);
    pairs[2 * k] = i;
    pairs[2 * k + 1] = keys[k]! - i * n;
  }
  return pairs;
}

/** Every overlapping (i in A, j in B): sort-and-sweep along x on the SAT-padded AABBs. */
function crossSweep(a: BoxArray, b: BoxArray, tol: number, options: PairSweepOptions): Uint32Array {
  const aa = satAabbs(a, tol);
  const bb = satAabbs(b, tol);
  // Events on x: every box of A and of B, sorted by min x.
  type Item = { set: 0 | 1; i: number; lo: number };
  const items: Item[] = [];
  for (let i = 0; i < a.count; i++) {
    items.push({ set: 0, i, lo: aa[6 * i]! });
  }
  for (let j = 0; j < b.count; j++) {
    items.push({ set: 1, i: j, lo: bb[6 * j]! });
  }
  items.sort((x, y) => x.lo - y.lo);
  const s = makeSatScratch();
  const found: [number, number][] = [];
  const active: Item[] = [];
  for (const it of items) {
    // Drop boxes that end before this one starts.
    for (let k = active.length - 1; k >= 0; k--) {
      const x = active[k]!;
      if ((x.set === 0 ? aa : bb)[6 * x.i + 3]! < it.lo) {
        active.splice(k, 1);
      }
    }
    for (const x of active) {
      if (x.set === it.set) {
        continue;
      }
      const [ia, ib] = x.set === 0 ? [x.i, it.i] : [it.i, x.i];
      if (aabbsOverlap(aa, ia, bb, ib) && obbObbSatAt(a.data, ia, b.data, ib, false, s) <= tol) {
        found.push([ia, ib]);
      }
    }
    active.push(it);
  }
  found.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  const out = new PairList(options.maxPairs ?? Infinity);
  for (const [i, j] of found) {
    out.push(i, j);
  }
  return out.result();
}

/**
 * Exactly `allPairs` (or `obbCross(a, b)` when `b` is given): SAT on the candidates of a broad
 * phase over AABBs padded by what SAT's `overlap` can hide (boxes within the tolerance count as
 * overlapping, and a skipped near-parallel edge axis can hide a little more; satAabbs): a grid
 * for one set, sort-and-sweep for two. Face-only lists are `allPairs` / `obbCross` themselves:
 * six axes can call boxes with disjoint AABBs overlapping, so no AABB broad phase may cull them.
 * `onProgress` (one set) hears (boxes swept, boxes, overlapping pairs so far); past `maxPairs`
 * it throws a CapacityError.
 *
 * @example
 * allPairsSweep(boxes) // equal to allPairs(boxes)
 * allPairsSweep(boxes, { onProgress: (done, total, pairs) => console.log(done, total, pairs) })
 */
export function allPairsSweep(a: BoxArray, options: SatOptions & PairSweepOptions = {}, b?: BoxArray): Uint32Array {
  const tol = options.tolerance ?? SAT_TOLERANCE;
  if (options.faceOnly) {
    return b === undefined ? allPairs(a, options) : obbCross(a, b, options);
  }
  return b === undefined ? allPairsGrid(a, tol, options) : crossSweep(a, b, tol, options);
}
