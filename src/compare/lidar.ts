/**
 * A LiDAR sweep judged against the float64 reference: every ray classified (agree / ambiguous /
 * mismatch, the case naming its channel and column) from the sweep's range and box images alone,
 * and the per-box return counts judged against the reference's. The rays, the boxes at each
 * ray's firing time and minRange come from the contract (src/core/lidar.ts, src/reference/lidar.ts).
 */
import type { BoxArray, RayArray, Vec3 } from '../core/types.ts';
import { BOX_F64, RAY_F64 } from '../core/types.ts';
import { checkMotion, dropoutThreshold, firingGroups, lidarIntensity, type LidarDescription, type LidarMotion, type LidarPose } from '../core/lidar.ts';
import { FACE_NONE } from '../constants.ts';
import {
  beamPassDescriptions, columnBoxes, countReturns, gaussianOf, hitAxes, lidarRays, lidarSweepReference, pcg4d, uniformOf,
} from '../reference/lidar.ts';
import { closestHitGrid } from '../reference/accel.ts';
import type { ClosestHits } from '../reference/raycast.ts';
import { makeRayObbScratch, rayObbAt, type RayObbScratch } from '../reference/query/rayObb.ts';
import { compareClosestHits, Tally, type CaseReport, type CompareOptions, type Comparison } from './compare.ts';
import { F32_UNIT_ROUNDOFF, K_RAY, rayDistanceBound } from './errorModel.ts';

/** What a sweep comparison needs: the inputs the implementation saw. */
export interface LidarCompareInput {
  readonly boxes: BoxArray;
  readonly desc: LidarDescription;
  readonly pose: LidarPose;
  readonly motion?: LidarMotion;
  /** Box masks of the set and the sweep's mask (default: none). */
  readonly boxMasks?: Uint32Array;
  readonly mask?: number;
  /** The floating origin the implementation's positions were re-based to (default [0, 0, 0]). */
  readonly origin?: Vec3;
  readonly unitRoundoff?: number;
  /** Judge only these columns (a spot check of a large sweep); default every column. */
  readonly columns?: readonly number[];
  /** Per-box reflectivity the implementation used (BoxSet.materials; default 1 for every box). */
  readonly materials?: { readonly reflectivity?: ArrayLike<number> };
  /** The sweep's noise seed (a description with noise; default 0). */
  readonly seed?: number;
}

/** Every case of a sweep is listed by the per-column comparisons up to this many (then counted only). */
const INNER_CASES = 100_000;

/** A sweep's comparison, with every ray it found ambiguous (for compareReturnsPerBox). */
export interface LidarComparison extends Comparison {
  readonly ambiguousRays: ReadonlySet<number>;
}

/** The images of a sweep: range (−1 = no return) and box (−1 = none), channel-major. */
export interface SweepImages {
  readonly range: ArrayLike<number>;
  readonly box: ArrayLike<number>;
}

/**
 * Classifies every ray of a sweep. Ray r (channel c = ⌊r / A⌋, column a = r mod A) is judged
 * like a closest hit without face or inside flag, against the boxes at its firing time (τ_a + f_c), with
 * the sensor's minRange ('min-range-edge' when the hit is within its bound of it).
 *
 * @example
 * const cmp = compareLidarSweep({ boxes, desc, pose, motion, origin: set.origin }, await gpu.lidarSweep(sensor, set, pose, motion));
 * cmp.ok // no mismatch; cmp.cases[k].detail names "channel 12, column 301"
 */
