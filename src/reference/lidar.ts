/**
 * A spinning LiDAR on the CPU, float64: the twin of the ray generation and the sweep kernels
 * (bvhLidar and lidarWalk in shaders/lidar/tree.wgsl, the raster method in
 * shaders/lidar/raster.wgsl). Every formula comes from src/core/lidar.ts (the contract): ray
 * (channel c, column a) has index c · azimuthSteps + a, starts at the column's beam origin, and
 * points along the channel's direction turned by the pose at its firing time (the column's time
 * plus the channel's firing-time offset, with per-laser data from its own beam origin); a moving box is
 * where it is at that time; a hit nearer than minRange is no return (the box still occludes).
 */
import { detCos, detHypot3, detSin } from '../core/detmath.ts';
import type { BoxArray, RayArray } from '../core/types.ts';
import { BOX_F64 } from '../core/types.ts';
import { aabbHalfWidthAt } from '../core/helpers.ts';
import { CapacityError } from '../errors.ts';
import type { LidarPointCloud } from '../files/pointCloud.ts';
import {
  beamSubRayDescription, beamSubRays, boxAtTime, checkLidar, dropoutThreshold, hasAngularNoise, hasAzimuthOffsets, hasPerLaserData, hasReturnNoise, checkMotion, checkPose,
  columnFrames, columnTime, lidarIntensity, lidarRayAzimuths, lidarTables, motionOf, type ColumnFrame,
  type BoxMotion, type LidarDescription, type LidarMotion, type LidarPose,
} from '../core/lidar.ts';
import { LIDAR_GAUSS_TABLE } from '../constants.ts';
import { BoxGrid, closestHitGrid, paddedAabbs, type AccelProgress } from './accel.ts';
import { makeRayObbScratch, rayObbAt } from './query/rayObb.ts';

export { checkLidar, checkPose, lidarTables, linearElevations, poseAxes, type LidarDescription, type LidarPose } from '../core/lidar.ts';

/**
 * pcg4d, the counter-based hash of Jarzynski and Olano ("Hash Functions for GPU Rendering",
 * JCGT 9(3), 2020), on four u32 lanes: the twin of pcg4d in shaders/lidar/noise.wgsl, exact
 * (Math.imul and unsigned shifts are the GPU's u32 arithmetic).
 *
 * @example
 * pcg4d(3, 700, 42, 0) // the draws of channel 3, column 700, seed 42, stream 0
 */
export function pcg4d(x: number, y: number, z: number, w: number): [number, number, number, number] {
  let a = (Math.imul(x, 1664525) + 1013904223) >>> 0;
  let b = (Math.imul(y, 1664525) + 1013904223) >>> 0;
  let c = (Math.imul(z, 1664525) + 1013904223) >>> 0;
  let d = (Math.imul(w, 1664525) + 1013904223) >>> 0;
  a = (a + Math.imul(b, d)) >>> 0;
  b = (b + Math.imul(c, a)) >>> 0;
  c = (c + Math.imul(a, b)) >>> 0;
  d = (d + Math.imul(b, c)) >>> 0;
  a = (a ^ (a >>> 16)) >>> 0;
  b = (b ^ (b >>> 16)) >>> 0;
  c = (c ^ (c >>> 16)) >>> 0;
  d = (d ^ (d >>> 16)) >>> 0;
  a = (a + Math.imul(b, d)) >>> 0;
  b = (b + Math.imul(c, a)) >>> 0;
  c = (c + Math.imul(a, b)) >>> 0;
  d = (d + Math.imul(b, c)) >>> 0;
  return [a, b, c, d];
}

/**
 * A standard normal deviate from one hash word, bit for bit the GPU's (gaussianOf in
 * shaders/lidar/noise.wgsl): the sign from the top bit, |z| from the 31 others by the table of
 * half-normal quantiles LIDAR_GAUSS_TABLE (src/constants.ts), interpolated in integers.
 *
 * @example
 * gaussianOf(pcg4d(3, 700, 42, 0)[0]) // z, |z| ≤ 6.2303
 */
export function gaussianOf(h: number): number {
  const x = (h << 1) >>> 0;
  const j = Math.clz32(~x >>> 0);
  const rest = j < 31 ? (x << (j + 1)) >>> 0 : 0;
  const k = 16 * j + (rest >>> 28);
  const w = (rest >>> 16) & 0xfff;
  const lo = LIDAR_GAUSS_TABLE[k]!;
  const hi = LIDAR_GAUSS_TABLE[k + 1]!;
  const magnitude = (lo + Math.floor(((hi - lo) * w) / 4096)) / 1048576;
  return h >>> 31 ? -magnitude : magnitude;
}

/**
 * A uniform draw in [0, 1) from one hash word (its top 24 bits over 2²⁴), the GPU's uniformOf.
 *
 * @example
 * uniformOf(pcg4d(3, 700, 42, 1)[2]) < 0.4 // a draw against a probability
 */
export function uniformOf(h: number): number {
  return (h >>> 8) / 16777216;
}

