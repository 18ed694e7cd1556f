/**
 * CPU-vs-GPU comparison: every GPU result is classified against the float64 reference as
 * **agree** (same decision, numbers within the float32 error bound), **ambiguous** (the reference
 * shows the decision is within the error bound of flipping, and the GPU took the other side) or
 * **mismatch** (anything else). See ./errorModel.ts for the bounds and why they are what they are.
 */
import { F32_MAX, FACE_NONE, HIT_FLAG_INSIDE, SAT_AXIS_NAMES, SAT_EDGE_EPS_SQ, SAT_TOLERANCE } from '../constants.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Vec3 } from '../core/types.ts';
import { closestHit, anyHit, allHits, type AllHits, type ClosestHits, type RaycastOptions } from '../reference/raycast.ts';
import { allPairs, obbCross, type PairResults } from '../reference/pairs.ts';
import { makeRayObbScratch, rayObbAt, type RayObbScratch } from '../reference/query/rayObb.ts';
import { makeSatScratch, obbObbSatAt, type SatOptions, type SatScratch } from '../reference/query/obbObbSat.ts';
import { boxPlaneMargin, frustumCull, rebasePlanes, type Plane } from '../reference/frustum.ts';
import { edgeSkipBand, F32_UNIT_ROUNDOFF, positionBound, rayDistanceBound, satGapBound } from './errorModel.ts';
import { invariant } from '../errors.ts';

/** How one GPU result relates to the reference. */
export type Verdict = 'agree' | 'ambiguous' | 'mismatch';

/** One classified case, with what is needed to reproduce it. */
export interface CaseReport {
  readonly index: number;
  readonly verdict: Verdict;
  /** Short machine-readable reason, e.g. 'grazing-hit', 'closest-tie', 't-error', 'overlap-touching'. */
  readonly reason: string;
  /** Human-readable details: GPU and reference values, the bound, the margin. */
  readonly detail: string;
  /** The inputs of the case (ray and boxes, or the two boxes), for a repro file. */
  readonly input: Record<string, unknown>;
}

/** The result of comparing one batch. */
export interface Comparison {
  readonly family: string;
  readonly total: number;
  readonly agree: number;
  readonly ambiguous: number;
  readonly mismatch: number;
  readonly ambiguousByReason: Readonly<Record<string, number>>;
  readonly mismatchByReason: Readonly<Record<string, number>>;
  /** Every mismatch (up to `maxCases`), then the ambiguous cases (up to `maxCases`). */
  readonly cases: readonly CaseReport[];
  /** Largest |GPU − reference| / bound over agreeing numeric values (≤ 1 by construction). */
  readonly worstRatio: number;
  readonly ok: boolean;
}

/** Options of every comparison. */
export interface CompareOptions {
  /** How many mismatches and ambiguous cases to keep with their inputs (default 20 each). */
  readonly maxCases?: number;
  /**
   * compareClosestHits: whether the GPU results carry faces and inside flags (default true). A
   * LiDAR range image has neither; only the box and t are compared then.
   */
  readonly checkFaces?: boolean;
}

/**
 * Counts a comparison's cases where each is decided: every case must be tallied exactly once,
 * as agree (ok or add) or as ambiguous / mismatch (add); result() checks that the three counts
 * add up to the total, so a path that forgets a case fails loudly instead of counting it as
 * agreeing.
 */
export class Tally {
  agree = 0;
  ambiguous = 0;
  mismatch = 0;
  worstRatio = 0;
  readonly ambiguousByReason: Record<string, number> = {};
  readonly mismatchByReason: Record<string, number> = {};
  private readonly mismatches: CaseReport[] = [];
  private readonly ambiguities: CaseReport[] = [];
  constructor(private readonly maxCases: number) {}

  ok(ratio = 0): void {
    this.agree++;
    if (ratio > this.worstRatio) {
      this.worstRatio = ratio;
    }
  }

  /** `n` cases decided as agreeing together (pair lists: every pair on both sides or neither). */
  agreeing(n: number): void {
    invariant(Number.isInteger(n) && n >= 0, `agreeing(${n}): a count of cases`);
    this.agree += n;
  }

  add(c: CaseReport): void {
    if (c.verdict === 'agree') {
      this.agree++;
      return;
    }
    const [list, byReason] = c.verdict === 'mismatch'
      ? [this.mismatches, this.mismatchByReason]
      : [this.ambiguities, this.ambiguousByReason];
    if (c.verdict === 'mismatch') {
      this.mismatch++;
    } else {
      this.ambiguous++;
    }
    byReason[c.reason] = (byReason[c.reason] ?? 0) + 1;
    if (list.length < this.maxCases) {
      list.push(c);
    }
  }

