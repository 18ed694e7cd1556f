/**
 * A spinning LiDAR as rays: the CPU twin of the ray generation in `bvhLidar`
 * (shaders/kernels/ray_obb_batch.wgsl). Ray (channel c, azimuth a) has index c · azimuths + a;
 * its direction in the sensor frame is (cos e cos θ, cos e sin θ, sin e) with e the channel's
 * elevation and θ = azimuthStart + 2π a / azimuths; the pose turns that into world space.
 */
import type { Quat, RayArray, Vec3 } from '../core/types.ts';
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