/**
 * Every ray of one sweep, float64 (channel-major: index c · azimuthSteps + a). With `poseEnd`
 * (and sweepTime > 0) each column's rays start from the pose at its own time; with per-laser data
 * (verticalOffsets, firingTimeOffsets) each ray from its channel's firing (columnFrames with the
 * channel). With angular noise
 * in the description (LidarNoise), ray (c, a) leaves at azimuth φ + δ and elevation e + ε, δ and
 * ε σ times the first two deviates of pcg4d(c, a, seed, 0), as the GPU perturbs it
 * (shaders/lidar/noise_rays.wgsl).
 *
 * @example
 * const rays = lidarRays({ elevations: linearElevations(128, -25, 15), azimuthSteps: 2048, maxRange: 200 }, { origin: [0, 0, 2] });
 * closestHit(boxes, rays) // the reference range image (before minRange)
 */
export function lidarRays(desc: LidarDescription, pose: LidarPose, poseEnd?: LidarPose, options: { readonly seed?: number } = {}): RayArray {
  checkLidar(desc);
  checkPose(pose);
  if (poseEnd !== undefined) {
    checkPose(poseEnd, 'poseEnd');
  }
  return raysOfFrames(desc, sweepFrames(desc, pose, poseEnd), (options.seed ?? 0) >>> 0);
}

/** The frames of a sweep's rays: one row (every channel's) or, with per-laser data, one per channel (columnFrames). */
function sweepFrames(desc: LidarDescription, pose: LidarPose, poseEnd: LidarPose | undefined): ColumnFrame[][] {
  return hasPerLaserData(desc)
    ? Array.from({ length: desc.elevations.length }, (_, c) => columnFrames(desc, pose, poseEnd, c))
    : [columnFrames(desc, pose, poseEnd)];
}

/** lidarRays from the sweep's frames (sweepFrames), on validated inputs. */
function raysOfFrames(desc: LidarDescription, rows: readonly ColumnFrame[][], seed: number): RayArray {
  const data = new Float64Array(desc.elevations.length * desc.azimuthSteps * 7);
  forEachRay(desc, rows, seed, (r, _c, _a, ox, oy, oz, dx, dy, dz) => {
    const o = r * 7;
    data[o] = ox;
    data[o + 1] = oy;
    data[o + 2] = oz;
    data[o + 3] = dx;
    data[o + 4] = dy;
    data[o + 5] = dz;
    data[o + 6] = desc.maxRange;
  });
  return { count: desc.elevations.length * desc.azimuthSteps, data };
}

/**
 * Every ray of a sweep in ray order (channel-major), handed to `emit` as its index, channel,
 * column, origin and unit direction, float64: lidarRays' rays without the array. With `box` and
 * `range` (a sweep's images), only the rays of returns (box ≥ 0, range ≥ 0): each is the same
 * bits either way.
 */
function forEachRay(
  desc: LidarDescription, rows: readonly ColumnFrame[][], seed: number,
  emit: (r: number, c: number, a: number, ox: number, oy: number, oz: number, dx: number, dy: number, dz: number) => void,
  box?: ArrayLike<number>, range?: ArrayLike<number>,
): void {
  const A = desc.azimuthSteps;
  const C = desc.elevations.length;
  const tables = lidarTables(desc);
  // Per-ray azimuths only when some channel has an offset (else the column's cos/sin serve all).
  const perRay = hasAzimuthOffsets(desc) ? lidarRayAzimuths(desc) : undefined;
  const jitter = hasAngularNoise(desc);
  const sigmaAz = desc.noise?.azimuthStdDev ?? 0;
  const sigmaEl = desc.noise?.elevationStdDev ?? 0;
  for (let c = 0; c < C; c++) {
    // Channel c's own firings with per-laser data (its time, its encoder angle, its beam
    // origin's height), else the columns' frames.
    const frames = rows[rows.length > 1 ? c : 0]!;
    const ce0 = tables[2 * (A + c)]!;
    const se0 = tables[2 * (A + c) + 1]!;
    for (let a = 0; a < A; a++) {
      if (box && !(box[c * A + a]! >= 0 && range![c * A + a]! >= 0)) {
        continue;
      }
      const k = perRay ? c * A + a : a;
      let cos = perRay ? perRay[2 * k]! : tables[2 * a]!;
      let sin = perRay ? perRay[2 * k + 1]! : tables[2 * a + 1]!;
      let ce = ce0;
      let se = se0;
      if (jitter) {
        // The beam's jitter: azimuth φ + δ, elevation e + ε (angle addition).
        const h = pcg4d(c, a, seed, 0);
        const d = sigmaAz * gaussianOf(h[0]);
        const e = sigmaEl * gaussianOf(h[1]);
        [cos, sin] = [cos * detCos(d) - sin * detSin(d), sin * detCos(d) + cos * detSin(d)];
        [ce, se] = [ce * detCos(e) - se * detSin(e), se * detCos(e) + ce * detSin(e)];
      }
      // Indexed, not destructured: an array pattern per ray runs the iterator protocol.
      const frame = frames[a]!;
      const beamOrigin = frame.beamOrigin;
      const ax = frame.axes[0];
      const ay = frame.axes[1];
      const az = frame.axes[2];
      const lx = ce * cos;
      const ly = ce * sin;
      const lz = se;
      const dx = lx * ax[0] + ly * ay[0] + lz * az[0];
      const dy = lx * ax[1] + ly * ay[1] + lz * az[1];
      const dz = lx * ax[2] + ly * ay[2] + lz * az[2];
      const len = detHypot3(dx, dy, dz);
      emit(c * A + a, c, a, beamOrigin[0], beamOrigin[1], beamOrigin[2], dx / len, dy / len, dz / len);
    }
  }
}