export function compareLidarSweep(input: LidarCompareInput, sweep: SweepImages, options: CompareOptions = {}): LidarComparison {
  const { desc, boxes } = input;
  checkMotion(input.motion ?? {}, boxes.count);
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  const columns = input.columns;
  if (columns && !columns.every((a) => Number.isInteger(a) && a >= 0 && a < A)) {
    throw new RangeError(`compareLidarSweep: columns must be column indices below ${A}`);
  }
  if (sweep.range.length !== n || sweep.box.length !== n) {
    throw new RangeError(`compareLidarSweep: the sweep has ${sweep.range.length} ranges and ${sweep.box.length} boxes for ${C} × ${A} = ${n} rays`);
  }
  const rays = lidarRays(desc, input.pose, input.motion?.poseEnd, { seed: input.seed ?? 0 });
  const timed = columnBoxes(boxes, desc, input.motion?.boxMotion);
  const common = {
    ...(input.origin ? { origin: input.origin } : {}),
    ...(input.unitRoundoff !== undefined ? { unitRoundoff: input.unitRoundoff } : {}),
    minDistance: desc.minRange ?? 0,
    // The implementation derives the rays itself (sines, cosines, the pose): nothing is exact.
    exactInputs: false,
  };
  const tally = new Tally(options.maxCases ?? 20);
  const where = (r: number): string => `channel ${Math.floor(r / A)}, column ${r % A}`;
  const ambiguousRays = new Set<number>();
  const absorb = (cmp: Comparison, index: (k: number) => number): void => {
    tally.agreeing(cmp.agree);
    tally.worstRatio = Math.max(tally.worstRatio, cmp.worstRatio);
    const listed = new Map<string, number>();
    for (const c of cmp.cases) {
      const r = index(c.index);
      if (c.verdict === 'ambiguous') {
        ambiguousRays.add(r);
      }
      listed.set(`${c.verdict}:${c.reason}`, (listed.get(`${c.verdict}:${c.reason}`) ?? 0) + 1);
      tally.add({ ...c, index: r, detail: c.detail.replace(/^ray \d+:/, `ray ${r} (${where(r)}):`), input: { ...c.input, channel: Math.floor(r / A), column: r % A } } satisfies CaseReport);
    }
    // Cases beyond the inner lists (INNER_CASES) are counted by reason only.
    for (const [verdict, byReason] of [['ambiguous', cmp.ambiguousByReason], ['mismatch', cmp.mismatchByReason]] as const) {
      for (const [reason, count] of Object.entries(byReason)) {
        tally.counted(verdict, reason, count - (listed.get(`${verdict}:${reason}`) ?? 0));
      }
    }
  };
  const hitsOf = (index: (k: number) => number, count: number): ClosestHits => {
    const box = new Int32Array(count);
    const t = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const r = index(k);
      box[k] = sweep.box[r]! < 0 ? -1 : sweep.box[r]!;
      t[k] = box[k]! >= 0 ? sweep.range[r]! : Infinity;
    }
    return { count, box, t, face: new Uint8Array(count).fill(0xff), inside: new Uint8Array(count) };
  };
  const filters = (count: number) => (input.boxMasks
    ? { options: { boxMasks: input.boxMasks, rayMasks: new Uint32Array(count).fill((input.mask ?? 0xffffffff) >>> 0) } }
    : {});
  const quiet = { ...options, checkFaces: false, maxCases: INNER_CASES };
  if (!timed.moving && !columns) {
    // The reference's closest hits through the exact grid broad phase (src/reference/accel.ts),
    // not the brute force the comparator would otherwise run: the same answers, hours faster
    // on a sweep over 100k boxes.
    const f = filters(n);
    const ref = closestHitGrid(boxes, rays, 'options' in f ? f.options : {});
    absorb(compareClosestHits({ boxes, rays, ...common, ...f }, hitsOf((k) => k, n), ref, quiet), (k) => k);
  } else {
    // Column by column, and within a column by firing time (firingGroups: the channels that fire
    // together see the moving boxes at one time).
    const S = rays.data.length / n;
    const { group, offsets } = firingGroups(desc);
    const members = offsets.map((_, g) => Array.from({ length: C }, (_, c) => c).filter((c) => group[c] === g));
    for (const a of columns ?? Array.from({ length: A }, (_, k) => k)) {
      for (const channels of members) {
        const m = channels.length;
        const column = { count: m, data: new Float64Array(m * S) };
        channels.forEach((c, k) => column.data.set(rays.data.subarray((c * A + a) * S, (c * A + a + 1) * S), k * S));
        const index = (k: number): number => channels[k]! * A + a;
        absorb(compareClosestHits({ boxes: timed.at(a, channels[0]), rays: column, ...common, ...filters(m) }, hitsOf(index, m), undefined, quiet), index);
      }
    }
  }
  return { ...tally.result('lidarSweep', columns ? C * columns.length : n), ambiguousRays };
}

/**
 * Judges per-box return counts (visibility counts for ground-truth labels) against the reference
 * sweep's: a box agrees when the counts are equal, is ambiguous when they differ by no more than
 * the rays the ray comparison found ambiguous that involve it, and is a mismatch otherwise.
 * `returnsPerBox` defaults to the counts of `sweep.box` (so only the images are judged).
 */
