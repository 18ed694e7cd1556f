/**
 * Rays against a box set, float64 brute force. CPU twins of the batch kernels in
 * `shaders/rays/brute.wgsl`: `closestHit`, `anyHit`, `allHits`, with the same
 * filters (per-box and per-ray masks, one excluded box per ray, per-ray max distance, `solid`).
 *
 * Tie rule everywhere: smallest t, then smallest box index (boxes are visited in index order and
 * only a strictly smaller t replaces the best).
 */
import { HIT_FLAG_INSIDE, NO_BOX } from '../constants.ts';
import type { BoxArray, RayArray } from '../core/types.ts';
import { makeRayObbScratch, rayObbAt } from './query/rayObb.ts';
import type { AllHits, ClosestHits, RaycastOptions } from '../core/queries.ts';

export type { AllHits, ClosestHits, RaycastOptions };

function passesFilter(options: RaycastOptions, ray: number, box: number): boolean {
  const { boxMasks, rayMasks, exclude } = options;
  if (boxMasks || rayMasks) {
    const rm = rayMasks ? rayMasks[ray]! : 0xffffffff;
    const bm = boxMasks ? boxMasks[box]! : 0xffffffff;
    if ((rm & bm) === 0) {
      return false;
    }
  }
  return !exclude || exclude[ray] !== box;
}

/**
 * Closest hit of each ray over the set (smallest t, ties to the smallest index).
 *
 * @example
 * const hits = closestHit(boxArrayFrom(boxes), rayArrayFrom(rays));
 * hits.box[0] // index of the first box ray 0 hits, or -1
 */
export function closestHit(boxes: BoxArray, rays: RayArray, options: RaycastOptions = {}): ClosestHits {
  const solid = options.solid ?? true;
  const box = new Int32Array(rays.count).fill(-1);
  const t = new Float64Array(rays.count).fill(Infinity);
  const face = new Uint8Array(rays.count).fill(0xff);
  const inside = new Uint8Array(rays.count);
  const s = makeRayObbScratch();
  for (let r = 0; r < rays.count; r++) {
    let best = Infinity;
    for (let b = 0; b < boxes.count; b++) {
      if (!passesFilter(options, r, b)) {
        continue;
      }
      if (rayObbAt(boxes.data, b, rays.data, r, solid, s) && s.t < best) {
        best = s.t;
        box[r] = b;
        t[r] = s.t;
        face[r] = s.face;
        inside[r] = s.flags & HIT_FLAG_INSIDE ? 1 : 0;
      }
    }
  }
  return { count: rays.count, box, t, face, inside };
}

/**
 * Whether each ray hits any box (1) or none (0); stops at the first hit.
 *
 * @example
 * anyHit(boxArrayFrom(boxes), rayArrayFrom(rays)) // Uint8Array of 0/1
 */
export function anyHit(boxes: BoxArray, rays: RayArray, options: RaycastOptions = {}): Uint8Array {
  const solid = options.solid ?? true;
  const out = new Uint8Array(rays.count);
  const s = makeRayObbScratch();
  for (let r = 0; r < rays.count; r++) {
    for (let b = 0; b < boxes.count; b++) {
      if (passesFilter(options, r, b) && rayObbAt(boxes.data, b, rays.data, r, solid, s)) {
        out[r] = 1;
        break;
      }
    }
  }
  return out;
}

/**
 * Every (ray, box) hit, sorted by ray, then t, then box index.
 *
 * @example
 * const all = allHits(boxArrayFrom(boxes), rayArrayFrom(rays));
 * for (let k = 0; k < all.count; k++) console.log(all.ray[k], all.box[k], all.t[k]);
 */
export function allHits(boxes: BoxArray, rays: RayArray, options: RaycastOptions = {}): AllHits {
  const solid = options.solid ?? true;
  const s = makeRayObbScratch();
  const rayIds: number[] = [];
  const boxIds: number[] = [];
  const ts: number[] = [];
  const faces: number[] = [];
  const insides: number[] = [];
  const order: number[] = [];
  for (let r = 0; r < rays.count; r++) {
    const first = ts.length;
    for (let b = 0; b < boxes.count; b++) {
      if (passesFilter(options, r, b) && rayObbAt(boxes.data, b, rays.data, r, solid, s)) {
        rayIds.push(r);
        boxIds.push(b);
        ts.push(s.t);
        faces.push(s.face);
        insides.push(s.flags & HIT_FLAG_INSIDE ? 1 : 0);
      }
    }
    // Boxes were visited in index order, so a stable sort by t leaves ties by index.
    const local = Array.from({ length: ts.length - first }, (_, k) => first + k);
    local.sort((x, y) => ts[x]! - ts[y]! || boxIds[x]! - boxIds[y]!);
    order.push(...local);
  }
  const n = order.length;
  const result = {
    count: n,
    ray: new Uint32Array(n),
    box: new Uint32Array(n),
    t: new Float64Array(n),
    face: new Uint8Array(n),
    inside: new Uint8Array(n),
  };
  order.forEach((src, k) => {
    result.ray[k] = rayIds[src]!;
    result.box[k] = boxIds[src]!;
    result.t[k] = ts[src]!;
    result.face[k] = faces[src]!;
    result.inside[k] = insides[src]!;
  });
  return result;
}

/** NO_BOX re-exported for callers that fill exclude arrays from GPU data. */
export { NO_BOX };