/**
 * The boxes as they are at each ray's time: `at(a, c)` returns a BoxArray (one buffer, rewritten
 * when the time changes) with every listed moving box moved to τ_a + f_c (channel c's firing time
 * in column a; τ_a without `c` or firing-time offsets); the static boxes are `boxes`' own.
 * Without motion (or sweepTime 0) `at` returns `boxes` itself.
 */
export function columnBoxes(
  boxes: BoxArray, desc: LidarDescription, motion: BoxMotion | undefined,
): {
  /** Whether any box moves during the sweep. */
  readonly moving: boolean;
  /** The boxes at the time of channel `c`'s firing in column `a` (the column's time without `c`). */
  at(a: number, c?: number): BoxArray;
} {
  const T = desc.sweepTime ?? 0;
  if (!motion || motion.boxes.length === 0 || T === 0) {
    return { moving: false, at: () => boxes };
  }
  const data = Float64Array.from(boxes.data);
  const view: BoxArray = { count: boxes.count, data };
  const listed = Array.from({ length: motion.boxes.length }, (_, k) => ({ i: motion.boxes[k]!, ...motionOf(motion, k) }));
  let last = NaN;
  return {
    moving: true,
    at(a: number, c?: number): BoxArray {
      const f = c === undefined ? 0 : desc.firingTimeOffsets?.[c] ?? 0;
      const tau = f === 0 ? columnTime(desc, a) : columnTime(desc, a) + f;
      if (tau !== last) {
        for (const { i, v, w } of listed) {
          boxAtTime(boxes, i, v, w, tau, data, i);
        }
        last = tau;
      }
      return view;
    },
  };
}

/** One sub-ray pass of a reference sweep: its hits before minRange, its images after it. */
export interface ReferencePass {
  readonly range: Float64Array;
  readonly box: Int32Array;
  readonly closestBox: Int32Array;
  readonly closestT: Float64Array;
  /** Each hit's intensity (sweeps with a returns stage). */
  readonly intensity?: Float64Array;
}

/** A beam's second return (dual mode): range (−1 = none), box (−1), intensity (0). */
export interface ReferenceSecondReturn {
  readonly range: Float64Array;
  readonly box: Int32Array;
  readonly intensity: Float64Array;
}

/** A sweep by the reference: per ray the range (−1 = no return) and box (−1), per box the returns. */
export interface ReferenceSweep {
  readonly channels: number;
  readonly azimuths: number;
  readonly range: Float64Array;
  readonly box: Int32Array;
  /** The closest hit before minRange (box and t; −1 / Infinity for none): what the comparator judges. */
  readonly closestBox: Int32Array;
  readonly closestT: Float64Array;
  readonly returnsPerBox: Uint32Array;
  /**
   * With `intensity: true` (or a returns stage): each return's intensity (lidarIntensity; 0
   * where no return).
   */
  readonly intensity?: Float64Array;
  /**
   * With a returns stage (range noise, dropout): each pass's own hits and intensities, before
   * the returns were chosen, perturbed and dropped; the images above are the returns.
   */
  readonly passes?: readonly ReferencePass[];
  /** With a returns stage: the second return of each beam (dual mode; none otherwise). */
  readonly second?: ReferenceSecondReturn;
  /** With a returns stage: how many returns each beam kept (0 to 2). */
  readonly returnCount?: Uint8Array;
  /**
   * With a returns stage, per beam r and return k (index 2r + k): the pass the return came from
   * and the draw slot j it was perturbed with (pcg4d(c, a, seed, 1 + j)); −1 for none.
   */
  readonly returnSource?: { readonly pass: Int8Array; readonly slot: Int8Array };
}

/** Filters of a reference sweep (as the GPU sweep's `mask` over the set's box masks), and its progress. */
export interface ReferenceSweepOptions {
  readonly boxMasks?: Uint32Array;
  readonly mask?: number;
  /** Hears (rays done, rays, hits so far) every few thousand rays. */
  readonly onProgress?: AccelProgress;
  /** Also each return's intensity (the sensor's intensity model; `materials` for the reflectivities). */
  readonly intensity?: boolean;
  /** Per-box reflectivity (BoxSet.materials; default 1 for every box). */
  readonly materials?: { readonly reflectivity?: ArrayLike<number> };
  /** The noise seed (the sweep's; default 0), for a description with noise. */
  readonly seed?: number;
}

/** The box axes' offsets in a BOX_F64 record, in axis order. */
const BOX_AXES = [BOX_F64.U, BOX_F64.V, BOX_F64.W] as const;