export function compareReturnsPerBox(
  referenceBox: ArrayLike<number>, sweep: SweepImages & { readonly returnsPerBox?: ArrayLike<number> }, boxCount: number,
  ambiguousRays: ReadonlySet<number> = new Set(), options: CompareOptions = {},
): Comparison {
  const ref = countReturns(Int32Array.from(referenceBox), boxCount);
  const own = sweep.returnsPerBox ?? countReturns(Int32Array.from(sweep.box), boxCount);
  if (own.length !== boxCount) {
    throw new RangeError(`compareReturnsPerBox: ${own.length} counts for ${boxCount} boxes`);
  }
  const slack = new Uint32Array(boxCount);
  for (const r of ambiguousRays) {
    for (const b of [referenceBox[r]!, sweep.box[r]!]) {
      if (b >= 0 && b < boxCount) {
        slack[b]!++;
      }
    }
  }
  const tally = new Tally(options.maxCases ?? 20);
  for (let b = 0; b < boxCount; b++) {
    const diff = Math.abs(own[b]! - ref[b]!);
    if (diff === 0) {
      tally.ok();
      continue;
    }
    const verdict = diff <= slack[b]! ? 'ambiguous' : 'mismatch';
    tally.add({
      index: b, verdict, reason: verdict === 'ambiguous' ? 'ambiguous-rays' : 'return-count',
      detail: `box ${b}: ${own[b]} returns, reference ${ref[b]} (${slack[b]} ambiguous rays involve it)`, input: { box: b },
    });
  }
  return tally.result('lidarReturnsPerBox', boxCount);
}

/**
 * A reference hit of ray r on box b (at its column's time) with its error bounds, as the ray
 * comparator makes them (./compare.ts, diagnoseRayBox): t, the bound on |t_impl − t| through the
 * entered face, and the scale |o| + |c| + |h| from the floating origin.
 */
function hitBounds(at: Float64Array, b: number, rays: RayArray, r: number, origin: Vec3, u: number, s: RayObbScratch): { hit: boolean; t: number; tBound: number; scale: number } {
  const hit = rayObbAt(at, b, rays.data, r, true, s);
  const ro = r * RAY_F64.STRIDE;
  const bo = b * BOX_F64.STRIDE;
  const rd = rays.data;
  const scale = Math.hypot(rd[ro]! - origin[0], rd[ro + 1]! - origin[1], rd[ro + 2]! - origin[2]) +
    Math.hypot(at[bo]! - origin[0], at[bo + 1]! - origin[1], at[bo + 2]! - origin[2]) +
    Math.hypot(at[bo + 3]!, at[bo + 4]!, at[bo + 5]!);
  const k = s.nearFace === FACE_NONE ? -1 : s.nearFace >> 1;
  const dk = k === 0 ? s.dx : k === 1 ? s.dy : s.dz;
  return { hit, t: hit ? s.t : Infinity, tBound: hit && k >= 0 && s.t > 0 ? rayDistanceBound(scale, s.t, dk, u) : 0, scale };
}

/**
 * Bound on |I_impl − I| for a return of intensity model `desc.intensity` at range t (bound tBound)
 * off a face at cosine `cos`, reflectivity ρ, unit roundoff u. The implementation's point is off
 * by at most its t bound plus K_RAY·u·(scale + t) (its derived direction and origin), which
 * moves nothing here but the face choice (candidate faces, below); its cosine |d · n| / |n| is
 * off by ≲ 12u to first order (the derived direction ≲ 8u, the axis u, the dot and the division
 * 3u): 32u. The range factor (r₀ / r)² is off relatively by 2·tBound / t + 4u; the atmospheric
 * e^(−a·r) by a·tBound (the range) + (3 + 2a·r)·u (WGSL's exp: 3 + 2|x| ulp) + a·r·u (the
 * product's rounding); the three products by 3u. Every term doubled, as K_RAY doubles the
 * first-order ray constant; min(1, ·) only shrinks a difference.
 */
