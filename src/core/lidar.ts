/**
 * A spinning LiDAR's description: its channels' elevations, azimuth steps and range, its pose,
 * their validation, and the cos/sin tables both backends generate rays from (float64 here, the
 * GPU reads them rounded to float32). The rays themselves: lidarRays (src/reference/lidar.ts) on
 * the CPU, the sweep kernels on the GPU.
 */
import type { Quat, Vec3 } from './types.ts';
import { ValidationError } from '../errors.ts';

/** The scan pattern of a sensor. */
export interface LidarDescription {
  /** Elevation of each channel, radians (e.g. 128 values from −25° to +15°). */
  readonly elevations: readonly number[];
  /** Azimuth steps per revolution (e.g. 2,048). */
  readonly azimuthSteps: number;
  /** Azimuth of step 0, radians (default 0: the sensor's +x axis). */
  readonly azimuthStart?: number;
  /** Max range, world units (a return beyond it is no return). */
  readonly maxRange: number;
}

/** Where the sensor is: its origin and rotation (unit quaternion [x, y, z, w]; default identity). */
export interface LidarPose {
  readonly origin: Vec3;
  readonly rotation?: Quat;
}

/**
 * Evenly spaced channel elevations from `lowDeg` to `highDeg` degrees.
 *
 * @example
 * linearElevations(128, -25, 15) // the 128 channels of the benchmark sensor, radians
 */
export function linearElevations(channels: number, lowDeg: number, highDeg: number): number[] {
  return Array.from({ length: channels }, (_, c) =>
    ((lowDeg + (channels === 1 ? 0 : ((highDeg - lowDeg) * c) / (channels - 1))) * Math.PI) / 180);
}

/** Validates a sensor description; throws ValidationError naming the field. */
export function checkLidar(desc: LidarDescription): void {
  if (typeof desc !== 'object' || desc === null) {
    throw new ValidationError('argument', undefined, 'sensor', 'must be a description { elevations, azimuthSteps, maxRange, azimuthStart? }');
  }
  if (!Array.isArray(desc.elevations) || desc.elevations.length === 0) {
    throw new ValidationError('argument', undefined, 'elevations', 'must be a non-empty array of radians');
  }
  desc.elevations.forEach((e, c) => {
    if (!Number.isFinite(e)) {
      throw new ValidationError('argument', c, 'elevations', `[${c}] is not finite (${String(e)})`);
    }
  });
  if (!Number.isInteger(desc.azimuthSteps) || desc.azimuthSteps < 1) {
    throw new ValidationError('argument', undefined, 'azimuthSteps', `must be a positive integer (got ${String(desc.azimuthSteps)})`);
  }
  if (!(desc.maxRange >= 0) || !Number.isFinite(desc.maxRange)) {
    throw new ValidationError('argument', undefined, 'maxRange', `must be finite and >= 0 (got ${String(desc.maxRange)})`);
  }
  if (desc.azimuthStart !== undefined && !Number.isFinite(desc.azimuthStart)) {
    throw new ValidationError('argument', undefined, 'azimuthStart', 'must be finite');
  }
}

/**
 * The sensor's cos/sin tables in float64: azimuth (cos θ, sin θ) for each step, then elevation
 * (cos e, sin e) for each channel — exactly what the GPU reads (rounded to float32).
 */
export function lidarTables(desc: LidarDescription): Float64Array {
  const A = desc.azimuthSteps;
  const out = new Float64Array(2 * (A + desc.elevations.length));
  const start = desc.azimuthStart ?? 0;
  for (let a = 0; a < A; a++) {
    const theta = start + (2 * Math.PI * a) / A;
    out[2 * a] = Math.cos(theta);
    out[2 * a + 1] = Math.sin(theta);
  }
  desc.elevations.forEach((e, c) => {
    out[2 * (A + c)] = Math.cos(e);
    out[2 * (A + c) + 1] = Math.sin(e);
  });
  return out;
}

/** Validates a pose: an object with an origin of three finite numbers and, optionally, a rotation. */
export function checkPose(pose: LidarPose): void {
  if (typeof pose !== 'object' || pose === null) {
    throw new ValidationError('argument', undefined, 'pose', 'must be { origin: [x, y, z], rotation?: [x, y, z, w] }');
  }
  if (!Array.isArray(pose.origin) || pose.origin.length !== 3 || !pose.origin.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new ValidationError('argument', undefined, 'origin', 'must be three finite numbers');
  }
  if (pose.rotation !== undefined && (!Array.isArray(pose.rotation) || pose.rotation.length !== 4)) {
    throw new ValidationError('argument', undefined, 'rotation', 'must be a quaternion [x, y, z, w]');
  }
}

/** World axes (x, y, z of the sensor) of a pose, float64. */
export function poseAxes(pose: LidarPose): [Vec3, Vec3, Vec3] {
  const q = pose.rotation ?? [0, 0, 0, 1];
  const len = Math.hypot(q[0], q[1], q[2], q[3]);
  if (!(len > 0) || !Number.isFinite(len)) {
    throw new ValidationError('argument', undefined, 'rotation', 'must be a finite non-zero quaternion');
  }
  const [x, y, z, w] = [q[0] / len, q[1] / len, q[2] / len, q[3] / len];
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)],
    [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)],
    [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)],
  ];
}