  /** `n` cases of one verdict and reason counted without being listed (their details were dropped upstream). */
  counted(verdict: 'ambiguous' | 'mismatch', reason: string, n: number): void {
    invariant(Number.isInteger(n) && n >= 0, `counted(${n}): a count of cases`);
    const byReason = verdict === 'mismatch' ? this.mismatchByReason : this.ambiguousByReason;
    if (verdict === 'mismatch') {
      this.mismatch += n;
    } else {
      this.ambiguous += n;
    }
    byReason[reason] = (byReason[reason] ?? 0) + n;
  }

  result(family: string, total: number): Comparison {
    invariant(this.agree + this.ambiguous + this.mismatch === total,
      `${family}: ${this.agree} agree + ${this.ambiguous} ambiguous + ${this.mismatch} mismatch tallied, but ${total} cases compared`);
    return {
      family, total,
      agree: this.agree,
      ambiguous: this.ambiguous,
      mismatch: this.mismatch,
      ambiguousByReason: this.ambiguousByReason,
      mismatchByReason: this.mismatchByReason,
      cases: [...this.mismatches, ...this.ambiguities],
      worstRatio: this.worstRatio,
      ok: this.mismatch === 0,
    };
  }
}

const fmt = (x: number): string => (Number.isFinite(x) ? Number(x.toPrecision(7)).toString() : String(x));

// ------------------------------------------------------------------------------------------------
// Rays

/** What a ray comparison needs: the exact inputs both backends saw. */
export interface RayCompareInput {
  readonly boxes: BoxArray;
  readonly rays: RayArray;
  readonly options?: RaycastOptions;
  /** The floating origin the GPU positions were re-based to (BoxSet.origin); default [0, 0, 0]. */
  readonly origin?: Vec3;
  /** Unit roundoff of the implementation judged (default float32's; UNIT_ROUNDOFF in ./errorModel.ts). */
  readonly unitRoundoff?: number;
  /**
   * A closest hit nearer than this is reported as no hit (a LiDAR's minRange: the near box still
   * occludes). Default 0. A GPU "no hit" then agrees with a reference hit clearly nearer, and is
   * ambiguous ('min-range-edge') within the hit's t bound of it.
   */
  readonly minDistance?: number;
}

function vecOf(data: Float64Array, offset: number): Vec3 {
  return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
}

function rayInput(input: RayCompareInput, r: number, boxes: readonly number[]): Record<string, unknown> {
  const o = r * RAY_F64.STRIDE;
  const d = input.rays.data;
  return {
    ray: { index: r, origin: vecOf(d, o + RAY_F64.ORIGIN), direction: vecOf(d, o + RAY_F64.DIR), maxDistance: d[o + RAY_F64.MAX]! },
    boxes: boxes.filter((b) => b >= 0).map((b) => boxRecord(input.boxes, b)),
    solid: input.options?.solid ?? true,
  };
}

function boxRecord(boxes: BoxArray, b: number): Record<string, unknown> {
  const o = b * BOX_F64.STRIDE;
  const d = boxes.data;
  return {
    index: b,
    center: vecOf(d, o + BOX_F64.CENTER),
    halfExtents: vecOf(d, o + BOX_F64.HALF),
    axes: [vecOf(d, o + BOX_F64.U), vecOf(d, o + BOX_F64.V), vecOf(d, o + BOX_F64.W)],
  };
}

function filterAccepts(options: RaycastOptions | undefined, r: number, b: number): boolean {
  if (!options) {
    return true;
  }
  const rm = options.rayMasks ? options.rayMasks[r]! : 0xffffffff;
  const bm = options.boxMasks ? options.boxMasks[b]! : 0xffffffff;
  return (rm & bm) !== 0 && (!options.exclude || options.exclude[r] !== b);
}

/** Reference diagnostics of one (ray, box) decision, with its error bounds. */
interface RayBoxDiag {
  readonly hit: boolean;
  readonly t: number;
  readonly face: number;
  readonly inside: boolean;
  /** The decision is within the error bound of flipping. */
  readonly fragile: boolean;
  /** Why it is fragile (for reports). */
  readonly fragileWhy: string;
  /** Bound on |t_gpu − t_ref| for this hit. */
  readonly tBound: number;
  /** Bound on the entry distance (for closest-box ties). */
  readonly s: RayObbScratch;
  readonly scale: number;
  /** Unit roundoff the bounds were made with. */
  readonly u: number;
}

function localD(s: RayObbScratch, k: number): number {
  return k === 0 ? s.dx : k === 1 ? s.dy : s.dz;
}

function localP(s: RayObbScratch, k: number): number {
  return k === 0 ? s.px : k === 1 ? s.py : s.pz;
}

function half(boxes: BoxArray, b: number, k: number): number {
  return boxes.data[b * BOX_F64.STRIDE + BOX_F64.HALF + k]!;
}

/** Entry (or exit) distance of the ray through face `face`'s slab, as the kernel computes it. */
function slabDistance(s: RayObbScratch, h: number, face: number): number {
  const k = face >> 1;
  const d = localD(s, k);
  const p = localP(s, k);
  const plane = face & 1 ? -h : h;
  return (plane - p) / d;
}

