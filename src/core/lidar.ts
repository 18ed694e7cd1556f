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
 * - firing time τ = τ_a + f_c, τ_a = sweepTime · a / A, f_c = firingTimeOffsets[c] (default 0),
 *   at encoder angle θ = θ_a + span · f_c / sweepTime;
 * - direction in the sensor frame (cos e_c cos(θ + δ_c), cos e_c sin(θ + δ_c), sin e_c);
 * - origin in the sensor frame n · (cos θ, sin θ, 0) + (0, 0, v_c), n = beamOriginOffset,
 *   v_c = verticalOffsets[c] (default 0);
 * - the sensor's pose at τ interpolates `pose` → `poseEnd` (position linearly, rotation by
 *   slerp) when `poseEnd` is given;
 * - a moving box at τ is centred at c + v·τ, its axes turned by |ω|·τ about ω/|ω| (world frame);
 * - a return's intensity (lidarIntensity) I = min(1, ρ · cos α · (r₀ / r)² · e^(−a·r)), ρ the hit
 *   box's reflectivity, α the angle between the ray and the hit face's normal, the range factor
 *   only with a reference range r₀, the atmospheric one only with a > 0.
 */
import type { BoxArray, Quat, Vec3 } from './types.ts';
import { BOX_F64 } from './types.ts';
import { detAcos, detCos, detExp, detHypot, detHypot3, detSin } from './detmath.ts';
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
  /**
   * Height v_c of each channel's beam origin above the beam-origin circle, world units (metres
   * in scene files; default 0): channel c's rays start at n · (cos θ, sin θ, 0) + (0, 0, v_c) in
   * the sensor frame (Velodyne's per-laser "vertical correction", e.g. ±11.2 mm on a VLP-16).
   */
  readonly verticalOffsets?: readonly number[];
  /**
   * When each channel fires after its column's first firing, seconds, each in
   * [0, sweepTime / azimuthSteps) (default 0): channel c of column a fires at τ_a + f_c, the head
   * turned further by (azimuthEnd − azimuthStart) · f_c / sweepTime, the sensor and the moving
   * boxes where they are at that time (e.g. the VLP-16's k · 2.304 µs).
   */
  readonly firingTimeOffsets?: readonly number[];
  /** Returns nearer than this are dropped (the near box still occludes), world units (default 0). */
  readonly minRange?: number;
  /** Max range, world units (a return beyond it is no return). */
  readonly maxRange: number;
  /** Seconds from column 0 to column A (default 0: the whole sweep at one instant). */
  readonly sweepTime?: number;
  /** How a return's intensity is computed (lidarIntensity; default: reflectivity × incidence cosine). */
  readonly intensity?: LidarIntensityModel;
  /** Seeded noise and dropout (default none); the sweep's `seed` chooses the draw. */
  readonly noise?: LidarNoise;
  /** The beam as a cone sampled by sub-rays, and which of their echoes are returns (default: one ray, its closest hit). */
  readonly beam?: LidarBeam;
}

/**
 * A beam of finite divergence and its returns, each beam a cone sampled by sub-rays
 * (docs/lidar.md, "Multiple returns and beam divergence"; beamSubRays: the centre ray, then
 * `rings` ellipses of `samplesPerRing` rays each, as RGL samples its beams), each sub-ray a sweep
 * of its own; each beam then keeps the returns of its mode from its sub-rays' hits.
 */
export interface LidarBeam {
  /**
   * Full divergence angles [horizontal, vertical], radians, each in [0, 0.05] (e.g. the VLP-16's
   * 3.0 mrad × 1.5 mrad): the outer ring's sub-rays lie half of each off the beam's axis.
   */
  readonly divergence: readonly [number, number];
  /** Ellipses of sub-rays around the centre ray, 1 to 3 (default 1). */
  readonly rings?: number;
  /** Sub-rays per ellipse, 3 to 32 (default 8). */
  readonly samplesPerRing?: number;
  /**
   * Which returns a beam keeps from its sub-rays' hits (default 'strongest'): the strongest (the
   * largest intensity), the last (the largest range), or both ('dual': the strongest and the
   * last when their ranges differ by at least `minSeparation`; else, as Velodyne's dual mode,
   * the strongest hit at least `minSeparation` nearer than the last, and the last; else one).
   */
  readonly returns?: 'strongest' | 'last' | 'dual';
  /** 'dual': how far apart two returns' ranges must be to be two, world units > 0 (default 1). */
  readonly minSeparation?: number;
}