function intensityBound(desc: LidarDescription, rho: number, cos: number, t: number, tBound: number, u: number): number {
  const r0 = desc.intensity?.referenceRange ?? 0;
  const a = desc.intensity?.atmosphere ?? 0;
  const q = r0 > 0 ? r0 / Math.max(t, r0 * 1e-6) : 1;
  const falloff = q * q;
  const atm = a > 0 ? Math.exp(-a * t) : 1;
  const relFalloff = r0 > 0 ? (t > r0 * 1e-6 ? (2 * tBound) / t : 0) + 4 * u : 0;
  const relAtm = a > 0 ? a * tBound + (4 + 3 * a * t) * u : 0;
  const value = rho * cos * falloff * atm;
  return 2 * (rho * falloff * atm * 32 * u + value * (relFalloff + relAtm + 3 * u));
}

/**
 * Judges each return's intensity (the sweep's `intensity: true`) against the float64 model at
 * the reference's hit: I = lidarIntensity(desc.intensity, ρ, cos α, t) with cos α at the face
 * the hit point lies on (hitAxes: the axis with the largest |q_k| / h_k). Near an edge or a
 * corner the implementation's point may pick another face: every face whose ratio is within the
 * point's bound of the largest is a candidate (a flat axis always is), and the intensity agrees
 * when it lies within its bound (intensityBound) of a candidate's. Rays the sweep comparison
 * found ambiguous (`ambiguousRays`, compareLidarSweep's) and rays whose box differs from the
 * reference's are not judged ('ray-ambiguous'); a ray without a return must have intensity 0.
 *
 * @example
 * const sweep = await gpu.lidarSweep(sensor, set, pose, { intensity: true });
 * const input = { boxes: set.boxes, desc: sensor.desc, pose, origin: set.origin, materials: set.materials ?? {} };
 * const rays = compareLidarSweep(input, sweep);
 * const intensity = compareLidarIntensity(input, { ...sweep, intensity: sweep.intensity! }, rays.ambiguousRays);
 * intensity.ok // every return's intensity within its bound
 */
export function compareLidarIntensity(
  input: LidarCompareInput, sweep: SweepImages & { readonly intensity: ArrayLike<number> }, ambiguousRays: ReadonlySet<number> = new Set(),
  options: CompareOptions = {},
): Comparison {
  const { desc, boxes } = input;
  checkMotion(input.motion ?? {}, boxes.count);
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  if (sweep.range.length !== n || sweep.box.length !== n || sweep.intensity.length !== n) {
    throw new RangeError(`compareLidarIntensity: the sweep has ${sweep.range.length} ranges, ${sweep.box.length} boxes and ${sweep.intensity.length} intensities for ${C} × ${A} = ${n} rays`);
  }
  const rays = lidarRays(desc, input.pose, input.motion?.poseEnd, { seed: input.seed ?? 0 });
  const timed = columnBoxes(boxes, desc, input.motion?.boxMotion);
  const origin = input.origin ?? [0, 0, 0];
  const u = input.unitRoundoff ?? F32_UNIT_ROUNDOFF;
  const reflectivity = input.materials?.reflectivity;
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeRayObbScratch();
  const columns = input.columns ?? Array.from({ length: A }, (_, a) => a);
  let judged = 0;
  for (const a of columns) {
    for (let c = 0; c < C; c++) {
      const at = timed.at(a, c).data;
      const r = c * A + a;
      judged++;
      const i = sweep.box[r]!;
      const got = sweep.intensity[r]!;
      const where = `ray ${r} (channel ${c}, column ${a})`;
      const mk = (verdict: 'ambiguous' | 'mismatch', reason: string, detail: string): CaseReport =>
        ({ index: r, verdict, reason, detail: `${where}: ${detail}`, input: { channel: c, column: a, box: i } });
      if (!Number.isFinite(got)) {
        tally.add(mk('mismatch', 'not-finite', `intensity ${got}`));
        continue;
      }
      if (i < 0) {
        if (got === 0) {
          tally.ok();
        } else {
          tally.add(mk('mismatch', 'intensity-no-return', `intensity ${got} without a return (0 expected)`));
        }
        continue;
      }
      if (ambiguousRays.has(r)) {
        tally.add(mk('ambiguous', 'ray-ambiguous', 'the ray itself is ambiguous: its intensity is not judged'));
        continue;
      }
      const hit = returnOf(desc, at, i, rays, r, origin, u, reflectivity, s);
      if (!hit) {
        // The sweep comparison agreed on this box, so only an ambiguous ray gets here.
        tally.add(mk('ambiguous', 'ray-ambiguous', `the reference misses box ${i}`));
        continue;
      }
      let best = Infinity;
      let expected = NaN;
      let bound = 0;
      for (const { value, bound: kb } of hit.candidates) {
        const err = Math.abs(got - value);
        if (err / Math.max(kb, 1e-300) < best) {
          best = err / Math.max(kb, 1e-300);
          expected = value;
          bound = kb;
        }
      }
      if (best <= 1) {
        tally.ok(best);
      } else {
        tally.add(mk('mismatch', 'intensity', `box ${i} at t ${hit.t}: intensity ${got}, reference ${expected} (|Δ| ${Math.abs(got - expected)} > bound ${bound})`));
      }
    }
  }
  return tally.result('lidarIntensity', judged);
}

