/**
 * A spinning LiDAR's description and the geometry of its rays, float64
 * (docs/design.md, "LiDAR sensors in scene and result files"): channels' elevations and azimuth
 * offsets, the beam-origin offset from the rotation axis, the encoder's field of view and column
 * count, the range window, the sweep time; a pose and, for motion during the sweep, a pose at
 * the sweep's end; boxes moving during the sweep.
 * Validation, the contract's formulas (one place: every backend's rays come from here), and the
 * cos/sin tables the GPU reads rounded to float32. The rays themselves: lidarRays
 * (src/reference/lidar.ts) on the CPU, the sweep kernels on the GPU.
 *
 * Ray (channel c, column a), index c · azimuthSteps + a:
 * - encoder angle θ_a = azimuthStart + span · a / A, span = azimuthEnd − azimuthStart (default 2π);
 * - direction in the sensor frame (cos e_c cos(θ_a + δ_c), cos e_c sin(θ_a + δ_c), sin e_c);
 * - origin in the sensor frame n · (cos θ_a, sin θ_a, 0), n = beamOriginOffset;
 * - time τ_a = sweepTime · a / A; the sensor's pose at τ interpolates `pose` → `poseEnd`
 *   (position linearly, rotation by slerp) when `poseEnd` is given;
 * - a moving box at τ is centred at c + v·τ, its axes turned by |ω|·τ about ω/|ω| (world frame).
 */
import type { BoxArray, Quat, Vec3 } from './types.ts';
import { BOX_F64 } from './types.ts';
import { ValidationError } from '../errors.ts';

/** The scan pattern of a sensor (radians, world units, seconds). */
export interface LidarDescription {
  /** Elevation of each channel, radians, strictly inside ±π/2 (e.g. 128 values from −25° to +15°). */
  readonly elevations: readonly number[];
  /** Columns (azimuth steps) per sweep, A ≥ 1 (e.g. 2,048). */
  readonly azimuthSteps: number;
  /** Encoder angle of column 0, radians (default 0: the sensor's +x axis). */
  readonly azimuthStart?: number;
  /**
   * Encoder angle the sweep ends at (exclusive), radians; default azimuthStart + 2π. The span
   * `azimuthEnd − azimuthStart` may be negative (a clockwise sweep, e.g. Ouster's 360° → 0°) and
   * at most 2π in size.
   */
  readonly azimuthEnd?: number;
  /** Azimuth offset δ_c of each channel from the encoder angle, radians (default 0). */
  readonly azimuthOffsets?: readonly number[];
  /** Distance n of the beams' origin from the rotation axis, world units (default 0). */
  readonly beamOriginOffset?: number;
  /** Returns nearer than this are dropped (the near box still occludes), world units (default 0). */
  readonly minRange?: number;
  /** Max range, world units (a return beyond it is no return). */
  readonly maxRange: number;
  /** Seconds from column 0 to column A (default 0: the whole sweep at one instant). */
  readonly sweepTime?: number;
}

/** Where the sensor is: its origin and rotation (unit quaternion [x, y, z, w]; default identity). */
export interface LidarPose {
  readonly origin: Vec3;
  readonly rotation?: Quat;
}

/**
 * Boxes that move during a sweep: `boxes` lists their indices in the set (strictly increasing),
 * `velocity` (world units/s) and `angularVelocity` (rad/s, world frame, about the box's centre)
 * hold three numbers per listed box (each default zero). Every other box is static.
 */
export interface BoxMotion {
  readonly boxes: ArrayLike<number>;
  readonly velocity?: ArrayLike<number>;
  readonly angularVelocity?: ArrayLike<number>;
}

/** What moves during one sweep (both optional; without either, the sweep is motionless). */
export interface LidarMotion {
  /** The sensor's pose at τ = sweepTime (default: the start pose). */
  readonly poseEnd?: LidarPose;
  readonly boxMotion?: BoxMotion;
}