/** The largest beam divergence a description may ask for, radians (2.9°). */
export const MAX_LIDAR_DIVERGENCE = 0.05;

/**
 * Seeded noise and dropout (docs/lidar.md, "Noise and dropout"), each off at 0. Every draw comes
 * from a counter-based hash of (seed, channel, column, stream) (pcg4d, lidarNoiseDraws), the
 * same integers on the GPU and in the float64 reference, so a sweep and its seed give the same
 * noise everywhere and the reference applies the same perturbation to the same ray.
 */
export interface LidarNoise {
  /**
   * σ₀ of the range noise, world units: a return's range becomes max(0, r + (σ₀ + σ₁·r) · z)
   * (RGL's distance noise, σ = σ_base + σ_slope · d; CARLA's `noise_stddev` is σ₀ alone).
   */
  readonly rangeStdDev?: number;
  /** σ₁ of the range noise, per world unit of range (default 0). */
  readonly rangeStdDevPerUnit?: number;
  /**
   * σ of each beam's azimuth jitter, radians (at most 0.01): the beam leaves at azimuth φ + δ,
   * δ = σ · z, before the sweep (RGL's ray-based angular noise about the sensor's z axis).
   */
  readonly azimuthStdDev?: number;
  /** σ of each beam's elevation jitter, radians (at most 0.01): elevation e + ε, ε = σ · z. */
  readonly elevationStdDev?: number;
  /** Probability in [0, 1] that a return is dropped at random (CARLA's `dropoff_general_rate`). */
  readonly dropout?: number;
  /**
   * Intensity-based dropout (CARLA's `dropoff_intensity_limit` and `dropoff_zero_intensity`): a
   * return of intensity I < `limit` is dropped with probability `atZero` · (1 − I / limit).
   */
  readonly intensityDropout?: { readonly limit: number; readonly atZero: number };
}

/** The largest angular noise σ a description may ask for, radians (0.57°; the beams' jitter stays within 6.231 σ). */
export const MAX_LIDAR_ANGULAR_NOISE = 0.01;

/**
 * The intensity model of a sensor (docs/lidar.md, "Materials and intensity"): a return from a box of
 * reflectivity ρ (BoxSet.setMaterials; 1 by default) hit at range r, at an angle α between the
 * ray and the face's normal, has intensity I = min(1, ρ · cos α · F(r) · E(r)):
 * - F(r) = (r₀ / r)² with `referenceRange` r₀ (the LiDAR equation's falloff for a Lambertian
 *   target that fills the beam, P ∝ ρ cos α / r², as in Jutzi & Gross 2009, "Normalization of
 *   LiDAR intensity data based on range and surface incidence angle", IAPRS XXXVIII-3/W8;
 *   normalised to 1 at r₀ as the AMS Glossary's "range normalization" does), else 1; I
 *   saturates at 1 nearer than r₀ · √(ρ cos α);
 * - E(r) = e^(−a·r) with `atmosphere` a (per world unit: CARLA's `atmosphere_attenuation_rate`,
 *   0.004 m⁻¹ by default there), else 1.
 */
