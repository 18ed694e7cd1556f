/**
 * GPU layouts as offset tables (bytes), and the packers that use them. The numbers mirror the
 * structs of shaders/common/types.wgsl; test/cpu/layout.test.ts reflects the linked kernels with
 * wgsl_reflect and fails if a struct changes without its table.
 */
import { F32_MAX, NO_BOX } from '../constants.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Vec3 } from '../core/types.ts';

/** Byte offsets and size of WGSL struct `Obb`. */
export const OBB = { SIZE: 48, CENTER: 0, HX: 12, U: 16, HY: 28, V: 32, HZ: 44 } as const;
/** Byte offsets and size of WGSL struct `Ray`. */
export const RAY = { SIZE: 48, ORIGIN: 0, MAX_DISTANCE: 12, DIRECTION: 16, MASK: 28, EXCLUDE: 32 } as const;
/** Byte offsets and size of WGSL struct `Hit`. */
export const HIT = { SIZE: 16, T: 0, BOX: 4, FACE: 8, FLAGS: 12 } as const;
/** Byte offsets and size of WGSL struct `HitGeometry`. */
export const HIT_GEOMETRY = { SIZE: 32, POINT: 0, T: 12, NORMAL: 16, BOX: 28 } as const;
/** Byte offsets and size of WGSL struct `HitRecord`. */
export const HIT_RECORD = { SIZE: 16, RAY: 0, BOX: 4, T: 8, FACE_FLAGS: 12 } as const;
/** Byte offsets and size of WGSL struct `PairResult`. */
export const PAIR_RESULT = { SIZE: 12, GAP: 0, AXIS: 4, OVERLAP: 8 } as const;
/** Byte offsets and size of WGSL struct `RayParams`. */
export const RAY_PARAMS = { SIZE: 16, RAY_COUNT: 0, BOX_COUNT: 4, FLAGS: 8, CAPACITY: 12 } as const;
/** Byte offsets and size of WGSL struct `PairParams`. */
export const PAIR_PARAMS = {
  SIZE: 48, OFFSET_B: 0, TOLERANCE: 12, COUNT_A: 16, COUNT_B: 20, PAIR_COUNT: 24, FLAGS: 28, CAPACITY: 32,
} as const;

/** Byte offsets and size of WGSL struct `PairListStatus` (a pair list recorded into the caller's encoder). */
export const PAIR_LIST_STATUS = { SIZE: 32, COUNT: 0, FOUND: 4, CANDIDATES: 8, OVERFLOW: 12, DISPATCH: 16 } as const;

/** Byte offsets and size of WGSL struct `BvhNode`. */
export const BVH_NODE = { SIZE: 32, MIN: 0, LEFT: 12, MAX: 16, RIGHT: 28 } as const;
/** Byte offsets and size of WGSL struct `BvhParams`. */
export const BVH_PARAMS = { SIZE: 8, COUNT: 0, PARTIALS: 4 } as const;
/** Byte offsets and size of WGSL struct `LidarParams`. */
export const LIDAR_PARAMS = {
  SIZE: 112, ORIGIN: 0, MAX_RANGE: 12, AXIS_X: 16, CHANNELS: 28, AXIS_Y: 32, AZIMUTHS: 44, AXIS_Z: 48, MASK: 60, MIN_RANGE: 64, OFFSET_MIN: 68, OFFSET_MAX: 72, FLAGS: 76, SPAN: 80, BEAM_OFFSET: 84, MOVING: 88, CHUNK_WIDTH: 92,
  FRAME_ROWS: 96, TIME_ROWS: 100, ORIGIN_GROW: 104, PAD1: 108,
} as const;
export const LIDAR_SWEEP_PARAMS = {
  SIZE: 32, CHANNELS: 0, AZIMUTHS: 4, MASK: 8, MOVING_COUNT: 12, MIN_RANGE: 16, MAX_RANGE: 20, FRAME_ROWS: 24, FRAME_COLS: 28,
} as const;
/** Byte offsets and size of WGSL struct `FrustumParams`. */
export const FRUSTUM_PARAMS = { SIZE: 112, PLANES: 0, COUNT: 96, INDEX_COUNT: 100, FIRST_INDEX: 104, BASE_VERTEX: 108 } as const;
/** Byte offsets and size of WGSL struct `GridParams`. */
export const GRID_PARAMS = { SIZE: 48, LO: 0, INV_CELL: 12, DIMS: 16, CELLS: 28, REACH: 32 } as const;
export const SCATTER_PARAMS = { SIZE: 4, COUNT: 0 } as const;
/** Byte offsets and size of WGSL struct `DeriveParams` (a GPU-sourced set's derivation, shaders/boxes/derive.wgsl). */
export const DERIVE_PARAMS = {
  SIZE: 80, ORIGIN_HI: 0, COUNT: 12, ORIGIN_LO: 16, SOURCE_LAYOUT: 28, LOCAL_CENTER: 32, RECORD_FIRST: 44, LOCAL_HALF: 48,
  RECORD_STRIDE: 60, LOCAL_FIRST: 64, LOCAL_STRIDE: 68, FLAGS: 72, PAD: 76,
} as const;

