/**
 * Box and ray types, for single objects and for bulk typed arrays.
 *
 * Every backend works on the canonical forms: {@link Obb} (orthonormal right-handed axes,
 * u, v, w = u × v) and {@link RayN} (unit direction). `toObb` / `toRay` in `./canonical.ts`
 * validate user input and produce them; bulk data lives in {@link BoxArray} / {@link RayArray}.
 */

export type Vec3 = readonly [number, number, number];
/** Unit quaternion, [x, y, z, w]. */
export type Quat = readonly [number, number, number, number];
/** Column-major 4×4 matrix (WebGPU / gl-matrix convention): element (row r, col c) at 4c + r. */
export type Mat4 = ArrayLike<number>;

/** An oriented box in canonical form: unit, orthonormal, right-handed axes (w = u × v). */
export interface Obb {
  readonly center: Vec3;
  readonly halfExtents: Vec3;
  readonly axes: readonly [Vec3, Vec3, Vec3];
}

/** Box by centre, half extents and three axes (orthonormal within 1e-4; either handedness). */
export interface BoxAxesInput {
  readonly center: Vec3;
  readonly halfExtents: Vec3;
  readonly axes: readonly [Vec3, Vec3, Vec3];
}

/** Box by centre, half extents and a non-zero quaternion [x, y, z, w] (normalised for you). */
export interface BoxQuatInput {
  readonly center: Vec3;
  readonly halfExtents: Vec3;
  readonly rotation: Quat;
}

/** The object forms of a box the API accepts. */
export type BoxInput = BoxAxesInput | BoxQuatInput;

/** A ray as users write it: any finite non-zero direction; `maxDistance` defaults to +∞. */
export interface Ray {
  readonly origin: Vec3;
  readonly direction: Vec3;
  readonly maxDistance?: number;
}

/** A ray in canonical form: unit direction, so `t` is a world distance. */
export interface RayN {
  readonly origin: Vec3;
  readonly direction: Vec3;
  readonly maxDistance: number;
}

/** An axis-aligned box. */
export interface Aabb {
  readonly min: Vec3;
  readonly max: Vec3;
}

/**
 * Float64 layout of one box in a {@link BoxArray}: centre, half extents, then the axes u, v, w.
 * Offsets are in float64 elements.
 */
export const BOX_F64 = {
  STRIDE: 15,
  CENTER: 0,
  HALF: 3,
  U: 6,
  V: 9,
  W: 12,
} as const;

/** Float64 layout of one ray in a {@link RayArray}: origin, unit direction, max distance. */
export const RAY_F64 = {
  STRIDE: 7,
  ORIGIN: 0,
  DIR: 3,
  MAX: 6,
} as const;

/** Many canonical boxes, packed as {@link BOX_F64} records. */
export interface BoxArray {
  readonly count: number;
  readonly data: Float64Array;
}

/** Many canonical rays, packed as {@link RAY_F64} records (`maxDistance` may be Infinity). */
export interface RayArray {
  readonly count: number;
  readonly data: Float64Array;
}
