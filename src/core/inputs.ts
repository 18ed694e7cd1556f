/**
 * Validation of query inputs shared by the GPU queries and the CLI: everything is checked on the
 * host, before any buffer is written, and errors name the item and field. Sizes come first, from
 * counts and strides alone (rayCount), so that capacity is checked before an input is copied.
 */
import { rayArrayFrom, validateRayArray } from './canonical.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Ray, type Vec3 } from './types.ts';
import { ValidationError } from '../errors.ts';

/**
 * Largest magnitude of a coordinate or half extent the GPU accepts, measured from the set's
 * floating origin (metres, or whatever unit the scene uses). The kernels work in float32 and
 * may assume no infinities: below this bound every intermediate (slab distances up to
 * |p| / EPS_DIR, squared distances of the sphere cull) stays far inside float32's range
 * (≈ 3.4e38). Positions this far out are meaningless in float32 anyway (resolution ≈ 1e8);
 * the bound exists so that such data is refused with a clear error instead of turning into
 * infinities and NaNs on the GPU. The float64 reference has no such limit.
 */
export const GPU_MAX_COORDINATE = 1e15;

/** Rays as the GPU API accepts them: objects, or RAY_F64 records (validated either way). */
export type RaySource = readonly Ray[] | RayArray;

/**
 * How many records a bulk input holds, from its shape alone (nothing is read or copied), so that
 * capacity can be checked before validation copies the input: an array's length, or a
 * `{ count, data: Float64Array }` whose count is a non-negative integer and whose data is long
 * enough for `count` records of `stride` numbers. `what` names the input in errors
 * (`boxes`, `rays`).
 *
 * @example
 * recordCount('rays', rays, RAY_F64.STRIDE) // 5000, before any ray is read
 */
export function recordCount(what: 'boxes' | 'rays', source: unknown, stride: number): number {
  if (Array.isArray(source)) {
    return source.length;
  }
  const arr = source as { count?: unknown; data?: unknown } | null | undefined;
  if (typeof arr !== 'object' || arr === null || !(arr.data instanceof Float64Array)) {
    throw new ValidationError('argument', undefined, what, `must be an array of ${what} or a ${what === 'boxes' ? 'BoxArray' : 'RayArray'} { count, data: Float64Array }`);
  }
  const count = arr.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new ValidationError('argument', undefined, `${what}.count`, `must be a non-negative integer (got ${String(count)})`);
  }
  if (arr.data.length < count * stride) {
    throw new ValidationError('argument', undefined, `${what}.data`,
      `has ${arr.data.length} numbers, fewer than ${count} ${what} × ${stride} (the record stride) = ${count * stride}`);
  }
  return count;
}

/** How many rays `source` holds, from its shape alone (see recordCount). */
export function rayCount(source: RaySource): number {
  return recordCount('rays', source, RAY_F64.STRIDE);
}

/** Canonical rays (unit directions, a validated copy) from either form; call rayCount first. */
export function canonicalRays(source: RaySource): RayArray {
  rayCount(source);
  if (Array.isArray(source)) {
    return rayArrayFrom(source as readonly Ray[]);
  }
  const arr = source as RayArray;
  return validateRayArray(arr.data, arr.count);
}

/** Per axis the least and the greatest box centre and the greatest |half extent| (boxBounds). */
export interface BoxBounds {
  readonly lo: Vec3;
  readonly hi: Vec3;
  readonly half: Vec3;
}

/**
 * The bounds of the box centres and the greatest |half extents|, in one pass over the typed array
 * (with the bounds in locals: arrays of running bounds cost ~20× as much at a million boxes). A
 * NaN anywhere makes its bound NaN. What defaultOrigin and checkBoxRange read, computed once
 * when a set needs both.
 */
export function boxBounds(boxes: BoxArray): BoxBounds {
  const d = boxes.data;
  const S = BOX_F64.STRIDE;
  const H = BOX_F64.HALF;
  let lx = Infinity, ly = Infinity, lz = Infinity;
  let hx = -Infinity, hy = -Infinity, hz = -Infinity;
  let ex = 0, ey = 0, ez = 0;
  for (let o = BOX_F64.CENTER, end = boxes.count * S; o < end; o += S) {
    const x = d[o]!, y = d[o + 1]!, z = d[o + 2]!;
    lx = Math.min(lx, x);
    ly = Math.min(ly, y);
    lz = Math.min(lz, z);
    hx = Math.max(hx, x);
    hy = Math.max(hy, y);
    hz = Math.max(hz, z);
    ex = Math.max(ex, Math.abs(d[o + H]!));
    ey = Math.max(ey, Math.abs(d[o + H + 1]!));
    ez = Math.max(ez, Math.abs(d[o + H + 2]!));
  }
  return { lo: [lx, ly, lz], hi: [hx, hy, hz], half: [ex, ey, ez] };
}