export interface LidarIntensityModel {
  /** r₀ > 0: the range falloff (r₀ / r)², 1 at r₀ (default: none). */
  readonly referenceRange?: number;
  /** a ≥ 0 per world unit: the atmospheric factor e^(−a·r) (default 0: none). */
  readonly atmosphere?: number;
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

const DESCRIPTION_KEYS = new Set(['elevations', 'azimuthSteps', 'azimuthStart', 'azimuthEnd', 'azimuthOffsets', 'beamOriginOffset', 'verticalOffsets', 'firingTimeOffsets', 'minRange', 'maxRange', 'sweepTime', 'intensity', 'noise', 'beam']);
const BEAM_KEYS = new Set(['divergence', 'rings', 'samplesPerRing', 'returns', 'minSeparation']);
const INTENSITY_KEYS = new Set(['referenceRange', 'atmosphere']);
const NOISE_KEYS = new Set(['rangeStdDev', 'rangeStdDevPerUnit', 'azimuthStdDev', 'elevationStdDev', 'dropout', 'intensityDropout']);
const INTENSITY_DROPOUT_KEYS = new Set(['limit', 'atZero']);
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
  checkPerChannel(desc.verticalOffsets, 'verticalOffsets', C, () => true, 'a finite number of world units');
  const T = desc.sweepTime ?? 0;
  const period = T / desc.azimuthSteps;
  checkPerChannel(desc.firingTimeOffsets, 'firingTimeOffsets', C, (f) => f === 0 || (f > 0 && f < period),
    T > 0 ? `seconds in [0, sweepTime / azimuthSteps = ${period})` : '0 (sweepTime is 0: every channel fires with its column)');
  checkIntensityModel(desc.intensity);
  checkNoise(desc.noise);
  checkBeam(desc);
}

function checkPerChannel(table: readonly number[] | undefined, field: string, C: number, ok: (x: number) => boolean, rule: string): void {
  if (table === undefined) {
    return;
  }
  if (!Array.isArray(table) || table.length !== C) {
    fail(field, `must hold one number per channel (${C}; got ${Array.isArray(table) ? table.length : typeof table})`);
  }
  table.forEach((x, c) => {
    if (!(typeof x === 'number' && Number.isFinite(x) && ok(x))) {
      fail(field, `[${c}] must be ${rule} (got ${String(x)})`, c);
    }
  });
}

function checkBeam(desc: LidarDescription): void {
  const beam = desc.beam;
  if (beam === undefined) {
    return;
  }
  if (typeof beam !== 'object' || beam === null || Array.isArray(beam)) {
    fail('beam', 'must be { divergence: [horizontal, vertical], rings?, samplesPerRing?, returns?, minSeparation? }');
  }
  rejectUnknown(beam, BEAM_KEYS, 'beam');
  const d = beam.divergence as unknown;
  if (!Array.isArray(d) || d.length !== 2 || !d.every((x) => typeof x === 'number' && x >= 0 && x <= MAX_LIDAR_DIVERGENCE)) {
    fail('beam.divergence', `must be [horizontal, vertical] full angles in [0, ${MAX_LIDAR_DIVERGENCE}] radians`);
  }
  optionalNumber(beam.rings, 'beam.rings', (x) => Number.isInteger(x) && x >= 1 && x <= 3, 'an integer from 1 to 3');
  optionalNumber(beam.samplesPerRing, 'beam.samplesPerRing', (x) => Number.isInteger(x) && x >= 3 && x <= 32, 'an integer from 3 to 32');
  if (beam.returns !== undefined && !['strongest', 'last', 'dual'].includes(beam.returns)) {
    fail('beam.returns', `must be 'strongest', 'last' or 'dual' (got ${String(beam.returns)})`);
  }
  optionalNumber(beam.minSeparation, 'beam.minSeparation', (x) => x > 0, 'finite and > 0 (world units)');
  desc.elevations.forEach((e, c) => {
    if (!(Math.abs(e) + d[1] / 2 < Math.PI / 2)) {
      fail('beam.divergence', `[1] takes channel ${c}'s sub-rays to ±90° (elevation ${e} ± ${d[1] / 2})`, c);
    }
  });
}

/**
 * The sub-rays of a beam (LidarBeam), as (h, v) angular offsets from its axis, radians: first the
 * centre (0, 0), then for ring l = 0 … L − 1 (scale s = (L − l) / L, outermost first) and vertex
 * j = 0 … V − 1 the point (H/2 · s · cos 2πj/V, W/2 · s · sin 2πj/V) of the ellipse of the full
 * divergences H × W — RGL's pattern (MultiReturn.hpp and makeBeamSampleRayTransform in its
 * optixPrograms.cu: a primary ray and layers of vertices on ellipses scaled by 1 − l/L). Without a
 * beam, or with no divergence, the centre alone.
 *
 * @example
 * beamSubRays({ divergence: [0.003, 0.0015], samplesPerRing: 4 }) // [[0, 0], [0.0015, 0], [~0, 0.00075], [-0.0015, ~0], [~0, -0.00075]]
 */
