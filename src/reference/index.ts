/**
 * The float64 reference (`webgpu-obb/reference`): the CPU twin of every WGSL function and entry
 * point, with the same names, statement order and constants, readable and scalar. It is the
 * oracle of the comparator and of every GPU test, and a usable CPU backend. These functions
 * share their names with the GPU queries of `ObbGpu` on purpose (closestHit, allPairs, …); import
 * them from here, or as the `reference` namespace of the main entry, so the two cannot be
 * mistaken for each other.
 *
 * @example
 * import { closestHit } from 'webgpu-obb/reference';
 * const ref = closestHit(boxArrayFrom(boxes), rayArrayFrom(rays)); // float64, on the CPU
 */
export { rayObb, rayObbLocal, rayObbAt, raySphereCull, faceNormal, makeRayObbScratch, type RayHit, type RayObbScratch } from './query/rayObb.ts';
export { obbObbSat, obbObbSatAt, satAxis, makeSatScratch, type SatResult, type SatScratch, type SatOptions } from './query/obbObbSat.ts';
export { closestHit, anyHit, allHits, type AllHits, type ClosestHits, type RaycastOptions } from './raycast.ts';
export { obbPairs, obbOneVsMany, obbCross, allPairs, checkPairs, pairListStatus, type PairListState, type PairResults } from './pairs.ts';
export { cornerProjectionGap } from './cornerOracle.ts';
export { lidarRays, lidarSweepReference, lidarPointFields, compactReturns, columnBoxes, countReturns, type ReferenceSweep, type ReferenceSweepOptions } from './lidar.ts';
export { frustumCull, frustumShape, boxPlaneMargin, type FrustumCullOptions, type FrustumShape } from './frustum.ts';
export { closestHitGrid, anyHitGrid, allHitsGrid, allPairsSweep, BoxGrid, paddedAabbs } from './accel.ts';