/** A reference return with its bounds: t and its bound, and the intensity of each candidate face with its bound. */
interface ReturnBounds {
  readonly t: number;
  readonly tBound: number;
  readonly candidates: readonly { readonly value: number; readonly bound: number }[];
}

/**
 * The reference's return of ray r on box i (at its column's time, `at`), with its bounds: the
 * hit's t and t bound, and the intensity at every face the implementation's hit point may lie
 * on (see compareLidarIntensity) with its bound. Undefined when the reference misses the box.
 */
function returnOf(
  desc: LidarDescription, at: Float64Array, i: number, rays: RayArray, r: number, origin: Vec3, u: number,
  reflectivity: ArrayLike<number> | undefined, s: RayObbScratch,
): ReturnBounds | undefined {
  const hb = hitBounds(at, i, rays, r, origin, u, s);
  if (!hb.hit) {
    return undefined;
  }
  const o = r * RAY_F64.STRIDE;
  const d = [rays.data[o + 3]!, rays.data[o + 4]!, rays.data[o + 5]!];
  const p = [rays.data[o]! + hb.t * d[0]!, rays.data[o + 1]! + hb.t * d[1]!, rays.data[o + 2]! + hb.t * d[2]!];
  const axes = { ratio: [0, 0, 0], cos: [0, 0, 0] };
  hitAxes(at, i, p, d, axes);
  const pointBound = hb.tBound + K_RAY * u * (hb.scale + hb.t);
  const b = i * BOX_F64.STRIDE;
  const slack = (k: number): number => {
    const h = at[b + BOX_F64.HALF + k]!;
    return h > 0 ? (pointBound + K_RAY * u * hb.scale) / h : Infinity;
  };
  let top = -Infinity;
  for (let k = 0; k < 3; k++) {
    top = Math.max(top, axes.ratio[k]! - slack(k));
  }
  const rho = reflectivity && i < reflectivity.length ? reflectivity[i]! : 1;
  const candidates: { value: number; bound: number }[] = [];
  for (let k = 0; k < 3; k++) {
    if (axes.ratio[k]! + slack(k) >= top) {
      candidates.push({ value: lidarIntensity(desc.intensity, rho, axes.cos[k]!, hb.t), bound: intensityBound(desc, rho, axes.cos[k]!, hb.t, hb.tBound, u) });
    }
  }
  return { t: hb.t, tBound: hb.tBound, candidates };
}

/** What compareLidarReturns judges: a sweep with a returns stage, read back with `passes: true`. */
export interface LidarReturnImages extends SweepImages {
  /** Each beam's first return's intensity. */
  readonly intensity: ArrayLike<number>;
  /** Each sub-ray pass's hits before the returns stage (the beam's own ray first). */
  readonly passes: readonly (SweepImages & { readonly intensity: ArrayLike<number> })[];
  /** The second returns (dual mode). */
  readonly second?: { readonly range: ArrayLike<number>; readonly box: ArrayLike<number>; readonly intensity: ArrayLike<number> } | undefined;
  /** Returns per beam (default: 1 where `box` has one). */
  readonly returnCount?: ArrayLike<number> | undefined;
}

/** A sweep with a returns stage judged: each pass's rays and intensities, then each beam's returns. */
export interface LidarReturnsComparison {
  readonly passes: readonly { readonly rays: LidarComparison; readonly intensity: Comparison }[];
  readonly returns: Comparison;
  /** No mismatch anywhere. */
  readonly ok: boolean;
}

