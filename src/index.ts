/**
 * webgpu-obb: oriented-box collision queries in WebGPU compute shaders, with a float64 CPU
 * reference and a comparator that proves every GPU result against it.
 *
 * @example
 * import { ObbGpu, closestHit, boxArrayFrom, rayArrayFrom, compareClosestHits } from 'webgpu-obb';
 * const gpu = await ObbGpu.create();
 * const set = gpu.createBoxSet(boxes);
 * const hits = await gpu.closestHit(set, rays);
 * const cmp = compareClosestHits({ boxes: set.boxes, rays: rayArrayFrom(rays), origin: set.origin }, hits);
 */
export * from './constants.ts';
export * from './errors.ts';
export * from './core/index.ts';
export * from './reference/index.ts';
export * from './layout/index.ts';
export * from './compare/compare.ts';
export * from './compare/errorModel.ts';
export { GpuContext, summarizeAdapter, type AdapterSummary, type GpuContextOptions, type GpuContextLimits, type GpuLimitOverrides, type RecoverHook } from './gpu/device.ts';
export { BoxSet, type BoxSetOptions, type BoxSource } from './gpu/BoxSet.ts';
export { BufferPool } from './gpu/bufferPool.ts';
export { RayQueries, rayKernelTuning, type RayKernelTuning, type GpuAllHits, type GpuClosestHits, type GpuHitBuffers, type GpuRayOptions } from './gpu/RayQueries.ts';
export { GRID_MAX_CROWDING, PairQueries, gridOf, sortPairs, type GpuPairList, type GpuPairResults, type GridLayout } from './gpu/PairQueries.ts';
export { ObbGpu, BVH_THRESHOLDS, type ObbGpuOptions, type Accel, type BvhThresholds, type ObbRayOptions, type ObbPairListOptions } from './gpu/ObbGpu.ts';
export { getKernel, dispatchGrid, KERNELS, type KernelName, type KernelSpec } from './gpu/pipelines.ts';
export { linkShader, mapShaderLine, KERNEL_SOURCES, CHUNKS, type LinkedShader, type ShaderChunk } from './gpu/shaders.ts';
export { GPU_MAX_COORDINATE, type RaySource } from './gpu/inputs.ts';
export * from './scenes/generate.ts';
export * from './scenes/adversarial.ts';
export { Bvh, type BvhSnapshot, type BuildPhase } from './bvh/Bvh.ts';
export { RadixSort, ExclusiveScan, blockTuning, type BlockTuning } from './bvh/RadixSort.ts';
export { LidarSensor, lidarRasterizable, type LidarMethod, type LidarOptions, type LidarSweep } from './bvh/Lidar.ts';
export { FrustumCuller, type FrustumDraw } from './bvh/Frustum.ts';