export function beamSubRays(beam: LidarBeam | undefined): [number, number][] {
  const out: [number, number][] = [[0, 0]];
  if (!beam || (beam.divergence[0] === 0 && beam.divergence[1] === 0)) {
    return out;
  }
  const L = beam.rings ?? 1;
  const V = beam.samplesPerRing ?? 8;
  const [H, W] = beam.divergence;
  for (let l = 0; l < L; l++) {
    const scale = (L - l) / L;
    for (let j = 0; j < V; j++) {
      const angle = (2 * Math.PI * j) / V;
      out.push([(H / 2) * scale * detCos(angle), (W / 2) * scale * detSin(angle)]);
    }
  }
  return out;
}

/**
 * The description whose rays are sub-ray k of every beam of `desc` (beamSubRays): channel c at
 * elevation e_c + v_k and azimuth offset δ_c + h_k / cos e_c (a horizontal angle h_k off the
 * beam's axis), with the description's angular noise (every sub-ray of a beam jitters with it)
 * and intensity model, and nothing else of the returns stage (no beam, no range noise or
 * dropout: those act on the beam's returns). Sub-ray 0 is the beam's own ray.
 *
 * @example
 * const edge = beamSubRayDescription(desc, 1); // sweep it as any sensor: its rays are the beams' first outer sub-rays
 */
export function beamSubRayDescription(desc: LidarDescription, k: number): LidarDescription {
  const [h, v] = beamSubRays(desc.beam)[k] ?? fail('beam', `has no sub-ray ${k}`);
  const noise = desc.noise;
  const copy: Record<string, unknown> = { ...desc };
  delete copy['beam'];
  delete copy['noise'];
  const rest = copy as unknown as LidarDescription;
  const angular = noise && ((noise.azimuthStdDev ?? 0) > 0 || (noise.elevationStdDev ?? 0) > 0)
    ? { noise: { ...(noise.azimuthStdDev ? { azimuthStdDev: noise.azimuthStdDev } : {}), ...(noise.elevationStdDev ? { elevationStdDev: noise.elevationStdDev } : {}) } }
    : {};
  if (k === 0) {
    return { ...rest, ...angular };
  }
  return {
    ...rest, ...angular,
    elevations: desc.elevations.map((e) => e + v),
    azimuthOffsets: desc.elevations.map((e, c) => (desc.azimuthOffsets?.[c] ?? 0) + h / detCos(e)),
  };
}

function checkNoise(noise: LidarNoise | undefined): void {
  if (noise === undefined) {
    return;
  }
  if (typeof noise !== 'object' || noise === null || Array.isArray(noise)) {
    fail('noise', 'must be { rangeStdDev?, rangeStdDevPerUnit?, azimuthStdDev?, elevationStdDev?, dropout?, intensityDropout? }');
  }
  rejectUnknown(noise, NOISE_KEYS, 'noise');
  optionalNumber(noise.rangeStdDev, 'noise.rangeStdDev', (x) => x >= 0, 'finite and >= 0 (world units)');
  optionalNumber(noise.rangeStdDevPerUnit, 'noise.rangeStdDevPerUnit', (x) => x >= 0 && x <= 1, 'in [0, 1]');
  for (const k of ['azimuthStdDev', 'elevationStdDev'] as const) {
    optionalNumber(noise[k], `noise.${k}`, (x) => x >= 0 && x <= MAX_LIDAR_ANGULAR_NOISE, `in [0, ${MAX_LIDAR_ANGULAR_NOISE}] radians`);
  }
  optionalNumber(noise.dropout, 'noise.dropout', (x) => x >= 0 && x <= 1, 'a probability in [0, 1]');
  const d = noise.intensityDropout;
  if (d !== undefined) {
    if (typeof d !== 'object' || d === null) {
      fail('noise.intensityDropout', 'must be { limit, atZero }');
    }
    rejectUnknown(d, INTENSITY_DROPOUT_KEYS, 'noise.intensityDropout');
    if (!(typeof d.limit === 'number' && d.limit > 0 && d.limit <= 1)) {
      fail('noise.intensityDropout.limit', `must be an intensity in (0, 1] (got ${String(d.limit)})`);
    }
    if (!(typeof d.atZero === 'number' && d.atZero >= 0 && d.atZero <= 1)) {
      fail('noise.intensityDropout.atZero', `must be a probability in [0, 1] (got ${String(d.atZero)})`);
    }
  }
}

