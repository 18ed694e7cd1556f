/**
 * `webgpu-obb/advanced`: the layers underneath `ObbGpu`, for callers who own their devices,
 * encoders and buffers — the GPU runtime (context, pipelines and the shader linker, bind groups
 * by WGSL name, the buffer pool, scan and sort), the GPU layouts and packers, every constant the
 * kernels share, and the query modules and trees the facade is built from. Stable enough to
 * build on, but shaped by the implementation: expect changes between minor versions.
 *
 * @example
 * import { getKernel, dispatch, packRays, RAY } from 'webgpu-obb/advanced';
 */

// The GPU runtime.
export {
  GpuContext, summarizeAdapter, alignTo,
  type AdapterSummary, type GpuContextOptions, type GpuContextLimits, type GpuLimitOverrides, type RecoverHook,
} from './runtime/context.ts';
export { BufferPool } from './runtime/pool.ts';
export { BufferUsage, MapMode, ShaderStage } from './runtime/flags.ts';
export { Lifetime, checkBound, type ContextBound } from './runtime/lifetime.ts';
export { getKernel, dispatchGrid, KERNELS, type KernelName, type KernelPipeline, type KernelConstants, type BindingKind, type BindingName } from './runtime/pipelines.ts';
export { bindGroup, dispatch, dispatchIndirect, type KernelBuffers } from './runtime/bind.ts';
export { linkShader, mapShaderLine, MODULES, CHUNKS, CONSTANTS_CHUNK, type LinkedShader, type ShaderChunk, type ModuleName } from './runtime/shaders.ts';
export { ExclusiveScan, blockTuning, type BlockTuning } from './runtime/scan.ts';
export { RadixSort, sortPasses } from './runtime/sort.ts';

// Layouts, packers and the constants the kernels share.
export {
  OBB, RAY, HIT, HIT_GEOMETRY, HIT_RECORD, PAIR_RESULT, RAY_PARAMS, PAIR_PARAMS, BVH_NODE, BVH_PARAMS, LIDAR_PARAMS, FRUSTUM_PARAMS,
  GRID_PARAMS, DERIVE_PARAMS, PAIR_LIST_STATUS, LAYOUTS, packBoxes, packRays, type RayPackOptions,
} from './layout/index.ts';
export * from './constants.ts';
export { recordCount, rayCount, canonicalRays, boxBounds, defaultOrigin, checkOrigin, checkBoxRange, checkRayRange, checkRayFilters, checkCapacity } from './core/inputs.ts';
export type { BoxBounds } from './core/inputs.ts';
export { rebasePlanes } from './core/frustum.ts';
export { checkLidar, checkPose, checkMotion, lidarTables, lidarRayAzimuths, poseAxes, columnFrames, columnAngle, columnTime, boxAtTime, slerp, hasAzimuthOffsets, isFullTurn, type ColumnFrame } from './core/lidar.ts';
export { checkPairs } from './core/queries.ts';
export { symmetricEigen3, type SymmetricEigen3 } from './core/jacobi.ts';
export { writeBoxRecord, describeValue } from './core/canonical.ts';
export { aabbHalfWidthAt } from './core/helpers.ts';
export * as vec3 from './core/vec.ts';

// The query modules and trees under the facade.
export { boxCount, checkSet } from './boxes/BoxSet.ts';
export type { SourcedTreeRefresh } from './boxes/GpuSourcedBoxSet.ts';
export { RayQueries, rayKernelTuning, type GpuRayOptions } from './rays/RayQueries.ts';
export { PairQueries, type PairListOptions } from './pairs/PairQueries.ts';
export { gridOf, GRID_MAX_CROWDING, type GridLayout } from './pairs/gridLayout.ts';
export { sortPairs } from './pairs/order.ts';
export { Bvh, type BvhSnapshot, type BuildPhase } from './tree/Bvh.ts';
export { LidarSensor, lidarRasterizable, lidarRasterReason, lidarKernelTables, lidarRayTable } from './lidar/LidarSensor.ts';
export { FrustumCuller } from './frustum/FrustumCuller.ts';