/** hitIncidence's scratch (JavaScript runs one call at a time). */
const INCIDENCE_SCRATCH = { ratio: [0, 0, 0], cos: [0, 0, 0] };

/**
 * Where a point p on box i (record of `at`, BOX_F64 layout) lies and how a ray along d meets it
 * there: for each box axis k, how far out p is along it relative to the half extent, |q_k| / h_k
 * (q_k = (p − c) · u_k / |u_k|; a flat axis: 1 when q_k = 0, else Infinity — the GPU takes
 * F32_MAX), and the cosine |d · u_k| / |u_k| of the angle between d and that axis, the normal
 * of its faces. The twin of hitAxes in shaders/lidar/returns_common.wgsl.
 *
 * @example
 * const point = [10, 0.5, 0.2], direction = [1, 0, 0]; // a hit point on box 3, the ray's unit direction
 * const out = { ratio: [0, 0, 0], cos: [0, 0, 0] };
 * hitAxes(boxes.data, 3, point, direction, out); // out.ratio[k] near 1: p on a face of axis k
 */
export function hitAxes(at: Float64Array, i: number, p: readonly number[], d: readonly number[], out: { ratio: number[]; cos: number[] }): void {
  const b = i * BOX_F64.STRIDE;
  for (let k = 0; k < 3; k++) {
    const axis = BOX_AXES[k]!;
    const ux = at[b + axis]!;
    const uy = at[b + axis + 1]!;
    const uz = at[b + axis + 2]!;
    const len = detHypot3(ux, uy, uz);
    const q = ((p[0]! - at[b]!) * ux + (p[1]! - at[b + 1]!) * uy + (p[2]! - at[b + 2]!) * uz) / len;
    const h = at[b + BOX_F64.HALF + k]!;
    out.ratio[k] = h > 0 ? Math.abs(q) / h : Math.abs(q) > 0 ? Infinity : 1;
    out.cos[k] = Math.abs(d[0]! * ux + d[1]! * uy + d[2]! * uz) / len;
  }
}

/**
 * The cosine of the incidence angle of a ray along d at point p on box i: the face is that of
 * the axis along which p is farthest out relative to its half extent (hitAxes; the first such
 * axis on a tie). The twin of hitIncidence in shaders/lidar/returns_common.wgsl.
 *
 * @example
 * const point = [10, 0.5, 0.2], direction = [1, 0, 0]; // a hit point on box 3, the ray's unit direction
 * hitIncidence(boxes.data, 3, point, direction) // 1 head-on, 0 grazing
 */
export function hitIncidence(at: Float64Array, i: number, p: readonly number[], d: readonly number[]): number {
  // One scratch for every call (no allocation per point: the per-point fields call this per return).
  const axes = INCIDENCE_SCRATCH;
  hitAxes(at, i, p, d, axes);
  let best = -1;
  let cos = 0;
  for (let k = 0; k < 3; k++) {
    if (axes.ratio[k]! > best) {
      best = axes.ratio[k]!;
      cos = axes.cos[k]!;
    }
  }
  return cos;
}

/**
 * Rays per sweep the CPU reference holds: 2^24 = 16,777,216 (64 sweeps of a 128 × 2,048 sensor).
 * Each ray costs it about 100 bytes (the ray, the hit, the images) and a result file about 25
 * characters, so past this the result file's text alone nears what a JavaScript string may hold.
 */
export const MAX_REFERENCE_LIDAR_RAYS = 2 ** 24;

/**
 * Columns per sweep the CPU reference holds: 2^22 = 4,194,304 (1,000 × a 4,096-column sensor).
 * It keeps a frame object per column (columnFrames), a few hundred bytes each with motion.
 */
export const MAX_REFERENCE_LIDAR_COLUMNS = 2 ** 22;

/**
 * Refuses, before anything is allocated, a sweep larger than the CPU reference holds
 * (MAX_REFERENCE_LIDAR_RAYS, MAX_REFERENCE_LIDAR_COLUMNS) with a CapacityError saying so in one
 * line; the GPU has limits of its own.
 *
 * @example
 * checkReferenceSweep({ elevations: [0], azimuthSteps: 1e8, maxRange: 100 }); // throws CapacityError
 */
export function checkReferenceSweep(desc: LidarDescription): void {
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const rays = C * A;
  const what = `${C} ${C === 1 ? 'channel' : 'channels'} × ${A} columns = ${rays} rays per sweep`;
  if (rays > MAX_REFERENCE_LIDAR_RAYS) {
    throw new CapacityError(`${what} is more than the CPU reference holds (${MAX_REFERENCE_LIDAR_RAYS} = 2^24)`, 'MAX_REFERENCE_LIDAR_RAYS', rays, MAX_REFERENCE_LIDAR_RAYS);
  }
  if (A > MAX_REFERENCE_LIDAR_COLUMNS) {
    throw new CapacityError(`${what}: more columns than the CPU reference holds (${MAX_REFERENCE_LIDAR_COLUMNS} = 2^22)`, 'MAX_REFERENCE_LIDAR_COLUMNS', A, MAX_REFERENCE_LIDAR_COLUMNS);
  }
}