/**
 * Judges a sweep whose beams pass through the returns stage (range noise, dropout, a beam;
 * docs/lidar.md, "Noise and dropout"), read back with `passes: true`, in two steps:
 * 1. each sub-ray pass ray by ray, as compareLidarSweep and compareLidarIntensity judge a sweep
 *    (the rays perturbed by the same seed, so the reference casts the very rays the GPU cast);
 * 2. each beam's returns against the reference's (lidarSweepReference with the same seed): the
 *    same count, and each return the same box, its range within (1 + σ₁|z|) · t-bound +
 *    4u · (|r′| + |σ z|) of the reference's noisy range (z is the same deviate on both sides:
 *    lidar/noise.wgsl; the bound is the hit's plus float32's evaluation of r + (σ₀ + σ₁ r) z), its
 *    intensity within its bound. A beam that differs is ambiguous when one of its sub-rays was
 *    ('sub-ray'), when the reference's choice is within the bounds of going the other way (two
 *    hits' intensities, or ranges, within their bounds of each other: 'selection-tie'; a range
 *    within its bound of the dual mode's separation: 'separation-edge'), or when an
 *    intensity-based dropout's draw is within the bound of its probability ('dropout-edge');
 *    random dropout is exact (an integer comparison on both sides). Anything else is a mismatch.
 *
 * @example
 * const sweep = await gpu.lidarSweep(sensor, set, pose, { seed: 7, passes: true, intensity: true });
 * const input = { boxes: set.boxes, desc: sensor.desc, pose, origin: set.origin, seed: 7 };
 * const cmp = compareLidarReturns(input, { ...sweep, intensity: sweep.intensity!, passes: sweep.passes! });
 * cmp.ok // every pass and every beam judged without a mismatch
 */
export function compareLidarReturns(input: LidarCompareInput, sweep: LidarReturnImages, options: CompareOptions = {}): LidarReturnsComparison {
  const { desc, boxes } = input;
  const descs = beamPassDescriptions(desc);
  if (sweep.passes.length !== descs.length) {
    throw new RangeError(`compareLidarReturns: the sweep has ${sweep.passes.length} passes, the description ${descs.length}`);
  }
  const passes = descs.map((d, p) => {
    const rays = compareLidarSweep({ ...input, desc: d }, sweep.passes[p]!, options);
    const intensity = compareLidarIntensity({ ...input, desc: d }, sweep.passes[p]!, rays.ambiguousRays, options);
    return { rays, intensity };
  });
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const seed = (input.seed ?? 0) >>> 0;
  const ref = lidarSweepReference(boxes, desc, input.pose, input.motion ?? {}, {
    ...(input.boxMasks ? { boxMasks: input.boxMasks } : {}), ...(input.mask !== undefined ? { mask: input.mask } : {}),
    ...(input.materials ? { materials: input.materials } : {}), seed, intensity: true,
  });
  const rays = descs.map((d) => lidarRays(d, input.pose, input.motion?.poseEnd, { seed }));
  const timed = columnBoxes(boxes, desc, input.motion?.boxMotion);
  const origin = input.origin ?? [0, 0, 0];
  const u = input.unitRoundoff ?? F32_UNIT_ROUNDOFF;
  const reflectivity = input.materials?.reflectivity;
  const noise = desc.noise ?? {};
  const s0 = noise.rangeStdDev ?? 0;
  const s1 = noise.rangeStdDevPerUnit ?? 0;
  const limit = noise.intensityDropout?.limit ?? 0;
  const atZero = noise.intensityDropout?.atZero ?? 0;
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeRayObbScratch();
  const columns = input.columns ?? Array.from({ length: A }, (_, a) => a);
  let judged = 0;
  for (const a of columns) {
    for (let c = 0; c < C; c++) {
      const at = timed.at(a, c).data;
      const r = c * A + a;
      judged++;
      const where = `beam ${r} (channel ${c}, column ${a})`;
      const mk = (verdict: 'ambiguous' | 'mismatch', reason: string, detail: string): CaseReport =>
        ({ index: r, verdict, reason, detail: `${where}: ${detail}`, input: { channel: c, column: a } });
      // The reference's hits of this beam, pass by pass, with their bounds.
      const hits = descs.map((_, p) => {
        const q = ref.passes![p]!;
        const i = q.box[r]!;
        return i < 0 ? undefined : { box: i, bounds: returnOf(descs[p]!, at, i, rays[p]!, r, origin, u, reflectivity, s) };
      });
      const got = returnsOf(sweep.box, sweep.range, sweep.intensity, sweep.second, sweep.returnCount, r);
      const want = returnsOf(ref.box, ref.range, ref.intensity!, ref.second, ref.returnCount, r);
      // The outcomes rounding can make of this beam's hits (the reference's own first); the
      // implementation's returns must be one of them, each return within its bounds.
      const noiseOf = (q: number, j: number, t: number): { z: number; t: number } => {
        const z = s0 > 0 || s1 > 0 ? gaussianOf(pcg4d(c, a, seed, 1 + j)[0]) : 0;
        return { z, t: s0 > 0 || s1 > 0 ? Math.max(0, t + (s0 + s1 * t) * z) : t };
      };
      const matches = (outcome: readonly { pass: number; slot: number }[]): number => {
        if (outcome.length !== got.length) {
          return Infinity;
        }
        let worst = 0;
        for (const [k, { pass, slot }] of outcome.entries()) {
          const hit = hits[pass];
          const hb = hit?.bounds;
          if (!hit || !hb || got[k]!.box !== hit.box) {
            return Infinity;
          }
          const { z, t } = noiseOf(pass, slot, hb.t);
          const tb = (1 + s1 * Math.abs(z)) * hb.tBound + 4 * u * (Math.abs(t) + Math.abs((s0 + s1 * hb.t) * z));
          const iErr = Math.min(...hb.candidates.map((x) => Math.abs(got[k]!.intensity - x.value) / Math.max(x.bound, 1e-300)));
          worst = Math.max(worst, Math.abs(got[k]!.range - t) / Math.max(tb, 1e-300), iErr);
        }
        return worst;
      };
      const primary = [0, 1].slice(0, want.length).map((k) => ({ pass: ref.returnSource!.pass[2 * r + k]!, slot: ref.returnSource!.slot[2 * r + k]! }));
      const ratio = matches(primary);
      if (ratio <= 1) {
        tally.ok(ratio);
        continue;
      }
      const detail = `implementation ${describeReturns(got)}, reference ${describeReturns(want)}`;
      if (passes.some((x) => x.rays.ambiguousRays.has(r))) {
        tally.add(mk('ambiguous', 'sub-ray', `${detail} (a sub-ray of the beam is ambiguous)`));
        continue;
      }
      const other = possibleReturns(desc, hits, u, (q, j) => uniformOf(pcg4d(c, a, seed, 1 + j)[2]), dropoutThreshold(desc.noise?.dropout ?? 0),
        (j) => pcg4d(c, a, seed, 1 + j)[1], { limit, atZero }).find((x) => matches(x.returns) <= 1);
      if (other) {
        tally.add(mk('ambiguous', other.reason || 'selection-tie', `${detail} (another outcome within the bounds)`));
        continue;
      }
      tally.add(mk('mismatch', got.length !== want.length ? 'return-count' : 'return', detail));
    }
  }
  const returns = tally.result('lidarReturns', judged);
  return { passes, returns, ok: returns.ok && passes.every((x) => x.rays.ok && x.intensity.ok) };
}