function norm(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}

function diagnoseRayBox(input: RayCompareInput, r: number, b: number, s: RayObbScratch): RayBoxDiag {
  const solid = input.options?.solid ?? true;
  const hit = rayObbAt(input.boxes.data, b, input.rays.data, r, solid, s);
  const [ox, oy, oz] = input.origin ?? [0, 0, 0];
  const ro = r * RAY_F64.STRIDE;
  const bo = b * BOX_F64.STRIDE;
  const rd = input.rays.data;
  const bd = input.boxes.data;
  const scale =
    norm(rd[ro]! - ox, rd[ro + 1]! - oy, rd[ro + 2]! - oz) +
    norm(bd[bo]! - ox, bd[bo + 1]! - oy, bd[bo + 2]! - oz) +
    norm(bd[bo + 3]!, bd[bo + 4]!, bd[bo + 5]!);
  const u = input.unitRoundoff ?? F32_UNIT_ROUNDOFF;
  const tMax = Math.min(rd[ro + RAY_F64.MAX]!, F32_MAX);
  const bNear = s.nearFace === FACE_NONE ? 0 : rayDistanceBound(scale, s.tNear, localD(s, s.nearFace >> 1), u);
  const bFar = s.farFace === FACE_NONE ? 0 : rayDistanceBound(scale, s.tFar, localD(s, s.farFace >> 1), u);
  const bMax = 2 * u * Math.abs(tMax);
  let why = '';
  if (s.parallelSlack !== F32_MAX && Math.abs(s.parallelSlack) <= positionBound(scale, u)) {
    why = 'in-face-plane';
  } else if (s.parallelSlack < 0) {
    why = '';
  } else if (Math.abs(s.tFar - s.tNear) <= bNear + bFar) {
    why = 'grazing-edge';
  } else if (Math.abs(s.tFar) <= bFar) {
    why = 'origin-on-exit-face';
  } else if (Math.abs(s.tNear) <= bNear) {
    why = 'origin-on-surface';
  } else if (s.tNear >= -bNear && tMax < F32_MAX && Math.abs(s.tNear - tMax) <= bNear + bMax) {
    why = 'at-max-distance';
  } else if (!solid && s.tNear <= bNear && tMax < F32_MAX && Math.abs(s.tFar - tMax) <= bFar + bMax) {
    why = 'exit-at-max-distance';
  }
  const inside = (s.flags & HIT_FLAG_INSIDE) !== 0;
  let tBound = 0;
  if (hit && s.face !== FACE_NONE) {
    tBound = inside ? bFar : bNear;
  }
  return { hit, t: hit ? s.t : Infinity, face: s.face, inside, fragile: why !== '', fragileWhy: why, tBound, s, scale, u };
}

/** The smallest t over the boxes whose hit on ray r is robust (Infinity if none), with its bound. */
function nearestRobustHit(input: RayCompareInput, r: number, s: RayObbScratch): { t: number; bound: number } {
  let t = Infinity;
  let bound = 0;
  for (let b = 0; b < input.boxes.count; b++) {
    if (!filterAccepts(input.options, r, b)) {
      continue;
    }
    const d = diagnoseRayBox(input, r, b, s);
    if (d.hit && !d.fragile && d.t < t) {
      t = d.t;
      bound = d.tBound;
    }
  }
  return { t, bound };
}

/** Whether a GPU face id is within error of the reference's (corner and edge hits tie). */
function faceTies(diag: RayBoxDiag, boxes: BoxArray, b: number, gpuFace: number): boolean {
  if (gpuFace === diag.face) {
    return true;
  }
  if (gpuFace >= 6 || diag.face === FACE_NONE) {
    return diag.fragile;
  }
  const k = gpuFace >> 1;
  const tk = slabDistance(diag.s, half(boxes, b, k), gpuFace);
  const bk = rayDistanceBound(diag.scale, tk, localD(diag.s, k), diag.u);
  return Number.isFinite(tk) && Math.abs(tk - diag.t) <= bk + diag.tBound;
}

/**
 * Classifies GPU closest hits against the reference.
 *
 * @example
 * const cmp = compareClosestHits({ boxes, rays, origin: set.origin }, await gpu.closestHit(set, rays));
 * console.log(formatComparison(cmp)); // throws nothing; cmp.ok is false on any mismatch
 */
