/**
 * The all-pairs grid's layout, computed on the host from a set's float64 boxes: where the cells
 * are, how big, how far each box must search, and how crowded the search regions are (which
 * decides grid or tree for `accel: 'auto'`). Pure: no GPU here (the GPU build is ./grid.ts).
 */
import { BVH_AABB_PAD } from '../constants.ts';
import { aabbHalfWidthAt } from '../core/helpers.ts';
import { BOX_F64, type BoxArray, type Vec3 } from '../core/types.ts';

/** A set's all-pairs grid (gridOf). */
export interface GridLayout {
  readonly lo: Vec3;
  readonly cell: number;
  readonly reach: number;
  readonly dims: [number, number, number];
  readonly crowding: number;
}

/**
 * `allPairs` with `accel: 'auto'` takes the grid while its estimated candidates per box
 * (GridLayout.crowding) are at most this, else the BVH: boxes of similar sizes give a handful
 * (12 in the benchmark's moving scene), while one box as wide as the scene puts every box in
 * every search region (the grid's cost grows as n²; the tree's stays n log n).
 */
export const GRID_MAX_CROWDING = 2048;

/**
 * The grid of a set (its float64 boxes, in its floating-origin frame) for gridPairs: cells of
 * about one box each (the centres' bounds, widened by the widest box, over the box count), never
 * narrower than half the reach (so a box's search region spans a few cells per axis) nor than the
 * float32 resolution of the centres, at most 4 cells per box; `reach` is half the widest padded
 * AABB (BVH_AABB_PAD, as obbAabb pads) with 1 % and an absolute margin for float32 rounding: a
 * box whose AABB meets another's has its centre within that AABB widened by `reach`. Undefined
 * when the set is empty or the grid would still need more than 2^24 cells. `crowding` estimates
 * the candidates per box: the boxes expected, at the set's mean density, in the search region of
 * a box of mean size (its AABB widened by the reach), halved (each pair is met once); n / 2 when
 * a box as wide as the scene makes every search region the whole scene.
 */
export function gridOf(boxes: BoxArray, origin: Vec3): GridLayout | undefined {
  const d = boxes.data;
  const [ox, oy, oz] = origin;
  let loX = Infinity, loY = Infinity, loZ = Infinity;
  let hiX = -Infinity, hiY = -Infinity, hiZ = -Infinity;
  let widest = 0;
  let far = 0;
  let sumX = 0, sumY = 0, sumZ = 0;
  for (let o = 0; o < boxes.count * BOX_F64.STRIDE; o += BOX_F64.STRIDE) {
    const cx = d[o]! - ox, cy = d[o + 1]! - oy, cz = d[o + 2]! - oz;
    const ex = aabbHalfWidthAt(d, o, 0), ey = aabbHalfWidthAt(d, o, 1), ez = aabbHalfWidthAt(d, o, 2);
    const ax = Math.abs(cx), ay = Math.abs(cy), az = Math.abs(cz);
    // The padded AABB's width on each axis (obbAabb pads by BVH_AABB_PAD of extent + |centre|).
    widest = Math.max(widest, 2 * (ex + BVH_AABB_PAD * (ex + ax)), 2 * (ey + BVH_AABB_PAD * (ey + ay)), 2 * (ez + BVH_AABB_PAD * (ez + az)));
    far = Math.max(far, ax, ay, az);
    sumX += ex;
    sumY += ey;
    sumZ += ez;
    loX = cx < loX ? cx : loX;
    loY = cy < loY ? cy : loY;
    loZ = cz < loZ ? cz : loZ;
    hiX = cx > hiX ? cx : hiX;
    hiY = cy > hiY ? cy : hiY;
    hiZ = cz > hiZ ? cz : hiZ;
  }
  const lo = [loX, loY, loZ] as const;
  const hi = [hiX, hiY, hiZ] as const;
  if (boxes.count === 0) {
    return undefined;
  }
  // The margin covers the float32 rounding of centres, AABBs and (p − lo) / cell.
  const resolution = 1e-6 * (1 + far);
  const reach = 0.5 * widest * 1.01 + resolution + 1e-30;
  const volume = (hi[0] - lo[0] + widest) * (hi[1] - lo[1] + widest) * (hi[2] - lo[2] + widest);
  let cell = Math.max(Math.cbrt(volume / boxes.count), 0.5 * reach, resolution, 1e-30);
  const dimsOf = (c: number): [number, number, number] => [0, 1, 2].map((k) => Math.floor((hi[k]! - lo[k]!) / c) + 1) as [number, number, number];
  let dims = dimsOf(cell);
  while (dims[0] * dims[1] * dims[2] > 4 * boxes.count + 64) {
    cell *= 1.25;
    dims = dimsOf(cell);
  }
  // The share of the boxes' span (centres' bounds widened by a mean box) that a search region
  // of a mean box covers, per axis.
  const n = boxes.count;
  const crowding = [sumX, sumY, sumZ].reduce((c, sum, k) => {
    const span = hi[k]! - lo[k]! + 2 * (sum / n);
    return span > 0 ? c * Math.min(2 * (sum / n + reach) / span, 1) : c;
  }, 0.5 * n);
  return dims[0] * dims[1] * dims[2] <= 2 ** 24
    ? { lo: [lo[0] - 0.5 * cell, lo[1] - 0.5 * cell, lo[2] - 0.5 * cell], cell, reach, dims: [dims[0] + 1, dims[1] + 1, dims[2] + 1], crowding }
    : undefined;
}