/** A beam's returns as a list: (range, box, intensity) of return 0, then return 1. */
function returnsOf(
  box: ArrayLike<number>, range: ArrayLike<number>, intensity: ArrayLike<number>,
  second: { readonly range: ArrayLike<number>; readonly box: ArrayLike<number>; readonly intensity: ArrayLike<number> } | undefined,
  count: ArrayLike<number> | undefined, r: number,
): { range: number; box: number; intensity: number }[] {
  const n = count ? count[r]! : box[r]! >= 0 ? 1 : 0;
  const out: { range: number; box: number; intensity: number }[] = [];
  if (n >= 1) {
    out.push({ range: range[r]!, box: box[r]!, intensity: intensity[r]! });
  }
  if (n >= 2 && second) {
    out.push({ range: second.range[r]!, box: second.box[r]!, intensity: second.intensity[r]! });
  }
  return out;
}

function describeReturns(list: readonly { range: number; box: number; intensity: number }[]): string {
  return list.length === 0 ? 'no return' : list.map((x) => `box ${x.box} at ${x.range} (intensity ${x.intensity})`).join(' and ');
}

/**
 * Every outcome the returns stage can make of a beam's hits when rounding may decide its
 * comparisons differently (lidarReturns, shaders/lidar/returns.wgsl): the strongest hit among
 * those whose intensity interval reaches every other's lower end ('selection-tie'), the last
 * among those whose range reaches every other's within the bounds, the dual mode's separation
 * either way where a range is within its bound of t_L − minSeparation ('separation-edge'), an
 * intensity-based dropout either way where the draw lies within the bounds of its probability
 * ('dropout-edge'). Each outcome lists its returns as (pass, draw slot).
 */