/**
 * Rays per sweep (channels × columns) any backend accepts: 2^28 = 268,435,456, 1,024 times a
 * 128 × 2,048 sensor. A sweep's range and box images alone are 2 GiB there, past what a GPU binds
 * or a host copies, so a larger description is refused up front, naming its size, rather than
 * failing (or exhausting memory) on its first allocation. The CPU reference holds less
 * (MAX_REFERENCE_LIDAR_RAYS in src/reference/lidar.ts).
 */
export const MAX_LIDAR_RAYS = 2 ** 28;

const DESCRIPTION_KEYS = new Set(['elevations', 'azimuthSteps', 'azimuthStart', 'azimuthEnd', 'azimuthOffsets', 'beamOriginOffset', 'minRange', 'maxRange', 'sweepTime']);
const POSE_KEYS = new Set(['origin', 'rotation']);
const MOTION_KEYS = new Set(['boxes', 'velocity', 'angularVelocity']);

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

function fail(field: string, detail: string, index?: number): never {
  throw new ValidationError('argument', index, field, detail);
}

function rejectUnknown(value: object, known: ReadonlySet<string>, what: string): void {
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    fail(what, `has unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${[...known].join(', ')})`);
  }
}

function optionalNumber(value: unknown, field: string, ok: (x: number) => boolean, rule: string): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && ok(value))) {
    fail(field, `must be ${rule} (got ${String(value)})`);
  }
}

/** Validates a sensor description; throws ValidationError naming the field (unknown keys too). */
export function checkLidar(desc: LidarDescription): void {
  if (typeof desc !== 'object' || desc === null || Array.isArray(desc)) {
    fail('sensor', 'must be a description { elevations, azimuthSteps, maxRange, … }');
  }
  rejectUnknown(desc, DESCRIPTION_KEYS, 'sensor');
  if (!Array.isArray(desc.elevations) || desc.elevations.length === 0) {
    fail('elevations', 'must be a non-empty array of radians');
  }
  desc.elevations.forEach((e, c) => {
    if (!(typeof e === 'number' && Number.isFinite(e) && Math.abs(e) < Math.PI / 2)) {
      fail('elevations', `[${c}] must be strictly inside ±π/2 radians (got ${String(e)})`, c);
    }
  });
  if (!Number.isInteger(desc.azimuthSteps) || desc.azimuthSteps < 1) {
    fail('azimuthSteps', `must be a positive integer (got ${String(desc.azimuthSteps)})`);
  }
  const C = desc.elevations.length;
  if (C * desc.azimuthSteps > MAX_LIDAR_RAYS) {
    fail('azimuthSteps', `is too many: ${C} ${C === 1 ? 'channel' : 'channels'} × ${desc.azimuthSteps} columns = ${C * desc.azimuthSteps} rays per sweep, more than any backend holds (${MAX_LIDAR_RAYS} = 2^28)`);
  }
  if (!(typeof desc.maxRange === 'number' && desc.maxRange >= 0 && Number.isFinite(desc.maxRange))) {
    fail('maxRange', `must be finite and >= 0 (got ${String(desc.maxRange)})`);
  }
  optionalNumber(desc.minRange, 'minRange', (x) => x >= 0 && x <= desc.maxRange, `finite, >= 0 and <= maxRange (${desc.maxRange})`);
  optionalNumber(desc.azimuthStart, 'azimuthStart', () => true, 'finite');
  optionalNumber(desc.azimuthEnd, 'azimuthEnd', () => true, 'finite');
  const span = azimuthSpan(desc);
  if (!(span !== 0 && Math.abs(span) <= 2 * Math.PI * (1 + 1e-12))) {
    fail('azimuthEnd', `must differ from azimuthStart by at most 2π and not be equal to it (span ${span})`);
  }
  optionalNumber(desc.beamOriginOffset, 'beamOriginOffset', (x) => x >= 0, 'finite and >= 0');
  optionalNumber(desc.sweepTime, 'sweepTime', (x) => x >= 0, 'finite and >= 0');
  if (desc.azimuthOffsets !== undefined) {
    if (!Array.isArray(desc.azimuthOffsets) || desc.azimuthOffsets.length !== desc.elevations.length) {
      fail('azimuthOffsets', `must hold one angle per channel (${desc.elevations.length}; got ${Array.isArray(desc.azimuthOffsets) ? desc.azimuthOffsets.length : typeof desc.azimuthOffsets})`);
    }
    desc.azimuthOffsets.forEach((d, c) => {
      if (!(typeof d === 'number' && Number.isFinite(d))) {
        fail('azimuthOffsets', `[${c}] is not a finite number (got ${String(d)})`, c);
      }
    });
  }
}