/** Every table by its WGSL struct name (the reflection test walks this). */
export const LAYOUTS = {
  Obb: OBB, Ray: RAY, Hit: HIT, HitGeometry: HIT_GEOMETRY, HitRecord: HIT_RECORD,
  PairResult: PAIR_RESULT, RayParams: RAY_PARAMS, PairParams: PAIR_PARAMS, PairListStatus: PAIR_LIST_STATUS,
  BvhNode: BVH_NODE, BvhParams: BVH_PARAMS, LidarParams: LIDAR_PARAMS, LidarSweepParams: LIDAR_SWEEP_PARAMS, FrustumParams: FRUSTUM_PARAMS, GridParams: GRID_PARAMS,
  ScatterParams: SCATTER_PARAMS,
  DeriveParams: DERIVE_PARAMS,
} as const;

/**
 * Packs boxes `[first, first + count)` of a BoxArray into the GPU `Obb` layout, positions re-based
 * to `origin` in float64 before rounding to float32 (floating origin: precision follows the
 * distance from `origin`, not from the world origin).
 *
 * @example
 * const bytes = packBoxes(boxes, [0, 0, 0]); device.queue.writeBuffer(buffer, 0, bytes);
 */
export function packBoxes(
  boxes: BoxArray, origin: Vec3 = [0, 0, 0], first = 0, count = boxes.count - first,
  out: Float32Array<ArrayBuffer> = new Float32Array(count * (OBB.SIZE / 4)),
): Float32Array<ArrayBuffer> {
  const stride = OBB.SIZE / 4;
  if (out.length < count * stride) {
    throw new RangeError(`packBoxes: out holds ${out.length} floats, ${count * stride} needed`);
  }
  const d = boxes.data;
  const [ox, oy, oz] = origin;
  // The offsets in locals: read off the imported tables inside the loop, they cost ~10× the
  // stores at a million boxes (in Vite's module runner each is a property read on a namespace).
  const S = BOX_F64.STRIDE, SC = BOX_F64.CENTER, SH = BOX_F64.HALF, SU = BOX_F64.U, SV = BOX_F64.V;
  const C = OBB.CENTER / 4, HX = OBB.HX / 4, U = OBB.U / 4, HY = OBB.HY / 4, V = OBB.V / 4, HZ = OBB.HZ / 4;
  for (let i = 0, s = first * S, o = 0; i < count; i++, s += S, o += stride) {
    out[o + C] = d[s + SC]! - ox;
    out[o + C + 1] = d[s + SC + 1]! - oy;
    out[o + C + 2] = d[s + SC + 2]! - oz;
    out[o + HX] = d[s + SH]!;
    out[o + U] = d[s + SU]!;
    out[o + U + 1] = d[s + SU + 1]!;
    out[o + U + 2] = d[s + SU + 2]!;
    out[o + HY] = d[s + SH + 1]!;
    out[o + V] = d[s + SV]!;
    out[o + V + 1] = d[s + SV + 1]!;
    out[o + V + 2] = d[s + SV + 2]!;
    out[o + HZ] = d[s + SH + 2]!;
  }
  return out;
}

/** Per-ray filters packed with the rays. */
export interface RayPackOptions {
  readonly masks?: Uint32Array | undefined;
  /** Box index each ray must not hit; negative = none. */
  readonly exclude?: Int32Array | undefined;
}

/**
 * Packs a RayArray into the GPU `Ray` layout, origins re-based to `origin` (float64 first).
 * An infinite max distance becomes F32_MAX (the GPU never sees an infinity).
 *
 * @example
 * device.queue.writeBuffer(buffer, 0, packRays(rays, set.origin));
 */
export function packRays(rays: RayArray, origin: Vec3 = [0, 0, 0], options: RayPackOptions = {}): ArrayBuffer {
  const stride = RAY.SIZE / 4;
  const buffer = new ArrayBuffer(rays.count * RAY.SIZE);
  const f = new Float32Array(buffer);
  const u = new Uint32Array(buffer);
  const d = rays.data;
  const [ox, oy, oz] = origin;
  const { masks, exclude } = options;
  // Offsets in locals, as in packBoxes.
  const S = RAY_F64.STRIDE, SO = RAY_F64.ORIGIN, SD = RAY_F64.DIR, SM = RAY_F64.MAX;
  const O = RAY.ORIGIN / 4, MAX = RAY.MAX_DISTANCE / 4, D = RAY.DIRECTION / 4, MASK = RAY.MASK / 4, EX = RAY.EXCLUDE / 4;
  for (let i = 0, s = 0, o = 0; i < rays.count; i++, s += S, o += stride) {
    f[o + O] = d[s + SO]! - ox;
    f[o + O + 1] = d[s + SO + 1]! - oy;
    f[o + O + 2] = d[s + SO + 2]! - oz;
    f[o + MAX] = Math.min(d[s + SM]!, F32_MAX);
    f[o + D] = d[s + SD]!;
    f[o + D + 1] = d[s + SD + 1]!;
    f[o + D + 2] = d[s + SD + 2]!;
    u[o + MASK] = masks ? masks[i]! : 0xffffffff;
    const ex = exclude ? exclude[i]! : -1;
    u[o + EX] = ex < 0 ? NO_BOX : ex;
  }
  return buffer;
}