export function compareClosestHits(
  input: RayCompareInput, gpu: ClosestHits, ref: ClosestHits = closestHit(input.boxes, input.rays, input.options ?? {}),
  options: CompareOptions = {},
): Comparison {
  const tally = new Tally(options.maxCases ?? 20);
  const sRef = makeRayObbScratch();
  const sGpu = makeRayObbScratch();
  const sScan = makeRayObbScratch();
  const n = input.rays.count;
  if (gpu.count !== n) {
    throw new RangeError(`compareClosestHits: GPU has ${gpu.count} results for ${n} rays`);
  }
  for (let r = 0; r < n; r++) {
    const i = ref.box[r]!;
    const j = gpu.box[r]!;
    const tg = gpu.t[r]!;
    const mk = (verdict: Verdict, reason: string, detail: string): CaseReport => ({
      index: r, verdict, reason, detail: `ray ${r}: ${detail}`, input: rayInput(input, r, [i, j]),
    });
    const minDistance = input.minDistance ?? 0;
    if (minDistance > 0 && i >= 0 && (j < 0 || tg < minDistance)) {
      const d = diagnoseRayBox(input, r, i, sRef);
      if (j >= 0) {
        tally.add(mk(Math.abs(tg - minDistance) <= d.tBound ? 'ambiguous' : 'mismatch', Math.abs(tg - minDistance) <= d.tBound ? 'min-range-edge' : 'min-range',
          `GPU box ${j} at t ${fmt(tg)}, nearer than the minimum ${fmt(minDistance)}`));
        continue;
      }
      if (d.t < minDistance - d.tBound) {
        tally.ok();
        continue;
      }
      if (d.t <= minDistance + d.tBound) {
        tally.add(mk('ambiguous', 'min-range-edge', `GPU no return, reference box ${i} at t ${fmt(d.t)} within ${fmt(d.tBound)} of the minimum ${fmt(minDistance)}`));
        continue;
      }
    }
    if (i === j) {
      if (i < 0) {
        tally.ok();
        continue;
      }
      const d = diagnoseRayBox(input, r, i, sRef);
      const checkFaces = options.checkFaces ?? true;
      const gpuInside = checkFaces ? gpu.inside[r] === 1 : d.inside;
      if (gpuInside !== d.inside) {
        tally.add(mk(d.fragile ? 'ambiguous' : 'mismatch', d.fragile ? d.fragileWhy : 'inside-flag',
          `box ${i}: GPU inside=${gpuInside}, reference inside=${d.inside}`));
        continue;
      }
      const err = Math.abs(tg - d.t);
      if (err > d.tBound + 1e-30 && d.fragile) {
        // A ray in a face plane (or through an edge) has no well-conditioned crossing point.
        tally.add(mk('ambiguous', d.fragileWhy, `box ${i}: t GPU ${fmt(tg)} vs reference ${fmt(d.t)}`));
        continue;
      }
      if (err > d.tBound + 1e-30) {
        tally.add(mk('mismatch', 't-error', `box ${i}: t GPU ${fmt(tg)} vs reference ${fmt(d.t)} (|Δ| ${fmt(err)} > bound ${fmt(d.tBound)})`));
        continue;
      }
      if (!checkFaces) {
        tally.ok(d.tBound > 0 ? err / d.tBound : 0);
        continue;
      }
      if (!faceTies(d, input.boxes, i, gpu.face[r]!)) {
        tally.add(mk('mismatch', 'face', `box ${i}: face GPU ${gpu.face[r]} vs reference ${d.face}`));
        continue;
      }
      if (gpu.face[r] !== d.face) {
        tally.add(mk('ambiguous', 'edge-or-corner-face', `box ${i}: face GPU ${gpu.face[r]} vs reference ${d.face} at t ${fmt(d.t)}`));
        continue;
      }
      tally.ok(d.tBound > 0 ? err / d.tBound : 0);
      continue;
    }
    // Different boxes: acceptable only when the reference shows the choice within error.
    if (j >= 0 && (j >= input.boxes.count || !filterAccepts(input.options, r, j))) {
      tally.add(mk('mismatch', 'filtered-box', `GPU returned box ${j}, which masks or exclude rule out`));
      continue;
    }
    const di = i >= 0 ? diagnoseRayBox(input, r, i, sRef) : undefined;
    const dj = j >= 0 ? diagnoseRayBox(input, r, j, sGpu) : undefined;
    const ti = di ? di.t : Infinity;
    const bi = di ? di.tBound : 0;
    // The nearest robust hit over every box: no GPU answer may lie clearly beyond it.
    const front = nearestRobustHit(input, r, sScan);
    let plausibleJ: boolean;
    if (!dj) {
      plausibleJ = front.t === Infinity;
    } else {
      // A fragile decision (origin on the surface, grazing, in a face plane) may go either way,
      // and its t with it (t = 0 entering vs the exit distance); the front check still applies.
      const tOk = dj.fragile || (dj.hit && Math.abs(tg - dj.t) <= dj.tBound);
      plausibleJ = tOk && tg <= front.t + front.bound + dj.tBound;
    }
    // Box i can lose to j when its own decision is fragile, or when j (a hit or a fragile miss in
    // the reference) comes no later than i within the bounds (a tie, or a fragile j in front).
    const iCanLose = !di || di.fragile || (dj !== undefined && tg <= ti + bi + dj.tBound);
    const why = di?.fragile ? di.fragileWhy : dj?.fragile ? dj.fragileWhy : 'closest-tie';
    tally.add(mk(plausibleJ && iCanLose ? 'ambiguous' : 'mismatch', plausibleJ && iCanLose ? why : 'wrong-box',
      `GPU box ${j} t ${fmt(tg)}, reference box ${i} t ${fmt(ti)}` +
        (dj ? ` (reference for box ${j}: ${dj.hit ? `t ${fmt(dj.t)}` : 'miss'}${dj.fragile ? `, ${dj.fragileWhy}` : ''})` : '') +
        (di?.fragile ? ` (box ${i}: ${di.fragileWhy})` : '')));
  }
  return tally.result('closestHit', n);
}