/** azimuthEnd − azimuthStart (2π by default). */
export function azimuthSpan(desc: LidarDescription): number {
  const start = desc.azimuthStart ?? 0;
  return desc.azimuthEnd === undefined ? 2 * Math.PI : desc.azimuthEnd - start;
}

/** Encoder angle θ_a of column a. */
export function columnAngle(desc: LidarDescription, a: number): number {
  return (desc.azimuthStart ?? 0) + (azimuthSpan(desc) * a) / desc.azimuthSteps;
}

/** Time τ_a of column a from the start of the sweep, seconds. */
export function columnTime(desc: LidarDescription, a: number): number {
  return ((desc.sweepTime ?? 0) * a) / desc.azimuthSteps;
}

/** Whether some channel has a non-zero azimuth offset (the rays then need an azimuth each). */
export function hasAzimuthOffsets(desc: LidarDescription): boolean {
  return desc.azimuthOffsets?.some((d) => d !== 0) ?? false;
}

/** Whether the columns span a whole turn (either way), rather than a partial field of view. */
export function isFullTurn(desc: LidarDescription): boolean {
  return Math.abs(azimuthSpan(desc)) === 2 * Math.PI;
}

/**
 * The sensor's cos/sin tables in float64: azimuth (cos θ_a, sin θ_a) for each column, then
 * elevation (cos e, sin e) for each channel — exactly what the GPU reads (rounded to float32).
 */
export function lidarTables(desc: LidarDescription): Float64Array {
  const A = desc.azimuthSteps;
  const out = new Float64Array(2 * (A + desc.elevations.length));
  for (let a = 0; a < A; a++) {
    const theta = columnAngle(desc, a);
    out[2 * a] = Math.cos(theta);
    out[2 * a + 1] = Math.sin(theta);
  }
  desc.elevations.forEach((e, c) => {
    out[2 * (A + c)] = Math.cos(e);
    out[2 * (A + c) + 1] = Math.sin(e);
  });
  return out;
}

/**
 * (cos(θ_a + δ_c), sin(θ_a + δ_c)) per ray, channel-major — the azimuth table of a sensor with
 * per-channel offsets (without them, the first half of lidarTables serves every channel).
 */
export function lidarRayAzimuths(desc: LidarDescription): Float64Array {
  const A = desc.azimuthSteps;
  const C = desc.elevations.length;
  const out = new Float64Array(2 * C * A);
  for (let c = 0; c < C; c++) {
    const d = desc.azimuthOffsets?.[c] ?? 0;
    for (let a = 0; a < A; a++) {
      const phi = columnAngle(desc, a) + d;
      out[2 * (c * A + a)] = Math.cos(phi);
      out[2 * (c * A + a) + 1] = Math.sin(phi);
    }
  }
  return out;
}

function checkVec3(value: unknown, field: string): void {
  if (!Array.isArray(value) || value.length !== 3 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    fail(field, 'must be three finite numbers');
  }
}