/**
 * Bounds of every box over a whole sweep, for a grid that serves every column: a static box's
 * padded AABB; a moving box's AABB swept from its centre at τ = 0 to τ = sweepTime (c + v·τ),
 * each side widened by its AABB half width, or its half diagonal when it spins (any turn of it
 * stays within that sphere).
 */
function sweptAabbs(boxes: BoxArray, desc: LidarDescription, motion: BoxMotion | undefined): Float64Array {
  const out = paddedAabbs(boxes);
  // The last ray fires at most the largest firing-time offset after the last column's time.
  const T = (desc.sweepTime ?? 0) + Math.max(0, ...(desc.firingTimeOffsets ?? []));
  if (!motion || T === 0) {
    return out;
  }
  const d = boxes.data;
  for (let k = 0; k < motion.boxes.length; k++) {
    const i = motion.boxes[k]!;
    const { v, w } = motionOf(motion, k);
    const o = i * BOX_F64.STRIDE;
    const spins = w[0] !== 0 || w[1] !== 0 || w[2] !== 0;
    const radius = detHypot3(d[o + BOX_F64.HALF]!, d[o + BOX_F64.HALF + 1]!, d[o + BOX_F64.HALF + 2]!);
    for (let j = 0; j < 3; j++) {
      const e = spins ? radius : aabbHalfWidthAt(d, o, j);
      const c0 = d[o + j]!;
      const c1 = c0 + v[j]! * T;
      const pad = 1e-7 * (e + Math.abs(c0) + Math.abs(c1)) + 1e-12;
      out[6 * i + j] = Math.min(c0, c1) - e - pad;
      out[6 * i + 3 + j] = Math.max(c0, c1) + e + pad;
    }
  }
  return out;
}

/**
 * One sweep by the float64 reference: closest hits of every ray against the boxes at the ray's
 * time, then minRange and maxRange, then the returns counted per box. Through a grid (the
 * accelerated reference, src/reference/accel.ts: the same answers as brute force); with moving
 * boxes one grid over their bounds for the whole sweep, each column's rays tested against the
 * boxes at its time. A sweep larger than the CPU holds is a CapacityError (checkReferenceSweep).
 *
 * @example
 * const ref = lidarSweepReference(boxes, desc, pose, motion); // motion: { poseEnd, boxMotion }
 * const c = 12, a = 301; // channel, column
 * ref.range[c * desc.azimuthSteps + a] // metres, −1 for no return
 */
export function lidarSweepReference(
  boxes: BoxArray, desc: LidarDescription, pose: LidarPose, motion: LidarMotion = {}, options: ReferenceSweepOptions = {},
): ReferenceSweep {
  checkMotion(motion, boxes.count);
  checkLidar(desc);
  checkReferenceSweep(desc);
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const seed = (options.seed ?? 0) >>> 0;
  const timed = columnBoxes(boxes, desc, motion.boxMotion);
  const reflectivity = options.materials?.reflectivity;
  if (!hasReturnStage(desc)) {
    // One pass, its hits the returns: the plain sweep (with angular noise, its rays perturbed).
    const rays = lidarRays(desc, pose, motion.poseEnd, { seed });
    const pass = sweepPass(boxes, desc, rays, timed, motion.boxMotion, options);
    const out = { channels: C, azimuths: A, range: pass.range, box: pass.box, closestBox: pass.closestBox, closestT: pass.closestT, returnsPerBox: countReturns(pass.box, boxes.count) };
    return options.intensity ? { ...out, intensity: returnIntensities(desc, rays, timed, pass.range, pass.box, reflectivity) } : out;
  }
  // The returns stage: each pass's hits and intensities, then each beam's returns, noise and dropout.
  const passes = beamPassDescriptions(desc).map((d) => {
    const rays = lidarRays(d, pose, motion.poseEnd, { seed });
    const pass = sweepPass(boxes, d, rays, timed, motion.boxMotion, options);
    return { ...pass, intensity: returnIntensities(d, rays, timed, pass.range, pass.box, reflectivity) };
  });
  const beams = beamReturns(desc, passes, seed);
  const returnsPerBox = countReturns(beams.box, boxes.count);
  for (const i of beams.second.box) {
    if (i >= 0) {
      returnsPerBox[i]!++;
    }
  }
  return {
    channels: C, azimuths: A, range: beams.range, box: beams.box, closestBox: passes[0]!.closestBox, closestT: passes[0]!.closestT,
    returnsPerBox, intensity: beams.intensity, second: beams.second, returnCount: beams.count, returnSource: beams.source, passes,
  };
}

/**
 * Whether a description's sweeps end in the returns stage (shaders/lidar/returns.wgsl): range
 * noise, dropout, or a beam (its sub-rays and return mode).
 */
export function hasReturnStage(desc: LidarDescription): boolean {
  return hasReturnNoise(desc) || desc.beam !== undefined;
}