/**
 * Classifies GPU any-hit flags against the reference.
 *
 * @example
 * compareAnyHits({ boxes, rays }, await gpu.anyHit(set, rays)).ok
 */
export function compareAnyHits(
  input: RayCompareInput, gpu: Uint8Array, ref: Uint8Array = anyHit(input.boxes, input.rays, input.options ?? {}),
  options: CompareOptions = {},
): Comparison {
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeRayObbScratch();
  for (let r = 0; r < input.rays.count; r++) {
    if (gpu[r] === ref[r]) {
      tally.ok();
      continue;
    }
    // The flag differs: every box that could have decided it must be fragile for this ray.
    let fragileWhy = '';
    let robustHit = false;
    for (let b = 0; b < input.boxes.count; b++) {
      if (!filterAccepts(input.options, r, b)) {
        continue;
      }
      const d = diagnoseRayBox(input, r, b, s);
      if (d.fragile) {
        fragileWhy ||= d.fragileWhy;
      } else if (d.hit) {
        robustHit = true;
      }
    }
    const ambiguous = fragileWhy !== '' && !robustHit;
    tally.add({
      index: r, verdict: ambiguous ? 'ambiguous' : 'mismatch', reason: ambiguous ? fragileWhy : 'any-flag',
      detail: `ray ${r}: GPU ${gpu[r]}, reference ${ref[r]}`, input: rayInput(input, r, []),
    });
  }
  return tally.result('anyHit', input.rays.count);
}

/**
 * Classifies GPU all-hits lists against the reference, ray by ray: each (ray, box) present on one
 * side only must be a fragile decision; common ones must agree in t.
 *
 * @example
 * compareAllHits({ boxes, rays }, await gpu.allHits(set, rays)).mismatch // 0
 */
export function compareAllHits(
  input: RayCompareInput, gpu: AllHits, ref: AllHits = allHits(input.boxes, input.rays, input.options ?? {}),
  options: CompareOptions = {},
): Comparison {
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeRayObbScratch();
  const byRay = (h: AllHits): Map<number, Map<number, number>> => {
    const m = new Map<number, Map<number, number>>();
    for (let k = 0; k < h.count; k++) {
      const r = h.ray[k]!;
      let row = m.get(r);
      if (!row) {
        row = new Map();
        m.set(r, row);
      }
      row.set(h.box[k]!, h.t[k]!);
    }
    return m;
  };
  // Sortedness is part of the contract.
  for (let k = 1; k < gpu.count; k++) {
    const a = gpu.ray[k - 1]!, b = gpu.ray[k]!;
    if (a > b || (a === b && (gpu.t[k - 1]! > gpu.t[k]! || (gpu.t[k - 1] === gpu.t[k] && gpu.box[k - 1]! > gpu.box[k]!)))) {
      throw new RangeError(`compareAllHits: GPU list is not sorted by ray, t, box at entry ${k}`);
    }
  }
  const g = byRay(gpu);
  const rf = byRay(ref);
  for (let r = 0; r < input.rays.count; r++) {
    const gr = g.get(r) ?? new Map<number, number>();
    const rr = rf.get(r) ?? new Map<number, number>();
    let verdict: Verdict = 'agree';
    let reason = '';
    let detail = '';
    let ratio = 0;
    const boxes = new Set([...gr.keys(), ...rr.keys()]);
    for (const b of boxes) {
      const d = diagnoseRayBox(input, r, b, s);
      const tg = gr.get(b);
      const inRef = rr.has(b);
      if (tg !== undefined && !filterAccepts(input.options, r, b)) {
        verdict = 'mismatch';
        reason = 'filtered-box';
        detail = `box ${b} is ruled out by masks or exclude`;
        break;
      }
      if (tg !== undefined && inRef) {
        const err = Math.abs(tg - d.t);
        if (err > d.tBound + 1e-30 && d.fragile) {
          verdict = 'ambiguous';
          reason = d.fragileWhy;
          detail = `box ${b}: t GPU ${fmt(tg)} vs reference ${fmt(d.t)} (${d.fragileWhy})`;
        } else if (err > d.tBound + 1e-30) {
          verdict = 'mismatch';
          reason = 't-error';
          detail = `box ${b}: t GPU ${fmt(tg)} vs reference ${fmt(d.t)} (bound ${fmt(d.tBound)})`;
          break;
        }
        ratio = Math.max(ratio, d.tBound > 0 ? err / d.tBound : 0);
      } else if (d.fragile) {
        verdict = 'ambiguous';
        reason = d.fragileWhy;
        detail = `box ${b} on ${tg !== undefined ? 'GPU' : 'reference'} side only (${d.fragileWhy})`;
      } else {
        verdict = 'mismatch';
        reason = tg !== undefined ? 'extra-hit' : 'missing-hit';
        detail = `box ${b} ${tg !== undefined ? `hit on the GPU at t ${fmt(tg)} only` : `hit in the reference at t ${fmt(d.t)} only`}`;
        break;
      }
    }
    if (verdict === 'agree') {
      tally.ok(ratio);
    } else {
      tally.add({ index: r, verdict, reason, detail: `ray ${r}: ${detail}`, input: rayInput(input, r, [...boxes]) });
    }
  }
  return tally.result('allHits', input.rays.count);
}

