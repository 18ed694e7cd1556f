/**
 * `webgpu-obb/lidar`: what a LiDAR simulation needs around the sweep itself. Sensor presets
 * with their sources (LIDAR_PRESETS, lidarPreset), one unit's calibration from an Ouster
 * `metadata.json` (lidarFromOusterMetadata, ousterLidarToSensorPose), and the point-cloud
 * writers (writePcd, writePly, writeKittiBin, writePointCloud). The sweep is in the main entry:
 * `gpu.createLidar(desc)` and `gpu.lidarSweep(sensor, set, pose)`, with `linearElevations` and
 * `mountPose` beside them. The ground truth of a sweep (lidarGroundTruth, with OpenPCDet and JSON
 * writers) and MCAP recordings for Foxglove and ROS 2 (McapRecorder, writeMcap; their packages
 * are optional peers, loaded on first use). What the beam sees (docs/lidar.md): the intensity
 * model (lidarIntensity) and the judge of a sweep's intensities against it (compareLidarIntensity);
 * the materials a BoxSet holds (BoxMaterials, set.setMaterials); the noise's draws (pcg4d,
 * gaussianOf, uniformOf, the GPU's bit for bit); the beam's sub-rays (beamSubRays,
 * beamSubRayDescription); and the judge of a sweep's returns after noise, dropout and the return
 * mode (compareLidarReturns). Everything here is float64 host
 * code, browser- and Node-safe (the writers return bytes or write to the caller's writable; they
 * do no I/O).
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
  writePcd, writePly, writeKittiBin, writePointCloud, pointCloudExtension, packPointRecords, elevationRings, POINT_CLOUD_FORMATS,
  type LidarPointCloud, type PointFrame, type PointCloudOptions, type PointCloudFormat, type RingOrder, type PointTime,
  type PointLayout, type PointFieldType, type PointFieldSpec, type PointRecords, type LidarSecondPoints,
} from '../files/pointCloud.ts';
export {
  lidarGroundTruth, writeOpenPcdetLabels, writeGroundTruthJson,
  type LidarGroundTruthBox, type LidarGroundTruthOptions, type GroundTruthJsonOptions,
} from '../files/groundTruth.ts';
export {
  McapRecorder, writeMcap, MCAP_SCHEMAS,
  type McapWritable, type McapLibraries, type McapRecorderOptions, type McapSweep,
} from '../files/mcap.ts';
export {
  lidarIntensity, dropoutThreshold, beamSubRays, beamSubRayDescription, MAX_LIDAR_ANGULAR_NOISE, MAX_LIDAR_DIVERGENCE,
  type LidarIntensityModel, type LidarNoise, type LidarBeam,
} from '../core/lidar.ts';
export type { LidarPass, LidarSecondReturn } from './LidarSensor.ts';
export { compareLidarIntensity, compareLidarReturns, type LidarReturnImages, type LidarReturnsComparison } from '../compare/lidar.ts';
export { pcg4d, gaussianOf, uniformOf, type ReferencePass, type ReferenceSecondReturn } from '../reference/lidar.ts';
export type { BoxMaterials, BoxMaterialArrays } from '../boxes/BoxSet.ts';