/**
 * The descriptions whose sweeps are a beam's sub-ray passes (beamSubRayDescription), the beam's
 * own ray first (one pass without divergence).
 *
 * @example
 * beamPassDescriptions({ ...desc, beam: { divergence: [0.003, 0.0015] } }).length // 9: the centre and 8 on the ellipse
 */
export function beamPassDescriptions(desc: LidarDescription): LidarDescription[] {
  return beamSubRays(desc.beam).map((_, k) => beamSubRayDescription(desc, k));
}

/** One pass's closest hits (before minRange) and its images (after it). */
function sweepPass(
  boxes: BoxArray, desc: LidarDescription, rays: RayArray, timed: ReturnType<typeof columnBoxes>, boxMotion: BoxMotion | undefined, options: ReferenceSweepOptions,
): ReferencePass {
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  const closestBox = new Int32Array(n).fill(-1);
  const closestT = new Float64Array(n).fill(Infinity);
  const mask = (options.mask ?? 0xffffffff) >>> 0;
  const boxMasks = options.boxMasks;
  const onProgress = options.onProgress;
  if (!timed.moving) {
    const filters = boxMasks ? { boxMasks, rayMasks: new Uint32Array(n).fill(mask) } : {};
    const hits = closestHitGrid(boxes, rays, { ...filters, ...(onProgress ? { onProgress } : {}) });
    closestBox.set(hits.box);
    closestT.set(hits.t);
  } else {
    // Column by column: the C rays of column a against the boxes at their firing times (τ_a + f_c), ties to the smallest index.
    const grid = new BoxGrid(boxes, { aabbs: sweptAabbs(boxes, desc, boxMotion) });
    const s = makeRayObbScratch();
    let hits = 0;
    for (let a = 0; a < A; a++) {
      if (onProgress && a % 64 === 0) {
        onProgress(a * C, n, hits);
      }
      for (let c = 0; c < C; c++) {
        const at = timed.at(a, c).data;
        const r = c * A + a;
        grid.walk(rays, r, (b) => {
          if ((boxMasks && (boxMasks[b]! & mask) === 0) || !rayObbAt(at, b, rays.data, r, true, s)) {
            return;
          }
          if (s.t < closestT[r]! || (s.t === closestT[r]! && b < closestBox[r]!)) {
            closestBox[r] = b;
            closestT[r] = s.t;
          }
        }, () => closestT[r]!);
        if (closestBox[r]! >= 0) {
          hits++;
        }
      }
    }
    onProgress?.(n, n, hits);
  }
  const minRange = desc.minRange ?? 0;
  const range = new Float64Array(n).fill(-1);
  const box = new Int32Array(n).fill(-1);
  for (let r = 0; r < n; r++) {
    const i = closestBox[r]!;
    if (i >= 0 && closestT[r]! >= minRange) {
      range[r] = closestT[r]!;
      box[r] = i;
    }
  }
  return { range, box, closestBox, closestT };
}

/**
 * Each beam's returns from its passes' hits, then dropout and range noise: the float64 twin of
 * lidarReturns (shaders/lidar/returns.wgsl), in its order and with its tie rules (the smaller
 * pass on ties), its draws (pcg4d of (channel, column, seed, 1 + j) for return j) and its
 * thresholds (dropoutThreshold).
 */
function beamReturns(desc: LidarDescription, passes: readonly (ReferencePass & { readonly intensity: Float64Array })[], seed: number): {
  range: Float64Array; box: Int32Array; intensity: Float64Array; second: ReferenceSecondReturn; count: Uint8Array;
  source: { pass: Int8Array; slot: Int8Array };
} {
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  const noise = desc.noise ?? {};
  const mode = desc.beam?.returns ?? 'strongest';
  const minSeparation = desc.beam?.minSeparation ?? 1;
  const dropout = dropoutThreshold(noise.dropout ?? 0);
  const limit = noise.intensityDropout?.limit ?? 0;
  const atZero = noise.intensityDropout?.atZero ?? 0;
  const s0 = noise.rangeStdDev ?? 0;
  const s1 = noise.rangeStdDevPerUnit ?? 0;
  const range = new Float64Array(n).fill(-1);
  const box = new Int32Array(n).fill(-1);
  const intensity = new Float64Array(n);
  const second = { range: new Float64Array(n).fill(-1), box: new Int32Array(n).fill(-1), intensity: new Float64Array(n) };
  const count = new Uint8Array(n);
  const source = { pass: new Int8Array(2 * n).fill(-1), slot: new Int8Array(2 * n).fill(-1) };
  const P = passes.length;
  for (let r = 0; r < n; r++) {
    let s = -1;
    let l = -1;
    for (let p = 0; p < P; p++) {
      const q = passes[p]!;
      if (q.box[r]! < 0) {
        continue;
      }
      if (s < 0 || q.intensity[r]! > passes[s]!.intensity[r]!) {
        s = p;
      }
      if (l < 0 || q.range[r]! > passes[l]!.range[r]!) {
        l = p;
      }
    }
    const kept = [-1, -1];
    if (s >= 0) {
      if (mode === 'strongest') {
        kept[0] = s;
      } else if (mode === 'last') {
        kept[0] = l;
      } else {
        const gapEnd = passes[l]!.range[r]! - minSeparation;
        if (passes[s]!.range[r]! <= gapEnd) {
          kept[0] = s;
          kept[1] = l;
        } else {
          let s2 = -1;
          for (let p = 0; p < P; p++) {
            const q = passes[p]!;
            if (q.box[r]! < 0 || q.range[r]! > gapEnd) {
              continue;
            }
            if (s2 < 0 || q.intensity[r]! > passes[s2]!.intensity[r]!) {
              s2 = p;
            }
          }
          kept[0] = s2 >= 0 ? s2 : s;
          kept[1] = s2 >= 0 ? l : -1;
        }
      }
    }
    const c = Math.floor(r / A);
    const a = r % A;
    let k = 0;
    for (let j = 0; j < 2; j++) {
      const p = kept[j]!;
      if (p < 0) {
        continue;
      }
      const h = pcg4d(c, a, seed, 1 + j);
      const I = passes[p]!.intensity[r]!;
      const dropped = h[1] < dropout || (I < limit && uniformOf(h[2]) < atZero * (1 - I / limit));
      if (dropped) {
        continue;
      }
      let t = passes[p]!.range[r]!;
      if (s0 > 0 || s1 > 0) {
        t = Math.max(0, t + (s0 + s1 * t) * gaussianOf(h[0]));
      }
      const out = k === 0 ? { range, box, intensity } : second;
      out.range[r] = t;
      out.box[r] = passes[p]!.box[r]!;
      out.intensity[r] = I;
      source.pass[2 * r + k] = p;
      source.slot[2 * r + k] = j;
      k++;
    }
    count[r] = k;
  }
  return { range, box, intensity, second, count, source };
}