/** Validates a pose: `{ origin: [x, y, z], rotation?: [x, y, z, w] }`, nothing else. */
export function checkPose(pose: LidarPose, name = 'pose'): void {
  if (typeof pose !== 'object' || pose === null || Array.isArray(pose)) {
    fail(name, 'must be { origin: [x, y, z], rotation?: [x, y, z, w] }');
  }
  rejectUnknown(pose, POSE_KEYS, name);
  checkVec3(pose.origin, `${name}.origin`);
  if (pose.rotation !== undefined) {
    const q = pose.rotation as unknown;
    if (!Array.isArray(q) || q.length !== 4 || !q.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      fail(`${name}.rotation`, 'must be a quaternion [x, y, z, w] of finite numbers');
    }
    if (!(Math.hypot(q[0], q[1], q[2], q[3]) > 0)) {
      fail(`${name}.rotation`, 'must be a non-zero quaternion');
    }
  }
}

/** Validates a sweep's motion against a set of `boxCount` boxes. */
export function checkMotion(motion: LidarMotion, boxCount: number): void {
  if (typeof motion !== 'object' || motion === null) {
    fail('motion', 'must be { poseEnd?, boxMotion? }');
  }
  if (motion.poseEnd !== undefined) {
    checkPose(motion.poseEnd, 'poseEnd');
  }
  const m = motion.boxMotion;
  if (m === undefined) {
    return;
  }
  if (typeof m !== 'object' || m === null) {
    fail('boxMotion', 'must be { boxes, velocity?, angularVelocity? }');
  }
  rejectUnknown(m, MOTION_KEYS, 'boxMotion');
  const n = m.boxes?.length;
  if (typeof n !== 'number') {
    fail('boxMotion.boxes', 'must be an array of box indices');
  }
  for (let k = 0; k < n; k++) {
    const i = m.boxes[k]!;
    if (!(Number.isInteger(i) && i >= 0 && i < boxCount) || (k > 0 && i <= m.boxes[k - 1]!)) {
      fail('boxMotion.boxes', `[${k}] must be a box index below ${boxCount}, above the one before it (got ${String(i)})`, k);
    }
  }
  for (const field of ['velocity', 'angularVelocity'] as const) {
    const v = m[field];
    if (v === undefined) {
      continue;
    }
    if (v.length !== 3 * n) {
      fail(`boxMotion.${field}`, `must hold three numbers per listed box (${3 * n}; got ${String(v.length)})`);
    }
    for (let k = 0; k < v.length; k++) {
      if (!Number.isFinite(v[k])) {
        fail(`boxMotion.${field}`, `[${k}] is not finite (${String(v[k])})`, k);
      }
    }
  }
}

/** The unit quaternion of `q` (default identity). */
function unitQuat(q: Quat | undefined): [number, number, number, number] {
  const r = q ?? [0, 0, 0, 1];
  const len = Math.hypot(r[0], r[1], r[2], r[3]);
  if (!(len > 0) || !Number.isFinite(len)) {
    fail('rotation', 'must be a finite non-zero quaternion');
  }
  return [r[0] / len, r[1] / len, r[2] / len, r[3] / len];
}

/** Columns of the rotation matrix of a unit quaternion [x, y, z, w]. */
function quatAxes([x, y, z, w]: readonly number[]): [Vec3, Vec3, Vec3] {
  return [
    [1 - 2 * (y! * y! + z! * z!), 2 * (x! * y! + z! * w!), 2 * (x! * z! - y! * w!)],
    [2 * (x! * y! - z! * w!), 1 - 2 * (x! * x! + z! * z!), 2 * (y! * z! + x! * w!)],
    [2 * (x! * z! + y! * w!), 2 * (y! * z! - x! * w!), 1 - 2 * (x! * x! + y! * y!)],
  ];
}

/** World axes (x, y, z of the sensor) of a pose, float64. */
export function poseAxes(pose: LidarPose): [Vec3, Vec3, Vec3] {
  return quatAxes(unitQuat(pose.rotation));
}

