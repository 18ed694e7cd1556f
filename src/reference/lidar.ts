/**
 * A spinning LiDAR on the CPU, float64: the twin of the ray generation and the sweep kernels
 * (bvhLidar and lidarWalk in shaders/lidar/tree.wgsl, the raster method in
 * shaders/lidar/raster.wgsl). Every formula comes from src/core/lidar.ts (the contract): ray
 * (channel c, column a) has index c · azimuthSteps + a, starts at the column's beam origin, and
 * points along the channel's direction turned by the pose at the column's time; a moving box is
 * where it is at that time; a hit nearer than minRange is no return (the box still occludes).
 */
import type { BoxArray, RayArray, Vec3 } from '../core/types.ts';
import { BOX_F64 } from '../core/types.ts';
import { aabbHalfWidthAt } from '../core/helpers.ts';
import { CapacityError } from '../errors.ts';
import type { LidarPointCloud } from '../files/pointCloud.ts';
import {
  boxAtTime, checkLidar, hasAzimuthOffsets, checkMotion, checkPose, columnFrames, lidarRayAzimuths, lidarTables, motionOf,
  type BoxMotion, type LidarDescription, type LidarMotion, type LidarPose,
} from '../core/lidar.ts';
import { BoxGrid, closestHitGrid, paddedAabbs, type AccelProgress } from './accel.ts';
import { makeRayObbScratch, rayObbAt } from './query/rayObb.ts';

export { checkLidar, checkPose, lidarTables, linearElevations, poseAxes, type LidarDescription, type LidarPose } from '../core/lidar.ts';

/**
 * Every ray of one sweep, float64 (channel-major: index c · azimuthSteps + a). With `poseEnd`
 * (and sweepTime > 0) each column's rays start from the pose at its own time.
 *
 * @example
 * const rays = lidarRays({ elevations: linearElevations(128, -25, 15), azimuthSteps: 2048, maxRange: 200 }, { origin: [0, 0, 2] });
 * closestHit(boxes, rays) // the reference range image (before minRange)
 */
export function lidarRays(desc: LidarDescription, pose: LidarPose, poseEnd?: LidarPose): RayArray {
  checkLidar(desc);
  checkPose(pose);
  if (poseEnd !== undefined) {
    checkPose(poseEnd, 'poseEnd');
  }
  const frames = columnFrames(desc, pose, poseEnd);
  const A = desc.azimuthSteps;
  const C = desc.elevations.length;
  const tables = lidarTables(desc);
  // Per-ray azimuths only when some channel has an offset (else the column's cos/sin serve all).
  const perRay = hasAzimuthOffsets(desc) ? lidarRayAzimuths(desc) : undefined;
  const data = new Float64Array(C * A * 7);
  for (let c = 0; c < C; c++) {
    const ce = tables[2 * (A + c)]!;
    const se = tables[2 * (A + c) + 1]!;
    for (let a = 0; a < A; a++) {
      const k = perRay ? c * A + a : a;
      const cos = perRay ? perRay[2 * k]! : tables[2 * a]!;
      const sin = perRay ? perRay[2 * k + 1]! : tables[2 * a + 1]!;
      const { beamOrigin, axes: [ax, ay, az] } = frames[a]!;
      const lx = ce * cos;
      const ly = ce * sin;
      const lz = se;
      const dx = lx * ax[0] + ly * ay[0] + lz * az[0];
      const dy = lx * ax[1] + ly * ay[1] + lz * az[1];
      const dz = lx * ax[2] + ly * ay[2] + lz * az[2];
      const len = Math.hypot(dx, dy, dz);
      const o = (c * A + a) * 7;
      data[o] = beamOrigin[0];
      data[o + 1] = beamOrigin[1];
      data[o + 2] = beamOrigin[2];
      data[o + 3] = dx / len;
      data[o + 4] = dy / len;
      data[o + 5] = dz / len;
      data[o + 6] = desc.maxRange;
    }
  }
  return { count: C * A, data };
}

/**
 * The boxes as they are at each column's time: `at(a)` returns a BoxArray (one buffer, rewritten
 * per call) with every listed moving box moved to τ_a; the static boxes are `boxes`' own. Without
 * motion (or sweepTime 0) `at` returns `boxes` itself.
 */
export function columnBoxes(
  boxes: BoxArray, desc: LidarDescription, motion: BoxMotion | undefined,
): {
  /** Whether any box moves during the sweep. */
  readonly moving: boolean;
  /** The boxes at column `a`'s time. */
  at(a: number): BoxArray;
} {
  const T = desc.sweepTime ?? 0;
  if (!motion || motion.boxes.length === 0 || T === 0) {
    return { moving: false, at: () => boxes };
  }
  const data = Float64Array.from(boxes.data);
  const view: BoxArray = { count: boxes.count, data };
  const listed = Array.from({ length: motion.boxes.length }, (_, k) => ({ i: motion.boxes[k]!, ...motionOf(motion, k) }));
  return {
    moving: true,
    at(a: number): BoxArray {
      const tau = (T * a) / desc.azimuthSteps;
      for (const { i, v, w } of listed) {
        boxAtTime(boxes, i, v, w, tau, data, i);
      }
      return view;
    },
  };
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
}

