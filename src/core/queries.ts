/**
 * What the queries take and return, shared by the float64 reference and the GPU: the filters of
 * the ray queries, the SAT options, the result records, and the check of listed pairs. Every
 * backend uses these types; none owns them.
 */
import { ValidationError } from '../errors.ts';

/** Filters shared by every ray query (CPU and GPU). */
export interface RaycastOptions {
  /** Origin inside a box: t = 0 and `inside` (true, default), or the exit point and face (false). */
  readonly solid?: boolean;
  /** Per-box mask; a box is tested only when `(rayMask & boxMask) != 0`. Default all bits. */
  readonly boxMasks?: Uint32Array;
  /** Per-ray mask. Default all bits. */
  readonly rayMasks?: Uint32Array;
  /** Per-ray box index to skip (a ray cast from a surface must not hit its own box); -1 = none. */
  readonly exclude?: Int32Array;
}

/** Closest hit per ray. `box[i] = -1` for a miss; face = FACE_NONE when there is no face. */
export interface ClosestHits {
  readonly count: number;
  readonly box: Int32Array;
  readonly t: Float64Array | Float32Array;
  readonly face: Uint8Array;
  /** 1 when the ray origin is inside the hit box. */
  readonly inside: Uint8Array;
}

/** Every hit of every ray, sorted by ray, then t, then box. */
export interface AllHits {
  readonly count: number;
  readonly ray: Uint32Array;
  readonly box: Uint32Array;
  readonly t: Float64Array | Float32Array;
  readonly face: Uint8Array;
  readonly inside: Uint8Array;
}

/** Options of the SAT queries. */
export interface SatOptions {
  /** Contact tolerance in world units: `overlap = gap <= tolerance` (default 1e-6). */
  readonly tolerance?: number;
  /** Test the six face axes only (never the final answer; see docs/design.md, "Semantics"). */
  readonly faceOnly?: boolean;
}

/** Per-pair SAT results. */
export interface PairResults {
  readonly count: number;
  /** 1 where the pair overlaps (gap <= tolerance). */
  readonly overlap: Uint8Array;
  /** Largest gap over the tested axes, world units. */
  readonly gap: Float64Array | Float32Array;
  /** Axis id (0..14, see SAT_AXIS_NAMES) attaining the gap. */
  readonly axis: Uint8Array;
}

/** Throws a ValidationError naming the first pair index out of range. */
export function checkPairs(pairs: Uint32Array | readonly (readonly [number, number])[], countA: number, countB: number): void {
  const n = pairs instanceof Uint32Array ? pairs.length / 2 : pairs.length;
  if (pairs instanceof Uint32Array && pairs.length % 2 !== 0) {
    throw new ValidationError('argument', undefined, 'pairs', `length ${pairs.length} is odd (expected [i0, j0, i1, j1, …])`);
  }
  for (let k = 0; k < n; k++) {
    const i = pairs instanceof Uint32Array ? pairs[2 * k]! : pairs[k]![0];
    const j = pairs instanceof Uint32Array ? pairs[2 * k + 1]! : pairs[k]![1];
    if (!Number.isInteger(i) || i < 0 || i >= countA) {
      throw new ValidationError('pair', k, 'i', `= ${i} is not a box index (0..${countA - 1})`);
    }
    if (!Number.isInteger(j) || j < 0 || j >= countB) {
      throw new ValidationError('pair', k, 'j', `= ${j} is not a box index (0..${countB - 1})`);
    }
  }
}