/**
 * Centre of the bounds of the box centres (float64): the default floating origin of a set.
 * `bounds` (boxBounds of the same boxes) saves the pass.
 *
 * @example
 * defaultOrigin(boxArrayFrom([{ center: [1e6, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }])) // [1e6, 0, 0]
 */
export function defaultOrigin(boxes: BoxArray, bounds?: BoxBounds): Vec3 {
  if (boxes.count === 0) {
    return [0, 0, 0];
  }
  const { lo, hi } = bounds ?? boxBounds(boxes);
  // Halves first: (lo + hi) could overflow for finite inputs near ±1.8e308.
  return [lo[0] / 2 + hi[0] / 2, lo[1] / 2 + hi[1] / 2, lo[2] / 2 + hi[2] / 2];
}

/** Checks a floating origin: three finite numbers. */
export function checkOrigin(origin: unknown, field = 'origin'): asserts origin is Vec3 {
  if (!Array.isArray(origin) || origin.length !== 3 || !origin.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new ValidationError('argument', undefined, field, `must be three finite numbers (got ${JSON.stringify(origin) ?? String(origin)})`);
  }
}

function rangeError(kind: 'box' | 'ray', index: number, field: string, value: number, origin: number | undefined): ValidationError {
  const where = origin === undefined || origin === 0
    ? `|value| must be ≤ ${GPU_MAX_COORDINATE}`
    : `it lies ${Math.abs(value - origin)} from the set's origin (${origin} on this axis), and at most ${GPU_MAX_COORDINATE} is allowed`;
  return new ValidationError(kind, index, field,
    `= ${value} is beyond the GPU's range: ${where} (the kernels work in float32); ` +
    'use a set origin near the data, or split it into several sets');
}

/**
 * Of `count` coordinates (read by `value(i, k)`), some of them farther than GPU_MAX_COORDINATE
 * from `origin` (withinRange failed), the farthest (ties: the larger magnitude; NaN farthest), so
 * that the message shows the culprit, not a neighbour the default origin was pulled away from.
 */
function farthestOutOfRange(count: number, value: (i: number, k: number) => number, origin: Vec3): [number, number] {
  let worst: [number, number] = [0, 0];
  let worstKey = [-1, -1];
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < 3; k++) {
      const x = value(i, k);
      // NaN is beyond every bound: the farthest (its key's comparisons would otherwise all fail).
      const key = Number.isNaN(x) ? [Infinity, Infinity] : [Math.abs(x - origin[k]!), Math.abs(x)];
      if (key[0]! > worstKey[0]! || (key[0] === worstKey[0] && key[1]! > worstKey[1]!)) {
        worst = [i, k];
        worstKey = key;
      }
    }
  }
  return worst;
}

/**
 * Checks that boxes fit the GPU's float32 range once re-based to `origin` (see
 * {@link GPU_MAX_COORDINATE}); throws ValidationError naming the box and field.
 */
