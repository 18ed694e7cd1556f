/**
 * webgpu-obb: oriented-box collision queries in WebGPU compute shaders, with a float64 CPU
 * reference that proves every GPU result.
 *
 * The main entry holds what a user of the GPU queries needs, grouped: core types, constructors
 * and helpers (float64, backend-independent); the GPU facade `ObbGpu`, `BoxSet`, the LiDAR
 * sensor and what the queries take and return; the errors; and the float64 reference as the
 * `reference` namespace (also `webgpu-obb/reference`), named so that its `closestHit` cannot be
 * mistaken for `gpu.closestHit`. The other entries: `webgpu-obb/judge` (the comparator, its
 * error model, the seeded and adversarial scene generators, judging result files),
 * `webgpu-obb/lidar` (sensor presets, the Ouster metadata import, point-cloud writers),
 * `webgpu-obb/three` (three.js), `webgpu-obb/node` (Dawn in Node) and `webgpu-obb/advanced`
 * (the GPU building blocks under the facade). test/cpu/api.test.ts keeps a snapshot of every
 * entry's names, so a change to the public surface is deliberate.
 *
 * @example
 * import { ObbGpu, rayArrayFrom } from 'webgpu-obb';
 * import { compareClosestHits, formatComparison } from 'webgpu-obb/judge';
 * const gpu = await ObbGpu.create();
 * const set = gpu.createBoxSet(boxes);
 * const hits = await gpu.closestHit(set, rays);
 * console.log(formatComparison(compareClosestHits({ boxes: set.boxes, rays: rayArrayFrom(rays), origin: set.origin }, hits)));
 */

// Core: types, validation, constructors, helpers.
export {
  BOX_F64, RAY_F64,
  type Vec3, type Quat, type Mat4, type Obb, type BoxInput, type BoxAxesInput, type BoxQuatInput, type Ray, type RayN, type Aabb,
  type BoxArray, type RayArray,
} from './core/types.ts';
export {
  toObb, toRay, boxArrayFrom, rayArrayFrom, validateBoxArray, validateRayArray, makeBoxArray, makeRayArray, boxAt, rayAt, setBox, setRay,
  type ValidateBoxOptions, type ValidateRayOptions,
} from './core/canonical.ts';
export { MATRIX_SHEAR_TOLERANCE, obbFromAxes, obbFromMatrix, obbFromPoints, obbFromQuaternion } from './core/construct.ts';
export { obbCorners, obbEdges, obbFromAabb, obbToAabb, rayFromScreen, type ScreenRayOptions } from './core/helpers.ts';
export { frustumPlanes, type Plane } from './core/frustum.ts';
export { linearElevations, mountPose, type LidarDescription, type LidarPose, type LidarMotion, type BoxMotion } from './core/lidar.ts';
export type { RaycastOptions, SatOptions, ClosestHits, AllHits, PairResults } from './core/queries.ts';
export { GPU_MAX_COORDINATE, type RaySource } from './core/inputs.ts';
export {
  SAT_AXIS_NAMES, SAT_TOLERANCE, AXIS_TOLERANCE, LIDAR_NO_RETURN, FACE_NONE, BOX_FLAG_NAMES, type BoxFlagName,
  PAIR_LIST_OVERFLOW_LIST, PAIR_LIST_OVERFLOW_CANDIDATES, PAIR_LIST_OVERFLOW_STACK, PAIR_LIST_DISPATCH_WG,
  FACE_POS_U, FACE_NEG_U, FACE_POS_V, FACE_NEG_V, FACE_POS_W, FACE_NEG_W, type SatAxisName,
} from './constants.ts';

// The GPU: the facade, box sets, sensors, cullers, and what the queries return.
export {
  ObbGpu, BVH_THRESHOLDS,
  type ObbGpuOptions, type Accel, type BvhThresholds, type ObbRayOptions, type ObbPairListOptions, type ObbAllPairsOptions,
} from './ObbGpu.ts';
export { BoxSet, type BoxSetOptions, type BoxSource } from './boxes/BoxSet.ts';
export {
  GpuSourcedBoxSet,
  type GpuBoxSource, type GpuBoxSetOptions, type GpuLocalBoxes, type RefreshOptions, type RefreshResult, type RefreshTree, type DeriveStatus,
  type GpuSourcedReadBack,
} from './boxes/GpuSourcedBoxSet.ts';
export type { DeriveLayout, BadBox } from './compare/derive.ts';
export type { GpuClosestHits, GpuAllHits, GpuHitBuffers, RayKernelTuning } from './rays/RayQueries.ts';
export type { GpuPairResults, GpuPairList } from './pairs/PairQueries.ts';
export { PairListBuffers, type PairListBuffersOptions, type PairListRead } from './pairs/PairListBuffers.ts';
export { LidarSensor, type LidarMethod, type LidarOptions, type LidarSweep, type LidarSweepOptions, type LidarSweepJob } from './lidar/LidarSensor.ts';
export type { FrustumCuller, FrustumDraw, GpuPlanes } from './frustum/FrustumCuller.ts';
export type { GpuContext, GpuContextOptions, GpuContextLimits, GpuLimitOverrides, AdapterSummary } from './runtime/context.ts';

// Errors.
export {
  ValidationError, CapacityError, DeviceLostError, StaleObjectError, GpuError, ShaderCompileError, WebGpuUnavailableError,
  type ItemKind, type StaleReason, type UnavailableReason,
} from './errors.ts';

// The float64 reference, as a namespace (also the `webgpu-obb/reference` entry).
export * as reference from './reference/index.ts';
