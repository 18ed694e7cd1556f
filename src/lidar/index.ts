/**
 * `webgpu-obb/lidar`: what a LiDAR simulation needs around the sweep itself. Sensor presets
 * with their sources (LIDAR_PRESETS, lidarPreset), one unit's calibration from an Ouster
 * `metadata.json` (lidarFromOusterMetadata, ousterLidarToSensorPose), and the point-cloud
 * writers (writePcd, writePly, writeKittiBin, writePointCloud). The sweep is in the main entry:
 * `gpu.createLidar(desc)` and `gpu.lidarSweep(sensor, set, pose)`, with `linearElevations` and
 * `mountPose` beside them. Everything here is float64 host code, browser- and Node-safe (the
 * writers return bytes; they do no I/O).
 *
 * @example
 * import { ObbGpu, mountPose } from 'webgpu-obb';
 * import { lidarPreset, writePcd } from 'webgpu-obb/lidar';
 * const gpu = await ObbGpu.create();
 * const set = gpu.createBoxSet(boxes);
 * const sensor = await gpu.createLidar(lidarPreset('velodyne-vlp16'));
 * const yaw = 0.3; // the vehicle's heading, radians about z
 * const pose = mountPose({ origin: [120, -40, 0], rotation: [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)] }, { origin: [0, 0, 1.8] });
 * const sweep = await gpu.lidarSweep(sensor, set, pose, { fields: true });
 * const bytes = writePcd(sweep.fields!, { frame: 'sensor' }); // PCD v0.7, binary
 */
export { LIDAR_PRESETS, lidarPreset, type LidarPresetSpec, type LidarPresetOptions } from '../core/lidarPresets.ts';
export { lidarFromOusterMetadata, ousterLidarToSensorPose, type OusterOptions } from '../core/ouster.ts';
export {
  writePcd, writePly, writeKittiBin, writePointCloud, pointCloudExtension, POINT_CLOUD_FORMATS,
  type LidarPointCloud, type PointFrame, type PointCloudOptions, type PointCloudFormat,
} from '../files/pointCloud.ts';