/** Spherical interpolation of unit quaternions (the shorter way; normalised lerp when nearly equal). */
export function slerp(q0: Quat, q1: Quat, s: number): [number, number, number, number] {
  const a = unitQuat(q0);
  let b = unitQuat(q1);
  let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  if (dot < 0) {
    b = [-b[0], -b[1], -b[2], -b[3]];
    dot = -dot;
  }
  let wa: number;
  let wb: number;
  if (dot > 1 - 1e-12) {
    wa = 1 - s;
    wb = s;
  } else {
    const angle = Math.acos(Math.min(1, dot));
    const sin = Math.sin(angle);
    wa = Math.sin((1 - s) * angle) / sin;
    wb = Math.sin(s * angle) / sin;
  }
  const q: [number, number, number, number] = [wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3]];
  const len = Math.hypot(...q);
  return [q[0] / len, q[1] / len, q[2] / len, q[3] / len];
}

/** The sensor's frame at the time of column a: origin and axes, float64. */
export interface ColumnFrame {
  readonly time: number;
  /** Encoder angle θ_a. */
  readonly angle: number;
  /** World position of the sensor (its rotation axis). */
  readonly position: Vec3;
  /** World position of the column's beam origin (position + R · n (cos θ_a, sin θ_a, 0)). */
  readonly beamOrigin: Vec3;
  readonly axes: readonly [Vec3, Vec3, Vec3];
}

function samePose(a: LidarPose, b: LidarPose): boolean {
  const qa = a.rotation ?? [0, 0, 0, 1];
  const qb = b.rotation ?? [0, 0, 0, 1];
  return a.origin.every((x, k) => x === b.origin[k]) && qa.every((x, k) => x === qb[k]);
}

/**
 * The frame of every column: the pose at τ_a (interpolated towards `poseEnd` when given and
 * sweepTime > 0) and the beam origin. Without motion every column shares the pose's axes and,
 * without a beam-origin offset, its origin: exactly the rays of a plain sensor.
 */
export function columnFrames(desc: LidarDescription, pose: LidarPose, poseEnd?: LidarPose): ColumnFrame[] {
  const A = desc.azimuthSteps;
  const T = desc.sweepTime ?? 0;
  const n = desc.beamOriginOffset ?? 0;
  // A poseEnd equal to the pose is no motion: the same frames as without it, bit for bit.
  const moving = poseEnd !== undefined && T > 0 && !samePose(pose, poseEnd);
  const startAxes = poseAxes(pose);
  const q0 = pose.rotation ?? [0, 0, 0, 1];
  const q1 = poseEnd?.rotation ?? [0, 0, 0, 1];
  const frames: ColumnFrame[] = [];
  for (let a = 0; a < A; a++) {
    const time = columnTime(desc, a);
    const angle = columnAngle(desc, a);
    let position: Vec3 = pose.origin;
    let axes: [Vec3, Vec3, Vec3] = startAxes;
    if (moving && a > 0) {
      const s = time / T;
      const p0 = pose.origin;
      const p1 = poseEnd.origin;
      position = [p0[0] + s * (p1[0] - p0[0]), p0[1] + s * (p1[1] - p0[1]), p0[2] + s * (p1[2] - p0[2])];
      axes = quatAxes(slerp(q0, q1, s));
    }
    let beamOrigin = position;
    if (n !== 0) {
      const lx = n * Math.cos(angle);
      const ly = n * Math.sin(angle);
      beamOrigin = [
        position[0] + lx * axes[0][0] + ly * axes[1][0],
        position[1] + lx * axes[0][1] + ly * axes[1][1],
        position[2] + lx * axes[0][2] + ly * axes[1][2],
      ];
    }
    frames.push({ time, angle, position, beamOrigin, axes });
  }
  return frames;
}

/**
 * Writes box `i` of `boxes` as it is at time τ under velocity v and angular velocity ω (world
 * frame, about its centre) into record `k` of `out` (BOX_F64 layout): centre c + v·τ, axes turned
 * by |ω|·τ about ω/|ω| (Rodrigues), half extents unchanged.
 */
