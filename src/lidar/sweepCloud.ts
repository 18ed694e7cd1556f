/**
 * A sweep's point cloud with what the beam saw
 * (docs/lidar.md, "Per-point fields and point clouds"): the per-point fields of src/reference/lidar.ts (lidarPointFields) joined with the
 * sweep's modelled intensities and second returns, as src/files/pointCloud.ts writes them.
 */
import type { BoxArray } from '../core/types.ts';
import type { LidarDescription, LidarMotion, LidarPose } from '../core/lidar.ts';
import { lidarPointFields } from '../reference/lidar.ts';
import type { LidarPointCloud } from '../files/pointCloud.ts';

/**
 * A sweep's per-point fields with what the beam saw: the first returns' fields
 * (lidarPointFields, float64 on the host), the modelled intensities when the sweep computed
 * them, and a dual-return sweep's second returns, their fields computed the same way on the same
 * rays (a return lies on its beam's own ray at its range). What `sweep.fields` is, and what
 * `webgpu-obb run --lidar-out` writes.
 *
 * @example
 * const cloud = lidarSweepCloud(boxArrayFrom(boxes), desc, pose, motion, sweep); // sweep: range, box, intensity?, second?
 * writePcd(cloud); // intensity = the modelled one; second returns with return_index 1
 */
export function lidarSweepCloud(
  boxes: BoxArray, desc: LidarDescription, pose: LidarPose, motion: LidarMotion,
  sweep: {
    readonly range: ArrayLike<number>; readonly box: ArrayLike<number>; readonly intensity?: ArrayLike<number> | undefined;
    readonly second?: { readonly range: ArrayLike<number>; readonly box: ArrayLike<number>; readonly intensity: ArrayLike<number> } | undefined;
  },
  options: { readonly seed?: number } = {},
): LidarPointCloud {
  const first = lidarPointFields(boxes, desc, pose, motion, sweep.range, sweep.box, options);
  const intensity = sweep.intensity ? Float32Array.from(sweep.intensity, (x, r) => (first.box[r]! >= 0 ? x : 0)) : undefined;
  const returnMode = desc.beam ? desc.beam.returns ?? 'strongest' : undefined;
  const out: LidarPointCloud = { ...first, ...(intensity ? { intensity } : {}), ...(returnMode ? { returnMode } : {}) };
  const s = sweep.second;
  if (!s || !Array.from(s.box).some((b) => b >= 0)) {
    return out;
  }
  const second = lidarPointFields(boxes, desc, pose, motion, s.range, s.box, options);
  return {
    ...out,
    second: {
      range: second.range, box: second.box, sensorXyz: second.sensorXyz, worldXyz: second.worldXyz, incidence: second.incidence,
      ...(intensity ? { intensity: Float32Array.from(s.intensity, (x, r) => (second.box[r]! >= 0 ? x : 0)) } : {}),
    },
  };
}