/** Whether a description perturbs its beams' directions (azimuth or elevation noise). */
export function hasAngularNoise(desc: LidarDescription): boolean {
  return (desc.noise?.azimuthStdDev ?? 0) > 0 || (desc.noise?.elevationStdDev ?? 0) > 0;
}

/** Whether a description's beams are cones of several sub-rays (a beam with non-zero divergence). */
export function hasBeamDivergence(desc: LidarDescription): boolean {
  return desc.beam !== undefined && (desc.beam.divergence[0] > 0 || desc.beam.divergence[1] > 0);
}

/** Whether a description's returns pass through noise or dropout after the sweep. */
export function hasReturnNoise(desc: LidarDescription): boolean {
  const n = desc.noise;
  return n !== undefined && ((n.rangeStdDev ?? 0) > 0 || (n.rangeStdDevPerUnit ?? 0) > 0 || (n.dropout ?? 0) > 0 || (n.intensityDropout?.atZero ?? 0) > 0);
}

/**
 * The dropout threshold as the kernels compare it: a return is dropped at random when its draw
 * (a u32) is below ⌊p · 2³²⌋ (p = 1: every draw; an integer, the same on both sides).
 */
export function dropoutThreshold(p: number): number {
  return p >= 1 ? 0xffffffff : Math.floor(p * 2 ** 32);
}

function checkIntensityModel(model: LidarIntensityModel | undefined): void {
  if (model === undefined) {
    return;
  }
  if (typeof model !== 'object' || model === null || Array.isArray(model)) {
    fail('intensity', 'must be { referenceRange?, atmosphere? }');
  }
  rejectUnknown(model, INTENSITY_KEYS, 'intensity');
  optionalNumber(model.referenceRange, 'intensity.referenceRange', (x) => x > 0, 'finite and > 0 (world units)');
  optionalNumber(model.atmosphere, 'intensity.atmosphere', (x) => x >= 0, 'finite and >= 0 (per world unit)');
}

/**
 * The intensity of a return (LidarIntensityModel): min(1, ρ · cos α · (r₀ / r)² · e^(−a·r)),
 * float64, in the order the GPU computes it (intensityOf, shaders/lidar/returns_common.wgsl). The
 * range falloff takes r no nearer than r₀ · 10⁻⁶ (a return at r = 0 saturates).
 *
 * @example
 * lidarIntensity({ referenceRange: 10 }, 0.5, 0.8, 20) // 0.5 · 0.8 · (10 / 20)² = 0.1
 */