/** Filters of a reference sweep (as the GPU sweep's `mask` over the set's box masks), and its progress. */
export interface ReferenceSweepOptions {
  readonly boxMasks?: Uint32Array;
  readonly mask?: number;
  /** Hears (rays done, rays, hits so far) every few thousand rays. */
  readonly onProgress?: AccelProgress;
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
  const T = desc.sweepTime ?? 0;
  if (!motion || T === 0) {
    return out;
  }
  const d = boxes.data;
  for (let k = 0; k < motion.boxes.length; k++) {
    const i = motion.boxes[k]!;
    const { v, w } = motionOf(motion, k);
    const o = i * BOX_F64.STRIDE;
    const spins = w[0] !== 0 || w[1] !== 0 || w[2] !== 0;
    const radius = Math.hypot(d[o + BOX_F64.HALF]!, d[o + BOX_F64.HALF + 1]!, d[o + BOX_F64.HALF + 2]!);
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
  const rays = lidarRays(desc, pose, motion.poseEnd);
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  const closestBox = new Int32Array(n).fill(-1);
  const closestT = new Float64Array(n).fill(Infinity);
  const mask = (options.mask ?? 0xffffffff) >>> 0;
  const boxMasks = options.boxMasks;
  const timed = columnBoxes(boxes, desc, motion.boxMotion);
  const onProgress = options.onProgress;
  if (!timed.moving) {
    const filters = boxMasks ? { boxMasks, rayMasks: new Uint32Array(n).fill(mask) } : {};
    const hits = closestHitGrid(boxes, rays, { ...filters, ...(onProgress ? { onProgress } : {}) });
    closestBox.set(hits.box);
    closestT.set(hits.t);
  } else {
    // Column by column: the C rays of column a against the boxes at τ_a, ties to the smallest index.
    const grid = new BoxGrid(boxes, { aabbs: sweptAabbs(boxes, desc, motion.boxMotion) });
    const s = makeRayObbScratch();
    let hits = 0;
    for (let a = 0; a < A; a++) {
      if (onProgress && a % 64 === 0) {
        onProgress(a * C, n, hits);
      }
      const at = timed.at(a).data;
      for (let c = 0; c < C; c++) {
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
  const returnsPerBox = new Uint32Array(boxes.count);
  for (let r = 0; r < n; r++) {
    const i = closestBox[r]!;
    if (i >= 0 && closestT[r]! >= minRange) {
      range[r] = closestT[r]!;
      box[r] = i;
      returnsPerBox[i]!++;
    }
  }
  return { channels: C, azimuths: A, range, box, closestBox, closestT, returnsPerBox };
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
 * frame of the pose at τ_a) and in world coordinates (never relative to a floating origin), the
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
): LidarPointCloud {
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  const rays = lidarRays(desc, pose, motion.poseEnd);
  const frames = columnFrames(desc, pose, motion.poseEnd);
  const timed = columnBoxes(boxes, desc, motion.boxMotion);
  const sensorXyz = new Float64Array(3 * n);
  const worldXyz = new Float64Array(3 * n);
  const time = new Float64Array(n);
  const incidence = new Float32Array(n);
  const S = BOX_F64.STRIDE;
  for (let a = 0; a < A; a++) {
    const { time: tau, position, axes } = frames[a]!;
    const at = timed.at(a).data;
    for (let c = 0; c < C; c++) {
      const r = c * A + a;
      time[r] = tau;
      const i = box[r]!;
      const t = range[r]!;
      if (!(i >= 0 && t >= 0)) {
        continue;
      }
      const o = r * 7;
      const d: Vec3 = [rays.data[o + 3]!, rays.data[o + 4]!, rays.data[o + 5]!];
      const p: Vec3 = [rays.data[o]! + t * d[0], rays.data[o + 1]! + t * d[1], rays.data[o + 2]! + t * d[2]];
      worldXyz.set(p, 3 * r);
      const rel: Vec3 = [p[0] - position[0], p[1] - position[1], p[2] - position[2]];
      for (let k = 0; k < 3; k++) {
        sensorXyz[3 * r + k] = rel[0] * axes[k]![0] + rel[1] * axes[k]![1] + rel[2] * axes[k]![2];
      }
      // The face: the box axis along which the point is farthest out, relative to the half extent.
      const b = i * S;
      let best = -1;
      let cos = 0;
      for (const [k, axis] of [BOX_F64.U, BOX_F64.V, BOX_F64.W].entries()) {
        const ux = at[b + axis]!;
        const uy = at[b + axis + 1]!;
        const uz = at[b + axis + 2]!;
        const len = Math.hypot(ux, uy, uz);
        const q = ((p[0] - at[b]!) * ux + (p[1] - at[b + 1]!) * uy + (p[2] - at[b + 2]!) * uz) / len;
        const h = at[b + BOX_F64.HALF + k]!;
        const out = h > 0 ? Math.abs(q) / h : Math.abs(q) > 0 ? Infinity : 1;
        if (out > best) {
          best = out;
          cos = Math.abs(d[0] * ux + d[1] * uy + d[2] * uz) / len;
        }
      }
      incidence[r] = cos;
    }
  }
  return {
    channels: C, columns: A,
    range: Float32Array.from(range, (x, r) => (box[r]! >= 0 ? x : -1)),
    box: Int32Array.from(box, (x) => (x >= 0 ? x : -1)),
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
