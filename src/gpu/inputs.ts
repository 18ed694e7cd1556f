/**
 * Validation of query inputs shared by the GPU queries: everything is checked on the host, before
 * any buffer is written, and errors name the item and field.
 */
import { rayArrayFrom, validateRayArray } from '../core/canonical.ts';
import type { RayArray, Ray } from '../core/types.ts';
import { ValidationError } from '../errors.ts';

/** Rays as the GPU API accepts them: objects, or RAY_F64 records (validated either way). */
export type RaySource = readonly Ray[] | RayArray;

/** Canonical rays (unit directions) from either form. */
export function canonicalRays(source: RaySource): RayArray {
  if (Array.isArray(source)) {
    return rayArrayFrom(source as readonly Ray[]);
  }
  const arr = source as RayArray;
  if (!arr || !(arr.data instanceof Float64Array) || !Number.isInteger(arr.count)) {
    throw new ValidationError('argument', undefined, 'rays', 'must be an array of rays or a RayArray { count, data: Float64Array }');
  }
  return validateRayArray(arr.data, arr.count);
}

/** Checks per-ray masks and excluded boxes against the ray and box counts. */
export function checkRayFilters(
  rayCount: number, boxCount: number,
  rayMasks: Uint32Array | undefined, exclude: Int32Array | undefined,
): void {
  if (rayMasks && rayMasks.length !== rayCount) {
    throw new ValidationError('argument', undefined, 'rayMasks', `has length ${rayMasks.length}, expected one per ray (${rayCount})`);
  }
  if (exclude) {
    if (exclude.length !== rayCount) {
      throw new ValidationError('argument', undefined, 'exclude', `has length ${exclude.length}, expected one per ray (${rayCount})`);
    }
    for (let i = 0; i < exclude.length; i++) {
      const e = exclude[i]!;
      if (e >= boxCount || e < -1) {
        throw new ValidationError('ray', i, 'exclude', `= ${e} is not a box index (0..${boxCount - 1}) or -1`);
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