export function lidarIntensity(model: LidarIntensityModel | undefined, reflectivity: number, cosine: number, range: number): number {
  let g = reflectivity * cosine;
  const r0 = model?.referenceRange ?? 0;
  if (r0 > 0) {
    const q = r0 / Math.max(range, r0 * 1e-6);
    g *= q * q;
  }
  const a = model?.atmosphere ?? 0;
  if (a > 0) {
    g *= detExp(-a * range);
  }
  return Math.min(1, g);
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

/**
 * How far the head has turned when channel c fires after its column's first firing:
 * span · f_c / sweepTime (0 without firing-time offsets).
 */
export function firingTurn(desc: LidarDescription, c: number): number {
  const f = desc.firingTimeOffsets?.[c] ?? 0;
  return f === 0 ? 0 : (azimuthSpan(desc) * f) / desc.sweepTime!;
}

/**
 * Channel c's azimuth offset from its column's encoder angle: δ_c plus the firing turn
 * (firingTurn), so its rays point at θ_a + (δ_c + span · f_c / sweepTime).
 */
export function channelAzimuthOffset(desc: LidarDescription, c: number): number {
  return (desc.azimuthOffsets?.[c] ?? 0) + firingTurn(desc, c);
}

/** Whether some channel's rays leave off its column's encoder angle (an azimuth offset or a firing turn). */
export function hasAzimuthOffsets(desc: LidarDescription): boolean {
  return (desc.azimuthOffsets?.some((d) => d !== 0) ?? false) || hasFiringOffsets(desc);
}

/** Whether some channel's beam origin is lifted off the beam-origin circle (a non-zero vertical offset). */
export function hasVerticalOffsets(desc: LidarDescription): boolean {
  return desc.verticalOffsets?.some((v) => v !== 0) ?? false;
}

/** Whether some channel fires after its column's first firing (a non-zero firing-time offset). */
export function hasFiringOffsets(desc: LidarDescription): boolean {
  return desc.firingTimeOffsets?.some((f) => f !== 0) ?? false;
}

/**
 * Whether the rays of one column differ by channel in where or when they start (a non-zero
 * vertical offset or firing-time offset): each channel then has frames of its own
 * (columnFrames with a channel).
 */
export function hasPerLaserData(desc: LidarDescription): boolean {
  return hasVerticalOffsets(desc) || hasFiringOffsets(desc);
}

/**
 * The channels grouped by firing time: `group[c]` the group of channel c, `offsets[g]` the
 * firing-time offset of group g (in order of first appearance; one group of 0 without offsets).
 * Boxes moving during a sweep are placed once per (group, column).
 */
export function firingGroups(desc: LidarDescription): { readonly group: Int32Array; readonly offsets: readonly number[] } {
  const C = desc.elevations.length;
  const group = new Int32Array(C);
  const offsets: number[] = [];
  const seen = new Map<number, number>();
  for (let c = 0; c < C; c++) {
    const f = desc.firingTimeOffsets?.[c] ?? 0;
    let g = seen.get(f);
    if (g === undefined) {
      g = offsets.length;
      offsets.push(f);
      seen.set(f, g);
    }
    group[c] = g;
  }
  if (offsets.length === 0) {
    offsets.push(0);
  }
  return { group, offsets };
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
    out[2 * a] = detCos(theta);
    out[2 * a + 1] = detSin(theta);
  }
  desc.elevations.forEach((e, c) => {
    out[2 * (A + c)] = detCos(e);
    out[2 * (A + c) + 1] = detSin(e);
  });
  return out;
}

/**
 * (cos(θ_a + δ'_c), sin(θ_a + δ'_c)) per ray, channel-major, δ'_c = δ_c + span · f_c / sweepTime
 * (channelAzimuthOffset) — the azimuth table of a sensor with per-channel offsets or firing
 * times (without them, the first half of lidarTables serves every channel).
 */