// ------------------------------------------------------------------------------------------------
// Box pairs

/** What a pair comparison needs. `b` defaults to `a` (pairs within one set). */
export interface PairCompareInput {
  readonly a: BoxArray;
  readonly b?: BoxArray;
  /** Flat [i0, j0, …] pairs (i in a, j in b). */
  readonly pairs: Uint32Array;
  readonly options?: SatOptions;
  /** Floating origins the GPU positions were re-based to (default [0, 0, 0]). */
  readonly origin?: Vec3;
  /** Unit roundoff of the implementation judged (default float32's). */
  readonly unitRoundoff?: number;
}

interface SatDiag {
  readonly gap: number;
  readonly axis: number;
  /** Lowest and highest value the float32 maximum can take (skip-band axes in or out). */
  readonly low: number;
  readonly high: number;
  readonly scale: number;
  readonly s: SatScratch;
  readonly u: number;
}

function diagnoseSat(a: BoxArray, ia: number, b: BoxArray, ib: number, faceOnly: boolean, origin: Vec3, s: SatScratch, u = F32_UNIT_ROUNDOFF): SatDiag {
  const gap = obbObbSatAt(a.data, ia, b.data, ib, faceOnly, s);
  const ao = ia * BOX_F64.STRIDE;
  const bo = ib * BOX_F64.STRIDE;
  const [ox, oy, oz] = origin;
  const ad = a.data;
  const bd = b.data;
  const scale =
    norm(ad[ao]! - ox, ad[ao + 1]! - oy, ad[ao + 2]! - oz) + norm(bd[bo]! - ox, bd[bo + 1]! - oy, bd[bo + 2]! - oz) +
    ad[ao + 3]! + ad[ao + 4]! + ad[ao + 5]! + bd[bo + 3]! + bd[bo + 4]! + bd[bo + 5]!;
  let low = -Infinity;
  let high = -Infinity;
  const count = faceOnly ? 6 : 15;
  for (let k = 0; k < count; k++) {
    const g = s.axisGap[k]!;
    if (Number.isNaN(g)) {
      continue;
    }
    const lenSq = s.axisLenSq[k]!;
    const optional = k >= 6 && Math.abs(lenSq - SAT_EDGE_EPS_SQ) <= edgeSkipBand(lenSq, u);
    const bound = satGapBound(scale, lenSq, u);
    if (s.tested[k] && !optional) {
      low = Math.max(low, g - bound);
    }
    if (s.tested[k] || optional) {
      high = Math.max(high, g + bound);
    }
  }
  return { gap, axis: s.axis, low, high, scale, s, u };
}

function pairInput(a: BoxArray, ia: number, b: BoxArray, ib: number): Record<string, unknown> {
  return { a: boxRecord(a, ia), b: boxRecord(b, ib) };
}

/**
 * Classifies per-pair GPU SAT results (obbPairs, obbOneVsMany) against the reference.
 *
 * @example
 * comparePairs({ a: set.boxes, pairs, origin: set.origin }, await gpu.obbPairs(set, pairs)).ok
 */