export function boxAtTime(boxes: BoxArray, i: number, v: Vec3, w: Vec3, tau: number, out: Float64Array, k: number): void {
  const S = BOX_F64.STRIDE;
  const d = boxes.data;
  const s = i * S;
  const o = k * S;
  for (let j = 0; j < S; j++) {
    out[o + j] = d[s + j]!;
  }
  out[o + BOX_F64.CENTER] = d[s + BOX_F64.CENTER]! + v[0] * tau;
  out[o + BOX_F64.CENTER + 1] = d[s + BOX_F64.CENTER + 1]! + v[1] * tau;
  out[o + BOX_F64.CENTER + 2] = d[s + BOX_F64.CENTER + 2]! + v[2] * tau;
  const speed = Math.hypot(w[0], w[1], w[2]);
  const angle = speed * tau;
  if (!(angle !== 0)) {
    return;
  }
  const kx = w[0] / speed;
  const ky = w[1] / speed;
  const kz = w[2] / speed;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  for (const axis of [BOX_F64.U, BOX_F64.V, BOX_F64.W]) {
    const x = d[s + axis]!;
    const y = d[s + axis + 1]!;
    const z = d[s + axis + 2]!;
    const dot = (kx * x + ky * y + kz * z) * (1 - cos);
    out[o + axis] = x * cos + (ky * z - kz * y) * sin + kx * dot;
    out[o + axis + 1] = y * cos + (kz * x - kx * z) * sin + ky * dot;
    out[o + axis + 2] = z * cos + (kx * y - ky * x) * sin + kz * dot;
  }
}

/** The velocity and angular velocity of listed box k of a motion (zero where not given). */
export function motionOf(m: BoxMotion, k: number): { v: Vec3; w: Vec3 } {
  const pick = (a: ArrayLike<number> | undefined): Vec3 => (a ? [a[3 * k]!, a[3 * k + 1]!, a[3 * k + 2]!] : [0, 0, 0]);
  return { v: pick(m.velocity), w: pick(m.angularVelocity) };
}

/** Whether a sweep's motion changes anything (a sensor moving over a sweep of non-zero time, or moving boxes). */
export function motionMatters(desc: LidarDescription, motion: LidarMotion | undefined): boolean {
  return (desc.sweepTime ?? 0) > 0 && motion !== undefined && (motion.poseEnd !== undefined || (motion.boxMotion?.boxes.length ?? 0) > 0);
}

/**
 * A sensor mounted on a vehicle: the sensor's pose in the world from the vehicle's pose in the
 * world and the sensor's extrinsic (its pose in the vehicle frame).
 *
 * @example
 * const yaw = 0.3; // the vehicle's heading, radians about z
 * const pose = mountPose({ origin: [120, -40, 0], rotation: [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)] }, { origin: [1.2, 0, 1.9] });
 */
export function mountPose(vehicle: LidarPose, extrinsic: LidarPose): LidarPose {
  checkPose(vehicle, 'vehicle');
  checkPose(extrinsic, 'extrinsic');
  const [ax, ay, az] = poseAxes(vehicle);
  const e = extrinsic.origin;
  const origin: Vec3 = [
    vehicle.origin[0] + e[0] * ax[0] + e[1] * ay[0] + e[2] * az[0],
    vehicle.origin[1] + e[0] * ax[1] + e[1] * ay[1] + e[2] * az[1],
    vehicle.origin[2] + e[0] * ax[2] + e[1] * ay[2] + e[2] * az[2],
  ];
  const [x1, y1, z1, w1] = unitQuat(vehicle.rotation);
  const [x2, y2, z2, w2] = unitQuat(extrinsic.rotation);
  return {
    origin,
    rotation: [
      w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
      w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
      w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
      w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ],
  };
}