/**
 * Each return's intensity (lidarIntensity) from the range and box images: the point
 * origin + t · d on the box at its firing time, its incidence (hitIncidence), the box's
 * reflectivity (default 1). The twin of lidarHitIntensity (shaders/lidar/intensity.wgsl). 0
 * where there is no return.
 */
function returnIntensities(
  desc: LidarDescription, rays: RayArray, timed: ReturnType<typeof columnBoxes>,
  range: ArrayLike<number>, box: ArrayLike<number>, reflectivity: ArrayLike<number> | undefined,
): Float64Array {
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const out = new Float64Array(C * A);
  for (let a = 0; a < A; a++) {
    for (let c = 0; c < C; c++) {
      const r = c * A + a;
      const i = box[r]!;
      const t = range[r]!;
      if (!(i >= 0 && t >= 0)) {
        continue;
      }
      const at = timed.at(a, c).data;
      const o = r * 7;
      const d = [rays.data[o + 3]!, rays.data[o + 4]!, rays.data[o + 5]!];
      const p = [rays.data[o]! + t * d[0]!, rays.data[o + 1]! + t * d[1]!, rays.data[o + 2]! + t * d[2]!];
      const rho = reflectivity && i < reflectivity.length ? reflectivity[i]! : 1;
      out[r] = lidarIntensity(desc.intensity, rho, hitIncidence(at, i, p, d), t);
    }
  }
  return out;
}

/** Returns per box of a sweep's box image (−1 entries skipped). */
export function countReturns(box: Int32Array, boxCount: number): Uint32Array {
  const out = new Uint32Array(boxCount);
  for (const i of box) {
    if (i >= 0 && i < boxCount) {
      out[i]!++;
    }
  }
  return out;
}

/**
 * The per-point fields of a sweep, float64 on the host from its range and box images: each
 * return's xyz in the sensor frame at the ray's own time (beam origin + range · direction, in the
 * frame of the pose at the ray's firing time τ_a + f_c) and in world coordinates (never relative to a floating origin), the
 * ray's time, and the cosine of the incidence angle on the hit face (the face of the box at τ_a
 * whose slab the point lies on). Ring and column are ⌊r / A⌋ and r mod A. Fields of rays without
 * a return are 0.
 *
 * @example
 * const cloud = lidarPointFields(boxes, desc, pose, motion, sweep.range, sweep.box);
 * writePcd(cloud) // src/files/pointCloud.ts
 */