export function comparePairs(
  input: PairCompareInput, gpu: PairResults, ref?: PairResults, options: CompareOptions = {},
): Comparison {
  const a = input.a;
  const b = input.b ?? input.a;
  const n = input.pairs.length / 2;
  const tol = input.options?.tolerance ?? SAT_TOLERANCE;
  const faceOnly = input.options?.faceOnly ?? false;
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeSatScratch();
  const origin = input.origin ?? [0, 0, 0];
  void ref; // the reference is recomputed per pair with diagnostics
  for (let k = 0; k < n; k++) {
    const ia = input.pairs[2 * k]!;
    const ib = input.pairs[2 * k + 1]!;
    const d = diagnoseSat(a, ia, b, ib, faceOnly, origin, s, input.unitRoundoff);
    const refOverlap = d.gap <= tol;
    const gpuOverlap = gpu.overlap[k] === 1;
    const gg = gpu.gap[k]!;
    const ag = gpu.axis[k]!;
    const mk = (verdict: Verdict, reason: string, detail: string): CaseReport => ({
      index: k, verdict, reason,
      detail: `pair ${k} (${ia}, ${ib}): ${detail}; GPU gap ${fmt(gg)} on ${SAT_AXIS_NAMES[ag] ?? ag}, reference ${fmt(d.gap)} on ${SAT_AXIS_NAMES[d.axis]}`,
      input: pairInput(a, ia, b, ib),
    });
    const touching = tol >= d.low && tol <= d.high;
    if (gpuOverlap !== refOverlap) {
      tally.add(touching ? mk('ambiguous', 'touching', 'overlap decision within error') : mk('mismatch', 'overlap', 'overlap decision differs'));
      continue;
    }
    // The flag must follow the implementation's own gap (against the tolerance as its precision
    // holds it: float32's rounding of 1e-6 for float32, within one rounding otherwise).
    const tolHeld = (input.unitRoundoff ?? F32_UNIT_ROUNDOFF) === F32_UNIT_ROUNDOFF ? Math.fround(tol) : tol;
    const tolSlack = (input.unitRoundoff ?? F32_UNIT_ROUNDOFF) === F32_UNIT_ROUNDOFF ? 0 : 2 * d.u * Math.abs(tol);
    if (Math.abs(gg - tolHeld) > tolSlack && gpuOverlap !== gg <= tolHeld) {
      tally.add(mk('mismatch', 'inconsistent', 'GPU overlap flag disagrees with its own gap'));
      continue;
    }
    // The GPU's axis must be one the reference evaluated, with the same gap within its bound…
    const axisGap = d.s.axisGap[ag];
    const lenSq = d.s.axisLenSq[ag] ?? 0;
    const bound = satGapBound(d.scale, lenSq, d.u);
    if (ag >= (faceOnly ? 6 : 15) || axisGap === undefined || Number.isNaN(axisGap) || Math.abs(gg - axisGap) > bound) {
      tally.add(mk('mismatch', 'gap-error', `GPU gap differs from the reference gap on its axis (${fmt(axisGap ?? NaN)}, bound ${fmt(bound)})`));
      continue;
    }
    // …and that axis must attain the maximum within error (several axes may tie).
    if (gg < d.low || gg > d.high) {
      tally.add(mk('mismatch', 'not-largest-gap', `GPU gap outside [${fmt(d.low)}, ${fmt(d.high)}]`));
      continue;
    }
    if (ag !== d.axis) {
      tally.add(mk('ambiguous', 'axis-tie', 'another axis attains the largest gap within error'));
      continue;
    }
    tally.ok(bound > 0 ? Math.abs(gg - d.gap) / bound : 0);
  }
  return tally.result(faceOnly ? 'obbPairs(faceOnly)' : 'obbPairs', n);
}

/** What a pair-list comparison needs: `b` undefined means all pairs within `a` (i < j). */
export interface PairListCompareInput {
  readonly a: BoxArray;
  readonly b?: BoxArray;
  readonly options?: SatOptions;
  readonly origin?: Vec3;
  /** Origin of set b when it differs from a's (obbCross between two BoxSets). */
  readonly originB?: Vec3;
  /** Unit roundoff of the implementation judged (default float32's). */
  readonly unitRoundoff?: number;
}

/**
 * Classifies an overlapping-pair list (obbCross, allPairs): pairs on one side only must be
 * touching within error; the list must be sorted and free of duplicates.
 *
 * @example
 * comparePairLists({ a: set.boxes, origin: set.origin }, (await gpu.allPairs(set)).pairs).ok
 */
export function comparePairLists(
  input: PairListCompareInput, gpu: Uint32Array, ref?: Uint32Array, options: CompareOptions = {},
): Comparison {
  const self = input.b === undefined;
  const b = input.b ?? input.a;
  const reference = ref ?? (self ? allPairs(input.a, input.options ?? {}) : obbCross(input.a, b, input.options ?? {}));
  const tol = input.options?.tolerance ?? SAT_TOLERANCE;
  const faceOnly = input.options?.faceOnly ?? false;
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeSatScratch();
  const key = (i: number, j: number): string => `${i},${j}`;
  const g = new Set<string>();
  for (let k = 0; k < gpu.length / 2; k++) {
    const i = gpu[2 * k]!, j = gpu[2 * k + 1]!;
    if (k > 0) {
      const pi = gpu[2 * k - 2]!, pj = gpu[2 * k - 1]!;
      if (pi > i || (pi === i && pj >= j)) {
        throw new RangeError(`comparePairLists: GPU list is not sorted and unique at entry ${k} (${i}, ${j})`);
      }
    }
    if (self && i >= j) {
      throw new RangeError(`comparePairLists: GPU pair ${k} (${i}, ${j}) does not have i < j`);
    }
    g.add(key(i, j));
  }
  const rset = new Set<string>();
  for (let k = 0; k < reference.length / 2; k++) {
    rset.add(key(reference[2 * k]!, reference[2 * k + 1]!));
  }
  const originA = input.origin ?? [0, 0, 0];
  const diff = [...g].filter((x) => !rset.has(x)).concat([...rset].filter((x) => !g.has(x)));
  for (const k of diff) {
    const [i, j] = k.split(',').map(Number) as [number, number];
    const d = diagnoseSat(input.a, i, b, j, faceOnly, originA, s, input.unitRoundoff);
    const touching = tol >= d.low && tol <= d.high;
    tally.add({
      index: i, verdict: touching ? 'ambiguous' : 'mismatch', reason: touching ? 'touching' : g.has(k) ? 'extra-pair' : 'missing-pair',
      detail: `pair (${i}, ${j}) ${g.has(k) ? 'on the GPU only' : 'in the reference only'}; reference gap ${fmt(d.gap)} on ${SAT_AXIS_NAMES[d.axis]}`,
      input: pairInput(input.a, i, b, j),
    });
  }
  const total = self ? (input.a.count * (input.a.count - 1)) / 2 : input.a.count * b.count;
  // Every other pair is on both lists or on neither: the two backends decided it alike.
  tally.agreeing(total - diff.length);
  return tally.result(self ? 'allPairs' : 'obbCross', total);
}