export function lidarRayAzimuths(desc: LidarDescription): Float64Array {
  const A = desc.azimuthSteps;
  const C = desc.elevations.length;
  const out = new Float64Array(2 * C * A);
  for (let c = 0; c < C; c++) {
    const d = channelAzimuthOffset(desc, c);
    for (let a = 0; a < A; a++) {
      const phi = columnAngle(desc, a) + d;
      out[2 * (c * A + a)] = detCos(phi);
      out[2 * (c * A + a) + 1] = detSin(phi);
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
  const len = detHypot(r[0], r[1], r[2], r[3]);
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
    const angle = detAcos(Math.min(1, dot));
    const sin = detSin(angle);
    wa = detSin((1 - s) * angle) / sin;
    wb = detSin(s * angle) / sin;
  }
  const q: [number, number, number, number] = [wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3]];
  const len = detHypot(...q);
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

/**
 * Whether the sensor moves during a sweep: a `poseEnd` other than the pose, with sweepTime > 0
 * (columnFrames then interpolates; else every ray shares the pose's frame).
 */
export function sensorMoves(desc: LidarDescription, pose: LidarPose, poseEnd: LidarPose | undefined): boolean {
  return poseEnd !== undefined && (desc.sweepTime ?? 0) > 0 && !samePose(pose, poseEnd);
}

function samePose(a: LidarPose, b: LidarPose): boolean {
  const qa = a.rotation ?? [0, 0, 0, 1];
  const qb = b.rotation ?? [0, 0, 0, 1];
  return a.origin.every((x, k) => x === b.origin[k]) && qa.every((x, k) => x === qb[k]);
}

/**
 * The frame of every column: the pose at τ_a (interpolated towards `poseEnd` when given and
 * sweepTime > 0) and the beam origin. Without motion every column shares the pose's axes and,
 * without a beam-origin offset, its origin: exactly the rays of a plain sensor. With `channel`,
 * the frames of that channel's firings: time τ_a + f_c, encoder angle θ_a + span · f_c /
 * sweepTime, beam origin n · (cos θ, sin θ, 0) + (0, 0, v_c) in the frame at that time (the
 * column's own frames when the channel has neither offset).
 */
export function columnFrames(desc: LidarDescription, pose: LidarPose, poseEnd?: LidarPose, channel?: number): ColumnFrame[] {
  const A = desc.azimuthSteps;
  const T = desc.sweepTime ?? 0;
  const n = desc.beamOriginOffset ?? 0;
  const fire = channel === undefined ? 0 : desc.firingTimeOffsets?.[channel] ?? 0;
  const turn = channel === undefined ? 0 : firingTurn(desc, channel);
  const lift = channel === undefined ? 0 : desc.verticalOffsets?.[channel] ?? 0;
  // A poseEnd equal to the pose is no motion: the same frames as without it, bit for bit.
  const moving = poseEnd !== undefined && T > 0 && !samePose(pose, poseEnd);
  const startAxes = poseAxes(pose);
  const q0 = pose.rotation ?? [0, 0, 0, 1];
  const q1 = poseEnd?.rotation ?? [0, 0, 0, 1];
  const frames: ColumnFrame[] = [];
  // Without motion and without the beam-origin circle every column's beam origin is the same
  // sum (the pose's origin, lifted): made once, shared by the frames.
  let still: Vec3 | undefined;
  for (let a = 0; a < A; a++) {
    const time = fire === 0 ? columnTime(desc, a) : columnTime(desc, a) + fire;
    const angle = turn === 0 ? columnAngle(desc, a) : columnAngle(desc, a) + turn;
    let position: Vec3 = pose.origin;
    let axes: [Vec3, Vec3, Vec3] = startAxes;
    if (moving && time > 0) {
      const s = time / T;
      const p0 = pose.origin;
      const p1 = poseEnd.origin;
      position = [p0[0] + s * (p1[0] - p0[0]), p0[1] + s * (p1[1] - p0[1]), p0[2] + s * (p1[2] - p0[2])];
      axes = quatAxes(slerp(q0, q1, s));
    }
    let beamOrigin = position;
    if (n === 0 && lift !== 0 && !moving && still) {
      beamOrigin = still;
    } else if (n !== 0 || lift !== 0) {
      const lx = n === 0 ? 0 : n * detCos(angle);
      const ly = n === 0 ? 0 : n * detSin(angle);
      beamOrigin = [
        position[0] + lx * axes[0][0] + ly * axes[1][0] + lift * axes[2][0],
        position[1] + lx * axes[0][1] + ly * axes[1][1] + lift * axes[2][1],
        position[2] + lx * axes[0][2] + ly * axes[1][2] + lift * axes[2][2],
      ];
      if (n === 0 && !moving) {
        still = beamOrigin;
      }
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
  const speed = detHypot3(w[0], w[1], w[2]);
  const angle = speed * tau;
  if (!(angle !== 0)) {
    return;
  }
  const kx = w[0] / speed;
  const ky = w[1] / speed;
  const kz = w[2] / speed;
  const cos = detCos(angle);
  const sin = detSin(angle);
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