export function lidarPointFields(
  boxes: BoxArray, desc: LidarDescription, pose: LidarPose, motion: LidarMotion, range: ArrayLike<number>, box: ArrayLike<number>,
  options: { readonly seed?: number } = {},
): LidarPointCloud {
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  checkLidar(desc);
  checkPose(pose);
  if (motion.poseEnd !== undefined) {
    checkPose(motion.poseEnd, 'poseEnd');
  }
  // One row of frames per channel with per-laser data (each channel's firings), else one for all:
  // made once, for the rays and for the sensor frames below.
  const rows = sweepFrames(desc, pose, motion.poseEnd);
  const sensorXyz = new Float64Array(3 * n);
  const worldXyz = new Float64Array(3 * n);
  const time = new Float64Array(n);
  const incidence = new Float32Array(n);
  const outRange = new Float32Array(n);
  const outBox = new Int32Array(n);
  for (let c = 0; c < C; c++) {
    const frames = rows[rows.length > 1 ? c : 0]!;
    if (c > 0 && rows.length === 1) {
      // Every channel fires with its column: channel 0's times.
      time.copyWithin(c * A, 0, A);
    }
    for (let a = 0; a < A; a++) {
      const r = c * A + a;
      if (c === 0 || rows.length > 1) {
        time[r] = frames[a]!.time;
      }
      const i = box[r]!;
      outRange[r] = i >= 0 ? range[r]! : -1;
      outBox[r] = i >= 0 ? i : -1;
    }
  }
  // The boxes that move (columnBoxes' rule: listed, with sweepTime > 0): a return on one meets it
  // where boxAtTime puts it at the ray's firing time τ_a + f_c, the bits columnBoxes gives.
  const m = motion.boxMotion;
  const T = desc.sweepTime ?? 0;
  const motionOfBox = new Int32Array(boxes.count).fill(-1);
  const motions = m && T !== 0 ? Array.from({ length: m.boxes.length }, (_, k) => motionOf(m, k)) : [];
  motions.forEach((_, k) => {
    motionOfBox[m!.boxes[k]!] = k;
  });
  const moved = new Float64Array(BOX_F64.STRIDE);
  // Each static box's axis lengths (hitAxes' detHypot3), made once per box.
  const lengths = new Float64Array(3 * boxes.count).fill(NaN);
  // Each return's point and the fields, in ray order, from its ray (lidarRays' operations).
  forEachRay(desc, rows, (options.seed ?? 0) >>> 0, (r, c, a, ox, oy, oz, dx, dy, dz) => {
    const { position, axes } = rows[rows.length > 1 ? c : 0]![a]!;
    const i = box[r]!;
    const t = range[r]!;
    const px = ox + t * dx;
    const py = oy + t * dy;
    const pz = oz + t * dz;
    worldXyz[3 * r] = px;
    worldXyz[3 * r + 1] = py;
    worldXyz[3 * r + 2] = pz;
    const rx = px - position[0];
    const ry = py - position[1];
    const rz = pz - position[2];
    for (let k = 0; k < 3; k++) {
      const ax = axes[k]!;
      sensorXyz[3 * r + k] = rx * ax[0] + ry * ax[1] + rz * ax[2];
    }
    // The face: the box axis along which the point is farthest out, relative to the half extent
    // (hitIncidence, operation for operation, with the axis lengths kept per static box).
    const k0 = motionOfBox[i]!;
    let at = boxes.data;
    let b = i * BOX_F64.STRIDE;
    if (k0 >= 0) {
      const f = desc.firingTimeOffsets?.[c] ?? 0;
      boxAtTime(boxes, i, motions[k0]!.v, motions[k0]!.w, f === 0 ? columnTime(desc, a) : columnTime(desc, a) + f, moved, 0);
      at = moved;
      b = 0;
    }
    let best = -1;
    let cos = 0;
    for (let k = 0; k < 3; k++) {
      const axis = BOX_AXES[k]!;
      const ux = at[b + axis]!;
      const uy = at[b + axis + 1]!;
      const uz = at[b + axis + 2]!;
      let len = k0 >= 0 ? NaN : lengths[3 * i + k]!;
      if (Number.isNaN(len)) {
        len = detHypot3(ux, uy, uz);
        if (k0 < 0) {
          lengths[3 * i + k] = len;
        }
      }
      const q = ((px - at[b]!) * ux + (py - at[b + 1]!) * uy + (pz - at[b + 2]!) * uz) / len;
      const h = at[b + BOX_F64.HALF + k]!;
      const ratio = h > 0 ? Math.abs(q) / h : Math.abs(q) > 0 ? Infinity : 1;
      if (ratio > best) {
        best = ratio;
        cos = Math.abs(dx * ux + dy * uy + dz * uz) / len;
      }
    }
    incidence[r] = cos;
  }, box, range);
  return {
    channels: C, columns: A, range: outRange, box: outBox,
    sensorXyz, worldXyz, time, incidence,
  };
}

/**
 * The returns of a sweep compacted, in ray order: their points (4 floats each, as the sweep's
 * point buffer holds them) and ray indices — the CPU twin of lidarCompactFlags /
 * lidarCompactScatter (shaders/lidar/compact.wgsl). `box` as a sweep reads it back (−1 for no
 * return; −2, a ray left for the host, is not a return).
 *
 * @example
 * const { count, points, rays } = compactReturns(sweep.box, sweep.points!);
 */
export function compactReturns(box: Int32Array, points: Float32Array): { count: number; points: Float32Array; rays: Uint32Array } {
  const rays: number[] = [];
  for (let r = 0; r < box.length; r++) {
    if (box[r]! >= 0) {
      rays.push(r);
    }
  }
  const out = new Float32Array(4 * rays.length);
  rays.forEach((r, k) => out.set(points.subarray(4 * r, 4 * r + 4), 4 * k));
  return { count: rays.length, points: out, rays: Uint32Array.from(rays) };
}