// ------------------------------------------------------------------------------------------------
// Frustum culling

/** What a frustum comparison needs: the boxes, the world planes, the set's floating origin. */
export interface FrustumCompareInput {
  readonly boxes: BoxArray;
  readonly planes: readonly Plane[];
  readonly origin?: Vec3;
}

/**
 * Classifies a GPU visible list (any order, no repeats) against the reference: a box on one side
 * only must lie within float32 error of a plane (its margin n·c + d + r near 0).
 *
 * @example
 * compareFrustum({ boxes: set.boxes, planes, origin: set.origin }, (await culler.cull(set, planes)).visible).ok
 */
export function compareFrustum(input: FrustumCompareInput, gpuVisible: Uint32Array, options: CompareOptions = {}): Comparison {
  const tally = new Tally(options.maxCases ?? 20);
  const ref = new Set(frustumCull(input.boxes, input.planes));
  const got = new Set<number>();
  for (const b of gpuVisible) {
    if (got.has(b) || b >= input.boxes.count) {
      throw new RangeError(`compareFrustum: GPU list repeats or overruns box ${b}`);
    }
    got.add(b);
  }
  const origin = input.origin ?? [0, 0, 0];
  const local = rebasePlanes(input.planes, origin);
  for (let b = 0; b < input.boxes.count; b++) {
    if (got.has(b) === ref.has(b)) {
      tally.ok();
      continue;
    }
    const o = b * BOX_F64.STRIDE;
    const d = input.boxes.data;
    const scale = norm(d[o]! - origin[0], d[o + 1]! - origin[1], d[o + 2]! - origin[2]) + d[o + 3]! + d[o + 4]! + d[o + 5]!;
    const margins = input.planes.map((p) => boxPlaneMargin(input.boxes, b, p));
    const near = local.some((p, k) => Math.abs(margins[k]!) <= positionBound(scale + Math.abs(p[3])));
    tally.add({
      index: b, verdict: near ? 'ambiguous' : 'mismatch', reason: near ? 'on-plane' : got.has(b) ? 'extra-visible' : 'missing-visible',
      detail: `box ${b} ${got.has(b) ? 'visible on the GPU only' : 'visible in the reference only'}; plane margins ${margins.map(fmt).join(', ')}`,
      input: { box: boxRecord(input.boxes, b), planes: input.planes },
    });
  }
  return tally.result('frustumCull', input.boxes.count);
}

/**
 * A printable report of one comparison.
 *
 * @example
 * console.log(formatComparison(cmp));
 * // closestHit: 100000 cases — 99998 agree, 2 ambiguous (grazing-edge 2), 0 mismatch; worst |Δ|/bound 0.03
 */
export function formatComparison(c: Comparison, maxCases = 5): string {
  const reasons = (r: Readonly<Record<string, number>>): string => {
    const e = Object.entries(r);
    return e.length ? ` (${e.map(([k, v]) => `${k} ${v}`).join(', ')})` : '';
  };
  const lines = [
    `${c.family}: ${c.total} cases — ${c.agree} agree, ${c.ambiguous} ambiguous${reasons(c.ambiguousByReason)}, ` +
      `${c.mismatch} mismatch${reasons(c.mismatchByReason)}; worst |Δ|/bound ${fmt(c.worstRatio)}`,
  ];
  for (const x of c.cases.slice(0, maxCases)) {
    lines.push(`  ${x.verdict.toUpperCase()} ${x.reason}: ${x.detail}`);
    if (x.verdict === 'mismatch') {
      lines.push(`    input: ${JSON.stringify(x.input)}`);
    }
  }
  return lines.join('\n');
}
