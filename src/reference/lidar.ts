/**
 * A spinning LiDAR as rays: the CPU twin of the ray generation in `bvhLidar`
 * (bvhLidar in shaders/lidar/tree.wgsl, and the raster method in shaders/lidar/raster.wgsl). Ray (channel c, azimuth a) has index c · azimuths + a;
 * its direction in the sensor frame is (cos e cos θ, cos e sin θ, sin e) with e the channel's
 * elevation and θ = azimuthStart + 2π a / azimuths; the pose turns that into world space.
 */
import type { RayArray } from '../core/types.ts';
import { checkLidar, checkPose, lidarTables, poseAxes, type LidarDescription, type LidarPose } from '../core/lidar.ts';

export { checkLidar, checkPose, lidarTables, linearElevations, poseAxes, type LidarDescription, type LidarPose } from '../core/lidar.ts';

/**
 * Every ray of one sweep, float64 (channel-major: index c · azimuthSteps + a).
 *
 * @example
 * const rays = lidarRays({ elevations: linearElevations(128, -25, 15), azimuthSteps: 2048, maxRange: 200 }, { origin: [0, 0, 2] });
 * closestHit(boxes, rays) // the reference range image
 */
export function lidarRays(desc: LidarDescription, pose: LidarPose): RayArray {
  checkLidar(desc);
  checkPose(pose);
  const tables = lidarTables(desc);
  const [ax, ay, az] = poseAxes(pose);
  const A = desc.azimuthSteps;
  const C = desc.elevations.length;
  const data = new Float64Array(C * A * 7);
  for (let c = 0; c < C; c++) {
    const ce = tables[2 * (A + c)]!;
    const se = tables[2 * (A + c) + 1]!;
    for (let a = 0; a < A; a++) {
      const lx = ce * tables[2 * a]!;
      const ly = ce * tables[2 * a + 1]!;
      const lz = se;
      const dx = lx * ax[0] + ly * ay[0] + lz * az[0];
      const dy = lx * ax[1] + ly * ay[1] + lz * az[1];
      const dz = lx * ax[2] + ly * ay[2] + lz * az[2];
      const len = Math.hypot(dx, dy, dz);
      const o = (c * A + a) * 7;
      data[o] = pose.origin[0];
      data[o + 1] = pose.origin[1];
      data[o + 2] = pose.origin[2];
      data[o + 3] = dx / len;
      data[o + 4] = dy / len;
      data[o + 5] = dz / len;
      data[o + 6] = desc.maxRange;
    }
  }
  return { count: C * A, data };
}