function possibleReturns(
  desc: LidarDescription, hits: readonly ({ box: number; bounds: ReturnBounds | undefined } | undefined)[], u: number,
  draw: (pass: number, slot: number) => number, dropout: number, dropDraw: (slot: number) => number,
  weak: { readonly limit: number; readonly atZero: number },
): { returns: { pass: number; slot: number }[]; reason: string }[] {
  const live = hits.flatMap((h, p) => (h?.bounds ? [{ p, b: h.bounds }] : []));
  const lo = (b: ReturnBounds): number => Math.min(...b.candidates.map((x) => x.value - x.bound));
  const hi = (b: ReturnBounds): number => Math.max(...b.candidates.map((x) => x.value + x.bound));
  const strongestOf = (set: typeof live): number[] =>
    set.filter((x) => set.every((y) => y === x || hi(x.b) >= lo(y.b))).map((x) => x.p);
  const lastOf = (set: typeof live): number[] =>
    set.filter((x) => set.every((y) => y === x || x.b.t + x.b.tBound >= y.b.t - y.b.tBound)).map((x) => x.p);
  const byPass = new Map(live.map((x) => [x.p, x.b]));
  const kept: { passes: number[]; reason: string }[] = [];
  const mode = desc.beam?.returns ?? 'strongest';
  if (live.length === 0) {
    kept.push({ passes: [], reason: '' });
  } else if (mode === 'strongest') {
    kept.push(...strongestOf(live).map((p) => ({ passes: [p], reason: 'selection-tie' })));
  } else if (mode === 'last') {
    kept.push(...lastOf(live).map((p) => ({ passes: [p], reason: 'selection-tie' })));
  } else {
    const minSeparation = desc.beam?.minSeparation ?? 1;
    for (const sp of strongestOf(live)) {
      for (const lp of lastOf(live)) {
        const l = byPass.get(lp)!;
        const slack = (b: ReturnBounds): number => b.tBound + l.tBound + 4 * u * (l.t + minSeparation);
        const edge = l.t - minSeparation;
        const sb = byPass.get(sp)!;
        if (sb.t - slack(sb) <= edge) {
          kept.push({ passes: [sp, lp], reason: 'separation-edge' });
        }
        if (sb.t + slack(sb) > edge) {
          const possible = live.filter((x) => x.b.t - slack(x.b) <= edge);
          const certain = live.filter((x) => x.b.t + slack(x.b) <= edge);
          for (const q of possible) {
            if (certain.every((y) => y.p === q.p || hi(q.b) >= lo(y.b))) {
              kept.push({ passes: [q.p, lp], reason: 'separation-edge' });
            }
          }
          if (certain.length === 0) {
            kept.push({ passes: [sp], reason: 'separation-edge' });
          }
        }
      }
    }
  }
  // Dropout, return by return: random dropout is exact; an intensity-based one may go either way.
  const out: { returns: { pass: number; slot: number }[]; reason: string }[] = [];
  for (const k of kept) {
    let variants: { returns: { pass: number; slot: number }[]; reason: string }[] = [{ returns: [], reason: k.reason }];
    k.passes.forEach((p, j) => {
      const b = byPass.get(p)!;
      const next: typeof variants = [];
      const random = dropDraw(j) < dropout;
      const u24 = draw(p, j);
      const pHi = weak.atZero > 0 && lo(b) < weak.limit ? weak.atZero * (1 - Math.max(0, lo(b)) / weak.limit) : 0;
      const pLo = weak.atZero > 0 && hi(b) < weak.limit ? weak.atZero * (1 - hi(b) / weak.limit) : 0;
      const mayDrop = random || u24 < pHi + 4 * u;
      const mayKeep = !random && u24 >= pLo - 4 * u;
      for (const v of variants) {
        if (mayDrop) {
          next.push({ returns: v.returns, reason: mayKeep ? 'dropout-edge' : v.reason });
        }
        if (mayKeep) {
          next.push({ returns: [...v.returns, { pass: p, slot: j }], reason: mayDrop ? 'dropout-edge' : v.reason });
        }
      }
      variants = next;
    });
    out.push(...variants);
  }
  return out;
}
