/**
 * Suite `hostFields`: the float64 values the host computes around a sweep
 * (docs/design.md, "Determinism of the host's float64 values"), hashed part by part, so that the GPU project's test can compare the digests
 * computed in Chromium (here) with those computed in Node (the same function imported there):
 * the ray tables the GPU reads, a moving sweep's per-point fields (sensor and world xyz, time,
 * incidence) and intensities, its ground truth (headings, rotations), the Autoware records
 * (azimuth, elevation, distance), and detSin / detCos / detAtan2 / detExp themselves. Nothing here
 * needs a GPU: only the JavaScript runtime differs.
 */
import { boxArrayFrom } from '../../../../src/core/canonical.ts';
import { detAtan2, detCos, detExp, detSin } from '../../../../src/core/detmath.ts';
import { lidarTables, type LidarPose } from '../../../../src/core/lidar.ts';
import type { BoxInput, Quat } from '../../../../src/core/types.ts';
import { lidarKernelTables, lidarRayTable } from '../../../../src/lidar/LidarSensor.ts';
import { lidarPointFields, lidarSweepReference } from '../../../../src/reference/lidar.ts';
import { lidarGroundTruth, writeGroundTruthJson } from '../../../../src/files/groundTruth.ts';
import { packPointRecords } from '../../../../src/files/pointCloud.ts';
import { mulberry32 } from '../../../../src/judge/index.ts';

/** FNV-1a (32 bits) of an array's bytes, as 8 hex digits. */
function fnv(values: ArrayBufferView): string {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h = Math.imul(h ^ b, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * The control: the runtime's own Math.sin / Math.cos / Math.atan2 over 20,000 arguments, as
 * values (not asserted equal across runtimes; the test prints how many differ).
 */
export function mathControl(seed: number): number[] {
  const rnd = mulberry32(seed);
  return Array.from({ length: 10_000 }, () => (rnd() - 0.5) * 200).flatMap((x) => [Math.sin(x), Math.cos(x), Math.atan2(x, 7)]);
}

/**
 * The digests of every host-computed part of one moving, turning sweep over 40 boxes (some
 * tilted, some moving and spinning), and of 20,000 detmath values. Deterministic: no clock, no
 * GPU; seed `seed`.
 */
export function digest(seed: number): Record<string, string> {
  const rnd = mulberry32(seed);
  const boxes = boxArrayFrom(Array.from({ length: 40 }, (_, i) => {
    const yaw = 6 * rnd();
    const tilt = i % 5 === 0 ? 0.3 * rnd() : 0;
    // The inputs through detmath too: Math.sin here would differ between the runtimes by itself.
    const rotation: Quat = [detSin(tilt / 2), 0, detSin(yaw / 2) * detCos(tilt / 2), detCos(yaw / 2) * detCos(tilt / 2)];
    const box: BoxInput = { center: [(rnd() - 0.5) * 60, (rnd() - 0.5) * 60, rnd() * 2], halfExtents: [0.3 + 2 * rnd(), 0.3 + rnd(), 0.5 + rnd()], rotation };
    return box;
  }).concat([{ center: [0, 0, -1], halfExtents: [80, 80, 0.5], rotation: [0, 0, 0, 1] }]));
  const desc = {
    elevations: Array.from({ length: 16 }, (_, c) => ((-15 + 2 * c) * Math.PI) / 180), azimuthSteps: 720, maxRange: 90, sweepTime: 0.1,
    azimuthOffsets: Array.from({ length: 16 }, (_, c) => (c % 2 ? 0.02 : -0.02)), beamOriginOffset: 0.04, intensity: { referenceRange: 10, atmosphere: 0.004 },
  };
  const pose: LidarPose = { origin: [0.3, -0.2, 1.7], rotation: [0, 0, detSin(0.2), detCos(0.2)] };
  const poseEnd: LidarPose = { origin: [1.8, 0.1, 1.7], rotation: [0.01, 0, detSin(0.35), detCos(0.35)] };
  const motion = { poseEnd, boxMotion: { boxes: [1, 4, 7], velocity: [3, 0, 0, 0, -2, 0, 1, 1, 0], angularVelocity: [0, 0, 1.5, 0, 0, 0, 0.3, 0, -2] } };
  const ref = lidarSweepReference(boxes, desc, pose, motion, { intensity: true });
  const cloud = lidarPointFields(boxes, desc, pose, motion, ref.range, ref.box);
  const truth = lidarGroundTruth(boxes, pose, ref.returnsPerBox, { maxRange: 60 });
  // 2^k by doubling (exact): `2 ** y` is Math.pow, itself not the same in every runtime.
  const pow2 = (k: number): number => {
    let p = 1;
    for (let j = 0; j < Math.abs(k); j++) {
      p = k > 0 ? p * 2 : p / 2;
    }
    return p;
  };
  const args = Array.from({ length: 5000 }, () => (rnd() - 0.5) * pow2(Math.floor(40 * rnd()) - 10));
  return {
    tables: fnv(lidarTables(desc)),
    rayTable: fnv(lidarRayTable(desc)),
    kernelTables: fnv(lidarKernelTables(desc)),
    range: fnv(ref.range),
    intensity: fnv(ref.intensity!),
    sensorXyz: fnv(cloud.sensorXyz),
    worldXyz: fnv(cloud.worldXyz),
    time: fnv(cloud.time),
    incidence: fnv(cloud.incidence),
    groundTruth: fnv(new TextEncoder().encode(writeGroundTruthJson(truth))),
    autoware: fnv(packPointRecords(cloud, { layout: 'autoware' }).data),
    detmath: fnv(Float64Array.from(args.flatMap((x) => [detSin(x), detCos(x), detAtan2(x, args[0]!), detExp(x / 1e9)]))),
  };
}