export function checkBoxRange(boxes: BoxArray, origin: Vec3, firstIndex = 0, bounds?: BoxBounds): void {
  // From the bounds: every centre within range of the origin iff the extreme ones are (float
  // subtraction is monotonic), every |half extent| iff the greatest is; NaN fails and takes the
  // passes below, which name the culprit.
  const { lo, hi, half } = bounds ?? boxBounds(boxes);
  let within = true;
  for (let k = 0; k < 3; k++) {
    within &&= hi[k]! - origin[k]! <= GPU_MAX_COORDINATE && origin[k]! - lo[k]! <= GPU_MAX_COORDINATE && half[k]! <= GPU_MAX_COORDINATE;
  }
  if (within) {
    return;
  }
  const d = boxes.data;
  const S = BOX_F64.STRIDE;
  const far = withinRange(d, BOX_F64.CENTER, S, boxes.count, origin)
    ? undefined
    : farthestOutOfRange(boxes.count, (i, k) => d[i * S + BOX_F64.CENTER + k]!, origin);
  if (far) {
    const [i, k] = far;
    throw rangeError('box', firstIndex + i, `center[${k}]`, d[i * S + BOX_F64.CENTER + k]!, origin[k]);
  }
  if (withinRange(d, BOX_F64.HALF, S, boxes.count, [0, 0, 0])) {
    return; // half extents are ≥ 0 (validated), so |h| ≤ the bound is h ≤ the bound
  }
  for (let i = 0; i < boxes.count; i++) {
    for (let k = 0; k < 3; k++) {
      const h = d[i * S + BOX_F64.HALF + k]!;
      if (!(h <= GPU_MAX_COORDINATE)) {
        throw rangeError('box', firstIndex + i, `halfExtents[${k}]`, h, undefined);
      }
    }
  }
}

/**
 * Whether the `count` triples at `d[first + i·stride]` all lie within GPU_MAX_COORDINATE of
 * `origin` per axis (NaN does not): run only when the bounds say something is out of range, to
 * find which coordinates are; the search that names the culprit runs only when this fails.
 */
function withinRange(d: Float64Array, first: number, stride: number, count: number, origin: Vec3): boolean {
  const [ox, oy, oz] = origin;
  for (let o = first, end = first + count * stride; o < end; o += stride) {
    if (!(Math.abs(d[o]! - ox) <= GPU_MAX_COORDINATE && Math.abs(d[o + 1]! - oy) <= GPU_MAX_COORDINATE && Math.abs(d[o + 2]! - oz) <= GPU_MAX_COORDINATE)) {
      return false;
    }
  }
  return true;
}

/** Checks that ray origins fit the GPU's float32 range once re-based to `origin`. */
export function checkRayRange(rays: RayArray, origin: Vec3): void {
  const d = rays.data;
  const far = withinRange(d, RAY_F64.ORIGIN, RAY_F64.STRIDE, rays.count, origin)
    ? undefined
    : farthestOutOfRange(rays.count, (i, k) => d[i * RAY_F64.STRIDE + RAY_F64.ORIGIN + k]!, origin);
  if (far) {
    const [i, k] = far;
    throw rangeError('ray', i, `origin[${k}]`, d[i * RAY_F64.STRIDE + RAY_F64.ORIGIN + k]!, origin[k]);
  }
}

/**
 * Checks per-ray masks and excluded boxes against the ray count and (when given) the box count.
 */
export function checkRayFilters(
  rayCount: number, boxCount: number | undefined,
  rayMasks: Uint32Array | undefined, exclude: Int32Array | undefined,
): void {
  if (rayMasks !== undefined && !(rayMasks instanceof Uint32Array)) {
    throw new ValidationError('argument', undefined, 'rayMasks', 'must be a Uint32Array (one mask per ray)');
  }
  if (exclude !== undefined && !(exclude instanceof Int32Array)) {
    throw new ValidationError('argument', undefined, 'exclude', 'must be an Int32Array (one box index or -1 per ray)');
  }
  if (rayMasks && rayMasks.length !== rayCount) {
    throw new ValidationError('argument', undefined, 'rayMasks', `has length ${rayMasks.length}, expected one per ray (${rayCount})`);
  }
  if (exclude) {
    if (exclude.length !== rayCount) {
      throw new ValidationError('argument', undefined, 'exclude', `has length ${exclude.length}, expected one per ray (${rayCount})`);
    }
    // Without a box count (a call whose set may still change before its turn), only the sign.
    const limit = boxCount ?? Infinity;
    for (let i = 0; i < exclude.length; i++) {
      const e = exclude[i]!;
      if (e >= limit || e < -1) {
        throw new ValidationError('ray', i, 'exclude', `= ${e} is not a box index (0..${limit - 1}) or -1`);
      }
    }
  }
}

/** Checks a capacity option: a positive integer. */
export function checkCapacity(capacity: number | undefined, field = 'capacity'): void {
  if (capacity !== undefined && !(Number.isInteger(capacity) && capacity >= 1)) {
    throw new ValidationError('argument', undefined, field, `must be a positive integer (got ${String(capacity)})`);
  }
}
