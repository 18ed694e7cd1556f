/**
 * Implementation-vs-reference comparison: every result of an implementation (the library's GPU
 * kernels, or anyone's) is classified against the float64 reference as
 * **agree** (same decision, numbers within the float32 error bound), **ambiguous** (the reference
 * shows the decision is within the error bound of flipping, and the implementation took the other side) or
 * **mismatch** (anything else). See ./errorModel.ts for the bounds and why they are what they are.
 */
import { EPS_DIR, F32_MAX, FACE_NONE, HIT_FLAG_INSIDE, SAT_AXIS_NAMES, SAT_EDGE_EPS_SQ, SAT_TOLERANCE } from '../constants.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Vec3 } from '../core/types.ts';
import { closestHit, anyHit, allHits, type AllHits, type ClosestHits, type RaycastOptions } from '../reference/raycast.ts';
import { allPairs, obbCross, type PairResults } from '../reference/pairs.ts';
import { makeRayObbScratch, rayObbAt, type RayObbScratch } from '../reference/query/rayObb.ts';
import { makeSatScratch, obbObbSatAt, type SatOptions, type SatScratch } from '../reference/query/obbObbSat.ts';
import { boxPlaneMargin, frustumCull, frustumShape, rebasePlanes, type Plane } from '../reference/frustum.ts';
import { makeObbFrustumScratch, obbFrustumAxisName, obbFrustumSatAt } from '../reference/query/obbFrustum.ts';
import { edgeSkipBand, F32_UNIT_ROUNDOFF, frustumGapBound, positionBound, rayDistanceBound, satGapBound, UNIT_ROUNDOFF } from './errorModel.ts';
import { formatOfRoundoff, raySlabExactness, satExactness, type RaySlabExactness } from './exact.ts';
import { invariant } from '../errors.ts';

/** How one result of an implementation relates to the reference. */
export type Verdict = 'agree' | 'ambiguous' | 'mismatch';

/** One classified case, with what is needed to reproduce it. */
export interface CaseReport {
  readonly index: number;
  readonly verdict: Verdict;
  /** Short machine-readable reason, e.g. 'grazing-hit', 'closest-tie', 't-error', 'overlap-touching'. */
  readonly reason: string;
  /** Human-readable details: the implementation's and the reference's values, the bound, the margin. */
  readonly detail: string;
  /** The inputs of the case (ray and boxes, or the two boxes), for a repro file. */
  readonly input: Record<string, unknown>;
  /** What the judged implementation answered, where the family has one answer per case. */
  readonly answer?: CaseAnswer;
  /** What the float64 reference answered for the same case. */
  readonly expected?: CaseAnswer;
}

/**
 * One answer to a case, as the reports draw it: a ray's hit (box, t, face, inside; box −1 for a
 * miss) or a pair's SAT (overlap, gap, axis id). A field the implementation did not report (a
 * partial result file) is absent.
 */
export type CaseAnswer =
  | { readonly kind: 'ray'; readonly box: number; readonly t?: number; readonly face?: number; readonly inside?: boolean }
  | { readonly kind: 'pair'; readonly overlap: boolean; readonly gap?: number; readonly axis?: number };

/** The result of comparing one batch. */
export interface Comparison {
  readonly family: string;
  readonly total: number;
  readonly agree: number;
  readonly ambiguous: number;
  readonly mismatch: number;
  readonly ambiguousByReason: Readonly<Record<string, number>>;
  readonly mismatchByReason: Readonly<Record<string, number>>;
  /**
   * The listed cases: up to `maxCases` of each verdict and reason, mismatches first, every reason
   * in turn (any prefix shows every reason).
   */
  readonly cases: readonly CaseReport[];
  /** Largest |implementation − reference| / bound over agreeing numeric values (≤ 1 by construction). */
  readonly worstRatio: number;
  readonly ok: boolean;
  /** What was judged, where not the whole answer (a partial result: "judged on hit and box only"). */
  readonly note?: string;
}

/** Options of every comparison. */
export interface CompareOptions {
  /** How many mismatches and ambiguous cases of each reason to keep with their inputs (default 20). */
  readonly maxCases?: number;
  /**
   * compareClosestHits: whether the results carry faces and inside flags (default true). A
   * LiDAR range image has neither; only the box and t are compared then.
   */
  readonly checkFaces?: boolean;
  /**
   * compareClosestHits: which fields the implementation reports (default all). A partial result
   * (hit and box only; no face; no inside flag) is judged on what it has: without `t` the
   * implementation's box is taken at its reference distance.
   */
  readonly fields?: { readonly t?: boolean; readonly face?: boolean; readonly inside?: boolean };
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
  /** Listed cases per verdict and reason, each list up to maxCases long. */
  private readonly listed = new Map<string, CaseReport[]>();
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
    const byReason = c.verdict === 'mismatch' ? this.mismatchByReason : this.ambiguousByReason;
    if (c.verdict === 'mismatch') {
      this.mismatch++;
    } else {
      this.ambiguous++;
    }
    byReason[c.reason] = (byReason[c.reason] ?? 0) + 1;
    const key = `${c.verdict}:${c.reason}`;
    let list = this.listed.get(key);
    if (!list) {
      list = [];
      this.listed.set(key, list);
    }
    if (list.length < this.maxCases) {
      list.push(c);
    }
  }

  /**
   * The listed cases in the order reports read them: mismatches before ambiguous cases, and
   * within each verdict one case of every reason in turn (the most frequent reason first), so
   * that any prefix shows every reason.
   */
  private ordered(): CaseReport[] {
    const out: CaseReport[] = [];
    for (const [verdict, byReason] of [['mismatch', this.mismatchByReason], ['ambiguous', this.ambiguousByReason]] as const) {
      const lists = Object.entries(byReason)
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .map(([reason]) => this.listed.get(`${verdict}:${reason}`) ?? []);
      for (let k = 0; lists.some((l) => k < l.length); k++) {
        for (const l of lists) {
          if (k < l.length) {
            out.push(l[k]!);
          }
        }
      }
    }
    return out;
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
      cases: this.ordered(),
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
  /** The floating origin the implementation's positions were re-based to (BoxSet.origin); default [0, 0, 0]. */
  readonly origin?: Vec3;
  /** Unit roundoff of the implementation judged (default float32's; UNIT_ROUNDOFF in ./errorModel.ts). */
  readonly unitRoundoff?: number;
  /**
   * A closest hit nearer than this is reported as no hit (a LiDAR's minRange: the near box still
   * occludes). Default 0. An implementation's "no hit" then agrees with a reference hit clearly nearer, and is
   * ambiguous ('min-range-edge') within the hit's t bound of it.
   */
  readonly minDistance?: number;
  /**
   * Whether the implementation was given exactly these rays and boxes (default true), so that
   * what float arithmetic computes exactly from them decides exactly (./exact.ts). False where
   * it derives them itself (a LiDAR sweep's rays come from sines and cosines on the device):
   * then only the first-order bounds apply.
   */
  readonly exactInputs?: boolean;
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
  /** Bound on |t_impl − t_ref| for this hit. */
  readonly tBound: number;
  /**
   * The hit's t is exact on every conforming implementation: t = 0 inside a solid box (decided
   * robustly), or a slab crossing computed exactly (./exact.ts). Two exact, equal t tie exactly.
   */
  readonly tExact: () => boolean;
  /** The scratch of the diagnosis (valid until its next use). */
  readonly s: RayObbScratch;
  /** The ray's local direction components. */
  readonly local: readonly [number, number, number];
  readonly scale: number;
  /** Unit roundoff the bounds were made with. */
  readonly u: number;
  /** The exactness of the slab test's quantities (undefined: nothing is claimed exact). */
  readonly exact: () => RaySlabExactness | undefined;
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

/**
 * Local direction components below this may be treated as parallel by a valid implementation (a
 * parallel threshold is an implementation's choice: EPS_DIR here, exact zero in three.js's
 * Box3 test, ~1e-6 in Ericson's text). Where the library's choice and another in [0, this]
 * decide differently, the case is ambiguous ('parallel-threshold'), never a mismatch.
 */
export const PARALLEL_CHOICE_MAX = 1e-6;

const isExact = (x: number | undefined): x is number => x !== undefined && !Number.isNaN(x);

/** Exact value of slab k's entry (`entry`) or exit crossing, from the exactness record (d: the local direction). */
function exactCrossing(ex: RaySlabExactness | undefined, d: readonly number[], k: number, entry: boolean): number | undefined {
  if (!ex) {
    return undefined;
  }
  const entersNeg = d[k]! > 0;
  return entersNeg === entry ? ex.tNeg[k] : ex.tPos[k];
}

/**
 * Whether the sign of slab k's entry (or exit) crossing is exact: its numerator is exact and the
 * local direction's sign is certain (exact, or far above its rounding error).
 */
function crossingSignExact(ex: RaySlabExactness | undefined, s: RayObbScratch, k: number, entry: boolean, u: number): boolean {
  if (!ex || k < 0) {
    return false;
  }
  const d = localD(s, k);
  const entersNeg = d > 0;
  const n = entersNeg === entry ? ex.nNeg[k] : ex.nPos[k];
  return isExact(n) && (isExact(ex.d[k]) || Math.abs(d) > 16 * u);
}

function diagnoseRayBox(input: RayCompareInput, r: number, b: number, s: RayObbScratch): RayBoxDiag {
  const solid = input.options?.solid ?? true;
  const hit = rayObbAt(input.boxes.data, b, input.rays.data, r, solid, s);
  const origin = input.origin ?? [0, 0, 0];
  const [ox, oy, oz] = origin;
  const ro = r * RAY_F64.STRIDE;
  const bo = b * BOX_F64.STRIDE;
  const rd = input.rays.data;
  const bd = input.boxes.data;
  const scale =
    norm(rd[ro]! - ox, rd[ro + 1]! - oy, rd[ro + 2]! - oz) +
    norm(bd[bo]! - ox, bd[bo + 1]! - oy, bd[bo + 2]! - oz) +
    norm(bd[bo + 3]!, bd[bo + 4]!, bd[bo + 5]!);
  const u = input.unitRoundoff ?? F32_UNIT_ROUNDOFF;
  // Only inputs the implementation was given can be exact (a LiDAR's rays are derived by it).
  const format = input.exactInputs === false ? undefined : formatOfRoundoff(u);
  let cache: RaySlabExactness | undefined | null = null;
  const exact = (): RaySlabExactness | undefined => {
    if (cache === null) {
      cache = format ? raySlabExactness(bd, b, rd, r, [ox, oy, oz], format) : undefined;
    }
    return cache;
  };
  const tMaxRaw = rd[ro + RAY_F64.MAX]!;
  const tMax = Math.min(tMaxRaw, F32_MAX);
  const nearK = s.nearFace === FACE_NONE ? -1 : s.nearFace >> 1;
  const farK = s.farFace === FACE_NONE ? -1 : s.farFace >> 1;
  const bNear = nearK < 0 ? 0 : rayDistanceBound(scale, s.tNear, localD(s, nearK), u);
  const bFar = farK < 0 ? 0 : rayDistanceBound(scale, s.tFar, localD(s, farK), u);
  const bMax = 2 * u * Math.abs(tMax);
  const posBound = positionBound(scale, u);
  // Parallel slabs: the origin must lie within each; a slack within error decides nothing unless exact.
  let inFacePlane = false;
  let parallelMiss = false;
  for (let k = 0; k < 3; k++) {
    if (Math.abs(localD(s, k)) >= EPS_DIR) {
      continue;
    }
    const slack = half(input.boxes, b, k) - Math.abs(localP(s, k));
    if (Math.abs(slack) <= posBound && !isExact(exact()?.slack[k])) {
      inFacePlane = true;
    } else if (slack < 0) {
      parallelMiss = true;
    }
  }
  // Copied now: the scratch `s` serves the next diagnosis, these closures may run later.
  const local = [s.dx, s.dy, s.dz] as const;
  const nearExact = (): boolean => nearK >= 0 && isExact(exactCrossing(exact(), local, nearK, true));
  const farExact = (): boolean => farK >= 0 && isExact(exactCrossing(exact(), local, farK, false));
  const tMaxExact = (): boolean => isExact(exact()?.tMax);
  let why = '';
  if (parallelMiss) {
    why = '';
  } else if (inFacePlane) {
    why = 'in-face-plane';
  } else if (nearK >= 0 && nearK === farK ? grazingSameSlab(input, b, s, nearK, scale, u, exact) : Math.abs(s.tFar - s.tNear) <= bNear + bFar && !(nearExact() && farExact())) {
    why = 'grazing-edge';
  } else if (Math.abs(s.tFar) <= bFar && !crossingSignExact(exact(), s, farK, false, u)) {
    why = 'origin-on-exit-face';
  } else if (Math.abs(s.tNear) <= bNear && !crossingSignExact(exact(), s, nearK, true, u)) {
    why = 'origin-on-surface';
  } else if (s.tNear >= -bNear && tMax < F32_MAX && Math.abs(s.tNear - tMax) <= bNear + bMax && !(nearExact() && tMaxExact())) {
    why = 'at-max-distance';
  } else if (!solid && s.tNear <= bNear && tMax < F32_MAX && Math.abs(s.tFar - tMax) <= bFar + bMax && !(farExact() && tMaxExact())) {
    why = 'exit-at-max-distance';
  }
  const inside = (s.flags & HIT_FLAG_INSIDE) !== 0;
  const face = s.face;
  const t = hit ? s.t : Infinity;
  let tBound = 0;
  if (hit && face !== FACE_NONE) {
    tBound = inside ? bFar : bNear;
  }
  if (why === '' && [s.dx, s.dy, s.dz].some((d) => d !== 0 && Math.abs(d) < PARALLEL_CHOICE_MAX)) {
    why = parallelChoice(input, r, b, solid, { hit, t, face, tBound });
  }
  const fragile = why !== '';
  const tExact = (): boolean => hit && !fragile && (inside && solid ? true : inside ? farExact() : nearExact());
  // The diagnostics read the scratch now; `exact` reads only the inputs, so it stays valid after.
  return { hit, t, face, inside, fragile, fragileWhy: why, tBound, tExact, s, local, scale, u, exact };
}

/**
 * A ray that crosses slab k's two planes as its entry and exit (a flat or thin box): tIn_k ≤
 * tOut_k on every implementation (the same division of ordered numerators), so the decision
 * rests on the other slabs' crossings against these two. Fragile when one of them is within
 * the bounds of either and not exactly ordered.
 */
function grazingSameSlab(
  input: RayCompareInput, b: number, s: RayObbScratch, k: number, scale: number, u: number, exact: () => RaySlabExactness | undefined,
): boolean {
  const crossing = (j: number, entry: boolean): number => {
    const d = localD(s, j);
    const h = half(input.boxes, b, j);
    return slabDistance(s, h, d > 0 === entry ? 2 * j + 1 : 2 * j);
  };
  const tIn = crossing(k, true), tOut = crossing(k, false);
  const bIn = rayDistanceBound(scale, tIn, localD(s, k), u), bOut = rayDistanceBound(scale, tOut, localD(s, k), u);
  for (let j = 0; j < 3; j++) {
    if (j === k || Math.abs(localD(s, j)) < EPS_DIR) {
      continue;
    }
    const jIn = crossing(j, true), jOut = crossing(j, false);
    const bj = (t: number): number => rayDistanceBound(scale, t, localD(s, j), u);
    const exactPair = (a: number | undefined, c: number | undefined): boolean => isExact(a) && isExact(c);
    const ex = exact();
    const local = [s.dx, s.dy, s.dz];
    if (Math.abs(jIn - tOut) <= bj(jIn) + bOut && !exactPair(exactCrossing(ex, local, j, true), exactCrossing(ex, local, k, false))) {
      return true;
    }
    if (Math.abs(tIn - jOut) <= bIn + bj(jOut) && !exactPair(exactCrossing(ex, local, k, true), exactCrossing(ex, local, j, false))) {
      return true;
    }
  }
  return false;
}

/**
 * 'parallel-threshold' when a valid implementation with another parallel threshold (exact zero,
 * or up to PARALLEL_CHOICE_MAX) could answer differently from the library's EPS_DIR; '' when every
 * choice gives the same hit, t (within its bound) and face.
 */
function parallelChoice(
  input: RayCompareInput, r: number, b: number, solid: boolean,
  mine: { hit: boolean; t: number; face: number; tBound: number },
): string {
  const alt = makeRayObbScratch();
  for (const eps of [Number.MIN_VALUE, PARALLEL_CHOICE_MAX]) {
    const hit = rayObbAt(input.boxes.data, b, input.rays.data, r, solid, alt, eps);
    if (hit !== mine.hit || (hit && (alt.face !== mine.face || Math.abs(alt.t - mine.t) > mine.tBound))) {
      return 'parallel-threshold';
    }
  }
  return '';
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

/**
 * How an implementation's face id relates to the reference's face for the same hit:
 * - 'same';
 * - 'exact-tie': another face entered at exactly the same t (an exact edge or corner hit: both
 *   faces hold the point, and the choice is the implementation's);
 * - 'tie': another face whose crossing is within the bounds of the hit's t (edge or corner);
 * - 'wrong': a face the ray cannot have entered there. A face on the wrong side of its axis for
 *   the ray's direction (a back face) is wrong whatever the distances say — on a flat box both
 *   faces of the zero axis lie at the same t, and only the direction tells them apart — unless
 *   the ray is so near parallel to that axis's faces that the sign of its local direction is
 *   within rounding.
 */
function faceCheck(diag: RayBoxDiag, boxes: BoxArray, b: number, implFace: number): 'same' | 'exact-tie' | 'tie' | 'wrong' {
  if (implFace === diag.face) {
    return 'same';
  }
  if (implFace >= 6 || diag.face === FACE_NONE) {
    return diag.fragile ? 'tie' : 'wrong';
  }
  const k = implFace >> 1;
  const dk = localD(diag.s, k);
  // The face a ray moving along d_k enters (or, leaving from inside, exits) on axis k.
  const entered = dk > 0 ? 2 * k + 1 : 2 * k;
  const expected = diag.inside ? entered ^ 1 : entered;
  if (implFace !== expected && Math.abs(dk) > 16 * diag.u) {
    return 'wrong';
  }
  const tk = slabDistance(diag.s, half(boxes, b, k), implFace);
  const bk = rayDistanceBound(diag.scale, tk, dk, diag.u);
  if (!(Number.isFinite(tk) && Math.abs(tk - diag.t) <= bk + diag.tBound)) {
    return diag.fragile ? 'tie' : 'wrong';
  }
  const ex = diag.exact();
  const mine = ex && exactCrossing(ex, diag.local, k, !diag.inside);
  const theirs = ex && exactCrossing(ex, diag.local, diag.face >> 1, !diag.inside);
  if (isExact(mine) && isExact(theirs)) {
    return mine === theirs ? 'exact-tie' : 'wrong';
  }
  return 'tie';
}

/** Boxes b and c are the same box (every number equal): an implementation computes the same answer for both. */
function sameBox(boxes: BoxArray, b: number, c: number): boolean {
  const d = boxes.data;
  const ob = b * BOX_F64.STRIDE, oc = c * BOX_F64.STRIDE;
  for (let k = 0; k < BOX_F64.STRIDE; k++) {
    if (d[ob + k] !== d[oc + k]) {
      return false;
    }
  }
  return true;
}

/** A hit's answer for reports, with only the fields the implementation reports. */
function rayAnswer(box: number, t: number | undefined, face: number | undefined, inside: boolean | undefined): CaseAnswer {
  if (box < 0) {
    return { kind: 'ray', box: -1 };
  }
  return {
    kind: 'ray', box,
    ...(t !== undefined ? { t } : {}),
    ...(face !== undefined ? { face } : {}),
    ...(inside !== undefined ? { inside } : {}),
  };
}

/**
 * Classifies an implementation's closest hits (the library's GPU, or any other) against the
 * reference. Beyond the error bounds of ./errorModel.ts, what is exactly decidable is decided
 * exactly (./exact.ts): a hit, a miss or a face that every conforming implementation computes
 * exactly, the tie rule between boxes whose t are exactly equal (or that are the same box), and
 * the side of a flat box's face. A t that is NaN, infinite or negative is a mismatch
 * ('not-finite', 'negative-t').
 *
 * @example
 * const cmp = compareClosestHits({ boxes, rays, origin: set.origin }, await gpu.closestHit(set, rays));
 * console.log(formatComparison(cmp)); // throws nothing; cmp.ok is false on any mismatch
 */
export function compareClosestHits(
  input: RayCompareInput, impl: ClosestHits, ref: ClosestHits = closestHit(input.boxes, input.rays, input.options ?? {}),
  options: CompareOptions = {},
): Comparison {
  const tally = new Tally(options.maxCases ?? 20);
  const sRef = makeRayObbScratch();
  const sImpl = makeRayObbScratch();
  const sScan = makeRayObbScratch();
  const n = input.rays.count;
  if (impl.count !== n) {
    throw new RangeError(`compareClosestHits: the implementation has ${impl.count} results for ${n} rays`);
  }
  const checkFaces = options.checkFaces ?? true;
  const has = {
    t: options.fields?.t ?? true,
    face: checkFaces && (options.fields?.face ?? true),
    inside: checkFaces && (options.fields?.inside ?? true),
  };
  for (let r = 0; r < n; r++) {
    const i = ref.box[r]!;
    const j = impl.box[r]!;
    const tReported = impl.t[r]!;
    const answer = rayAnswer(j, has.t ? tReported : undefined, has.face ? impl.face[r]! : undefined, has.inside ? impl.inside[r] === 1 : undefined);
    const expected = rayAnswer(i, ref.t[r]!, ref.face[r]!, ref.inside[r] === 1);
    const mk = (verdict: Verdict, reason: string, detail: string): CaseReport => ({
      index: r, verdict, reason, detail: `ray ${r}: ${detail}`, input: rayInput(input, r, [i, j]), answer, expected,
    });
    if (j >= 0 && has.t && !(tReported >= 0 && Number.isFinite(tReported))) {
      const negative = tReported < 0 && Number.isFinite(tReported);
      tally.add(mk('mismatch', negative ? 'negative-t' : 'not-finite', `box ${j} at t ${fmt(tReported)}: a hit's distance is finite and ≥ 0`));
      continue;
    }
    // Without a reported t, the implementation's box stands at its reference distance.
    const tg = has.t || j < 0 ? tReported : diagnoseRayBox(input, r, j, sImpl).t;
    const minDistance = input.minDistance ?? 0;
    if (minDistance > 0 && i >= 0 && (j < 0 || tg < minDistance)) {
      const d = diagnoseRayBox(input, r, i, sRef);
      if (j >= 0) {
        tally.add(mk(Math.abs(tg - minDistance) <= d.tBound ? 'ambiguous' : 'mismatch', Math.abs(tg - minDistance) <= d.tBound ? 'min-range-edge' : 'min-range',
          `implementation box ${j} at t ${fmt(tg)}, nearer than the minimum ${fmt(minDistance)}`));
        continue;
      }
      if (d.t < minDistance - d.tBound) {
        tally.ok();
        continue;
      }
      if (d.t <= minDistance + d.tBound) {
        tally.add(mk('ambiguous', 'min-range-edge', `implementation no return, reference box ${i} at t ${fmt(d.t)} within ${fmt(d.tBound)} of the minimum ${fmt(minDistance)}`));
        continue;
      }
    }
    if (i === j) {
      if (i < 0) {
        tally.ok();
        continue;
      }
      const d = diagnoseRayBox(input, r, i, sRef);
      const implInside = has.inside ? impl.inside[r] === 1 : d.inside;
      if (implInside !== d.inside) {
        tally.add(mk(d.fragile ? 'ambiguous' : 'mismatch', d.fragile ? d.fragileWhy : 'inside-flag',
          `box ${i}: implementation inside=${implInside}, reference inside=${d.inside}`));
        continue;
      }
      const err = Math.abs(tg - d.t);
      if (err > d.tBound + 1e-30 && d.fragile) {
        // A ray in a face plane (or through an edge) has no well-conditioned crossing point.
        tally.add(mk('ambiguous', d.fragileWhy, `box ${i}: t implementation ${fmt(tg)} vs reference ${fmt(d.t)}`));
        continue;
      }
      if (err > d.tBound + 1e-30) {
        tally.add(mk('mismatch', 't-error', `box ${i}: t implementation ${fmt(tg)} vs reference ${fmt(d.t)} (|Δ| ${fmt(err)} > bound ${fmt(d.tBound)})`));
        continue;
      }
      if (!has.face) {
        tally.ok(d.tBound > 0 ? err / d.tBound : 0);
        continue;
      }
      const face = faceCheck(d, input.boxes, i, impl.face[r]!);
      if (face === 'wrong') {
        tally.add(mk('mismatch', 'face', `box ${i}: face implementation ${impl.face[r]} vs reference ${d.face}` +
          (impl.face[r]! < 6 && d.face < 6 && impl.face[r]! >> 1 === d.face >> 1 ? ' (the opposite side: a back face)' : '')));
        continue;
      }
      if (face === 'tie') {
        tally.add(mk('ambiguous', 'edge-or-corner-face', `box ${i}: face implementation ${impl.face[r]} vs reference ${d.face} at t ${fmt(d.t)}`));
        continue;
      }
      tally.ok(d.tBound > 0 ? err / d.tBound : 0);
      continue;
    }
    // Different boxes: acceptable only when the reference shows the choice within error.
    if (j >= 0 && (j >= input.boxes.count || !filterAccepts(input.options, r, j))) {
      tally.add(mk('mismatch', 'filtered-box', `implementation returned box ${j}, which masks or exclude rule out`));
      continue;
    }
    // The same box listed twice: an implementation computes the same t for both, so the smaller index wins.
    if (j >= 0 && input.exactInputs !== false) {
      let twin = -1;
      for (let m = 0; m < j && twin < 0; m++) {
        if (sameBox(input.boxes, m, j) && filterAccepts(input.options, r, m)) {
          twin = m;
        }
      }
      if (twin >= 0) {
        tally.add(mk('mismatch', 'tie-rule', `implementation box ${j}, but box ${twin} is the same box with a smaller index (ties go to the smallest index)`));
        continue;
      }
    }
    const di = i >= 0 ? diagnoseRayBox(input, r, i, sRef) : undefined;
    const dj = j >= 0 ? diagnoseRayBox(input, r, j, sImpl) : undefined;
    const ti = di ? di.t : Infinity;
    const bi = di ? di.tBound : 0;
    if (di && dj?.hit && di.tExact() && dj.tExact()) {
      // Both distances exact: the order is exact, and an exact tie goes to the smallest index.
      const tie = dj.t === di.t;
      tally.add(mk('mismatch', tie ? 'tie-rule' : 'wrong-box',
        `implementation box ${j} at t ${fmt(dj.t)}, reference box ${i} at t ${fmt(ti)}, both exact` +
          (tie ? ' (an exact tie: the smallest index wins)' : '')));
      continue;
    }
    // The nearest robust hit over every box: no implementation answer may lie clearly beyond it.
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
    const wrong = j < 0 ? 'missing-hit' : i < 0 ? 'extra-hit' : 'wrong-box';
    tally.add(mk(plausibleJ && iCanLose ? 'ambiguous' : 'mismatch', plausibleJ && iCanLose ? why : wrong,
      `implementation box ${j} t ${fmt(tg)}, reference box ${i} t ${fmt(ti)}` +
        (dj ? ` (reference for box ${j}: ${dj.hit ? `t ${fmt(dj.t)}` : 'miss'}${dj.fragile ? `, ${dj.fragileWhy}` : ''})` : '') +
        (di?.fragile ? ` (box ${i}: ${di.fragileWhy})` : '')));
  }
  return tally.result('closestHit', n);
}

/**
 * Classifies an implementation's any-hit flags against the reference.
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
      detail: `ray ${r}: implementation ${gpu[r]}, reference ${ref[r]}`, input: rayInput(input, r, []),
      answer: { kind: 'ray', box: gpu[r] ? 0 : -1 }, expected: { kind: 'ray', box: ref[r] ? 0 : -1 },
    });
  }
  return tally.result('anyHit', input.rays.count);
}

/**
 * Classifies an implementation's all-hits lists against the reference, ray by ray: each (ray, box) present on one
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
      throw new RangeError(`compareAllHits: the implementation's list is not sorted by ray, t, box at entry ${k}`);
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
      if (tg !== undefined && !(tg >= 0 && Number.isFinite(tg))) {
        verdict = 'mismatch';
        reason = tg < 0 && Number.isFinite(tg) ? 'negative-t' : 'not-finite';
        detail = `box ${b} at t ${fmt(tg)}: a hit's distance is finite and ≥ 0`;
        break;
      }
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
          detail = `box ${b}: t implementation ${fmt(tg)} vs reference ${fmt(d.t)} (${d.fragileWhy})`;
        } else if (err > d.tBound + 1e-30) {
          verdict = 'mismatch';
          reason = 't-error';
          detail = `box ${b}: t implementation ${fmt(tg)} vs reference ${fmt(d.t)} (bound ${fmt(d.tBound)})`;
          break;
        }
        ratio = Math.max(ratio, d.tBound > 0 ? err / d.tBound : 0);
      } else if (d.fragile) {
        verdict = 'ambiguous';
        reason = d.fragileWhy;
        detail = `box ${b} on the ${tg !== undefined ? 'implementation' : 'reference'} side only (${d.fragileWhy})`;
      } else {
        verdict = 'mismatch';
        reason = tg !== undefined ? 'extra-hit' : 'missing-hit';
        detail = `box ${b} ${tg !== undefined ? `hit by the implementation at t ${fmt(tg)} only` : `hit in the reference at t ${fmt(d.t)} only`}`;
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
  /** Floating origins the implementation's positions were re-based to (default [0, 0, 0]). */
  readonly origin?: Vec3;
  /** Unit roundoff of the implementation judged (default float32's). */
  readonly unitRoundoff?: number;
  /**
   * Whether the implementation was given exactly these boxes (default true), so that what its
   * arithmetic computes exactly decides exactly (./exact.ts).
   */
  readonly exactInputs?: boolean;
}

interface SatDiag {
  readonly gap: number;
  readonly axis: number;
  /**
   * Lowest and highest value the implementation's maximum can take (skip-band axes in or out):
   * per axis its reference gap ∓ its bound, the bound 0 where the gap is exact (./exact.ts).
   */
  readonly low: number;
  readonly high: number;
  readonly scale: number;
  readonly s: SatScratch;
  readonly u: number;
  /** Bound on axis k's gap in the implementation's precision: 0 where it is exact. */
  readonly bound: (k: number) => number;
  /** Whether axis k's gap is exact on every conforming implementation. */
  readonly exact: (k: number) => boolean;
}

function diagnoseSat(
  a: BoxArray, ia: number, b: BoxArray, ib: number, faceOnly: boolean, origin: Vec3, s: SatScratch, u = F32_UNIT_ROUNDOFF, exactInputs = true,
): SatDiag {
  const gap = obbObbSatAt(a.data, ia, b.data, ib, faceOnly, s);
  const ao = ia * BOX_F64.STRIDE;
  const bo = ib * BOX_F64.STRIDE;
  const [ox, oy, oz] = origin;
  const ad = a.data;
  const bd = b.data;
  const scale =
    norm(ad[ao]! - ox, ad[ao + 1]! - oy, ad[ao + 2]! - oz) + norm(bd[bo]! - ox, bd[bo + 1]! - oy, bd[bo + 2]! - oz) +
    ad[ao + 3]! + ad[ao + 4]! + ad[ao + 5]! + bd[bo + 3]! + bd[bo + 4]! + bd[bo + 5]!;
  const format = exactInputs ? formatOfRoundoff(u) : undefined;
  const band = (boundOf: (k: number) => number, optionalOf: (k: number) => boolean): { low: number; high: number } => {
    let low = -Infinity;
    let high = -Infinity;
    for (let k = 0; k < (faceOnly ? 6 : 15); k++) {
      const g = s.axisGap[k]!;
      if (Number.isNaN(g)) {
        continue;
      }
      const optional = optionalOf(k);
      const bound = boundOf(k);
      if (s.tested[k] && !optional) {
        low = Math.max(low, g - bound);
      }
      if (s.tested[k] || optional) {
        high = Math.max(high, g + bound);
      }
    }
    return { low, high };
  };
  const globalBound = (k: number): number => satGapBound(scale, s.axisLenSq[k]!, u);
  const inSkipBand = (k: number): boolean => k >= 6 && Math.abs(s.axisLenSq[k]! - SAT_EDGE_EPS_SQ) <= edgeSkipBand(s.axisLenSq[k]!, u);
  let { low, high } = band(globalBound, inSkipBand);
  let exactGap: Float64Array | undefined;
  let exactLenSq: Float64Array | undefined;
  const loadExact = (): void => {
    if (format && !exactGap) {
      const e = satExactness(ad, ia, bd, ib, [ox, oy, oz], format);
      exactGap = e.gap;
      exactLenSq = e.lenSq;
    }
  };
  const exact = (k: number): boolean => {
    loadExact();
    return exactGap !== undefined && exactGap[k] === s.axisGap[k];
  };
  const bound = (k: number): number => (exact(k) ? 0 : globalBound(k));
  if (format) {
    loadExact();
    if (exactGap && exactGap.some((g) => !Number.isNaN(g))) {
      ({ low, high } = band(bound, (k) => inSkipBand(k) && !isExact(exactLenSq?.[k])));
    }
  }
  return { gap, axis: s.axis, low, high, scale, s, u, bound, exact };
}

function pairInput(a: BoxArray, ia: number, b: BoxArray, ib: number): Record<string, unknown> {
  return { a: boxRecord(a, ia), b: boxRecord(b, ib) };
}

/**
 * Whether an implementation that tests near-parallel edge-cross axes the library skips (a valid
 * choice: the skip is the library's, and conservative) may report a gap `g` on skipped axis k:
 * float64 confirms the axis's gap — its own error bound (unit roundoff 2⁻⁵³, which grows as
 * 1/|L| like float32's) leaves its side of the tolerance certain — and `g` lies within the
 * implementation's bound of it. Without an axis (a decision-only result, a pair list), any
 * skipped axis whose confirmed gap reaches `g` allows it.
 */
function skippedAxisAllows(d: SatDiag, g: number, tol: number, axis?: number): boolean {
  for (let k = 6; k < 15; k++) {
    const g64 = d.s.axisGap[k]!;
    if ((axis !== undefined && k !== axis) || d.s.tested[k] || Number.isNaN(g64)) {
      continue;
    }
    const bound = satGapBound(d.scale, d.s.axisLenSq[k]!, d.u);
    const bound64 = satGapBound(d.scale, d.s.axisLenSq[k]!, UNIT_ROUNDOFF.f64);
    const confirmed = Math.abs(g64 - tol) > bound64 && (g64 > tol) === (g > tol);
    if (confirmed && (axis === undefined ? g64 + bound >= g : Math.abs(g - g64) <= bound)) {
      return true;
    }
  }
  return false;
}

/**
 * Classifies per-pair SAT results (obbPairs, obbOneVsMany; the library's GPU or any
 * implementation) against the reference. What is exactly decidable is decided exactly: with
 * exact gaps (./exact.ts) there is no 'touching'. Valid choices other than the library's are
 * never mismatches: another axis of exactly the largest gap agrees; a gap on a near-parallel
 * edge-cross axis that the library skips is 'skipped-edge-axis' when float64 confirms it.
 * A gap that is NaN or infinite is a mismatch ('not-finite'). Results may omit gap and axis
 * (a decision-only SAT: `fields`).
 *
 * @example
 * comparePairs({ a: set.boxes, pairs, origin: set.origin }, await gpu.obbPairs(set, pairs)).ok
 */
export function comparePairs(
  input: PairCompareInput, impl: PairResults, ref?: PairResults, options: CompareOptions & { readonly pairFields?: { readonly gap?: boolean; readonly axis?: boolean } } = {},
): Comparison {
  const a = input.a;
  const b = input.b ?? input.a;
  const n = input.pairs.length / 2;
  const tol = input.options?.tolerance ?? SAT_TOLERANCE;
  const faceOnly = input.options?.faceOnly ?? false;
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeSatScratch();
  const origin = input.origin ?? [0, 0, 0];
  const hasGap = options.pairFields?.gap ?? true;
  const hasAxis = hasGap && (options.pairFields?.axis ?? true);
  const u = input.unitRoundoff ?? F32_UNIT_ROUNDOFF;
  void ref; // the reference is recomputed per pair with diagnostics
  for (let k = 0; k < n; k++) {
    const ia = input.pairs[2 * k]!;
    const ib = input.pairs[2 * k + 1]!;
    const d = diagnoseSat(a, ia, b, ib, faceOnly, origin, s, u, input.exactInputs ?? true);
    const refOverlap = d.gap <= tol;
    const implOverlap = impl.overlap[k] === 1;
    const gg = impl.gap[k]!;
    const ag = impl.axis[k]!;
    const answer: CaseAnswer = { kind: 'pair', overlap: implOverlap, ...(hasGap ? { gap: gg } : {}), ...(hasAxis ? { axis: ag } : {}) };
    const expected: CaseAnswer = { kind: 'pair', overlap: refOverlap, gap: d.gap, axis: d.axis };
    const said = `implementation ${implOverlap ? 'overlap' : 'separate'}${hasGap ? `, gap ${fmt(gg)}` : ''}${hasAxis ? ` on ${SAT_AXIS_NAMES[ag] ?? ag}` : ''}`;
    const mk = (verdict: Verdict, reason: string, detail: string): CaseReport => ({
      index: k, verdict, reason,
      detail: `pair ${k} (${ia}, ${ib}): ${detail}; ${said}, reference ${refOverlap ? 'overlap' : 'separate'}, gap ${fmt(d.gap)} on ${SAT_AXIS_NAMES[d.axis]}`,
      input: pairInput(a, ia, b, ib), answer, expected,
    });
    if (hasGap && !Number.isFinite(gg)) {
      tally.add(mk('mismatch', 'not-finite', 'the gap is not a finite number'));
      continue;
    }
    const touching = d.low < d.high && tol >= d.low && tol <= d.high;
    if (implOverlap !== refOverlap) {
      if (touching) {
        tally.add(mk('ambiguous', 'touching', 'overlap decision within error'));
      } else if (!implOverlap && !faceOnly && skippedAxisAllows(d, hasGap ? gg : tol + Number.EPSILON, tol, hasAxis ? ag : undefined)) {
        tally.add(mk('ambiguous', 'skipped-edge-axis', 'separated along a near-parallel edge-cross axis the library skips; float64 confirms the separation'));
      } else {
        tally.add(mk('mismatch', 'overlap', 'overlap decision differs'));
      }
      continue;
    }
    if (!hasGap) {
      tally.ok();
      continue;
    }
    // The flag must follow the implementation's own gap (against the tolerance as its precision
    // holds it: float32's rounding of 1e-6 for float32, within one rounding otherwise).
    const tolHeld = u === F32_UNIT_ROUNDOFF ? Math.fround(tol) : tol;
    const tolSlack = u === F32_UNIT_ROUNDOFF ? 0 : 2 * d.u * Math.abs(tol);
    if (Math.abs(gg - tolHeld) > tolSlack && implOverlap !== gg <= tolHeld) {
      tally.add(mk('mismatch', 'inconsistent', 'the overlap flag disagrees with the implementation\'s own gap'));
      continue;
    }
    if (!hasAxis) {
      // A gap without its axis: it must be a value the maximum can take.
      tally.add(gg < d.low || gg > d.high
        ? (skippedAxisAllows(d, gg, tol) ? mk('ambiguous', 'skipped-edge-axis', 'a larger gap a near-parallel edge-cross axis allows') : mk('mismatch', 'gap-error', `gap outside [${fmt(d.low)}, ${fmt(d.high)}]`))
        : { index: k, verdict: 'agree', reason: '', detail: '', input: {} });
      continue;
    }
    // An axis the library skips as near-parallel: valid when float64 confirms its gap.
    if (ag >= 6 && ag < 15 && !faceOnly && !d.s.tested[ag] && !Number.isNaN(d.s.axisGap[ag]!)) {
      if (skippedAxisAllows(d, gg, tol, ag) && gg >= d.low) {
        const bound = satGapBound(d.scale, d.s.axisLenSq[ag]!, d.u);
        tally.add(Math.abs(gg - d.gap) <= bound ? { index: k, verdict: 'agree', reason: '', detail: '', input: {} }
          : mk('ambiguous', 'skipped-edge-axis', 'a gap on a near-parallel edge-cross axis the library skips; float64 confirms it'));
      } else {
        tally.add(mk('mismatch', 'gap-error', 'a near-parallel edge-cross axis whose float64 gap does not support the gap reported'));
      }
      continue;
    }
    // The implementation's axis must be one the reference evaluated, with the same gap within its bound…
    const axisGap = d.s.axisGap[ag];
    const bound = ag < 15 ? d.bound(ag) : 0;
    if (ag >= (faceOnly ? 6 : 15) || axisGap === undefined || Number.isNaN(axisGap) || Math.abs(gg - axisGap) > bound) {
      tally.add(mk('mismatch', 'gap-error', `the gap differs from the reference gap on its axis (${fmt(axisGap ?? NaN)}, bound ${fmt(bound)}${bound === 0 ? ': exact' : ''})`));
      continue;
    }
    // …and that axis must attain the maximum within error (several axes may tie).
    if (gg < d.low || gg > d.high) {
      tally.add(mk('mismatch', 'not-largest-gap', `gap outside [${fmt(d.low)}, ${fmt(d.high)}]`));
      continue;
    }
    if (ag !== d.axis) {
      // Exactly equal gaps: which of them to name is the implementation's choice.
      if (d.exact(ag) && d.exact(d.axis) && axisGap === d.gap) {
        tally.ok();
      } else {
        tally.add(mk('ambiguous', 'axis-tie', 'another axis attains the largest gap within error'));
      }
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
  /** As {@link PairCompareInput.exactInputs}. */
  readonly exactInputs?: boolean;
}

/**
 * Classifies an overlapping-pair list (obbCross, allPairs; the library's GPU or any
 * implementation): pairs on one side only must be touching within error (never when their gaps
 * are exact), or separated along a near-parallel edge-cross axis the library skips; the list
 * must be sorted and free of duplicates.
 *
 * @example
 * comparePairLists({ a: set.boxes, origin: set.origin }, (await gpu.allPairs(set)).pairs).ok
 */
export function comparePairLists(
  input: PairListCompareInput, impl: Uint32Array, ref?: Uint32Array, options: CompareOptions = {},
): Comparison {
  const self = input.b === undefined;
  const b = input.b ?? input.a;
  const reference = ref ?? (self ? allPairs(input.a, input.options ?? {}) : obbCross(input.a, b, input.options ?? {}));
  const tol = input.options?.tolerance ?? SAT_TOLERANCE;
  const faceOnly = input.options?.faceOnly ?? false;
  const tally = new Tally(options.maxCases ?? 20);
  const s = makeSatScratch();
  const key = (i: number, j: number): number => i * 4294967296 + j;
  const g = new Set<number>();
  for (let k = 0; k < impl.length / 2; k++) {
    const i = impl[2 * k]!, j = impl[2 * k + 1]!;
    if (k > 0) {
      const pi = impl[2 * k - 2]!, pj = impl[2 * k - 1]!;
      if (pi > i || (pi === i && pj >= j)) {
        throw new RangeError(`comparePairLists: the implementation's list is not sorted and unique at entry ${k} (${i}, ${j})`);
      }
    }
    if (self && i >= j) {
      throw new RangeError(`comparePairLists: the implementation's pair ${k} (${i}, ${j}) does not have i < j`);
    }
    g.add(key(i, j));
  }
  const rset = new Set<number>();
  for (let k = 0; k < reference.length / 2; k++) {
    rset.add(key(reference[2 * k]!, reference[2 * k + 1]!));
  }
  const originA = input.origin ?? [0, 0, 0];
  const sameOrigin = !input.originB || input.originB.every((x, k) => x === originA[k]);
  const diff = [...g].filter((x) => !rset.has(x)).concat([...rset].filter((x) => !g.has(x)));
  for (const k of diff) {
    const i = Math.floor(k / 4294967296), j = k % 4294967296;
    const d = diagnoseSat(input.a, i, b, j, faceOnly, originA, s, input.unitRoundoff, (input.exactInputs ?? true) && sameOrigin);
    const touching = d.low < d.high && tol >= d.low && tol <= d.high;
    const implOnly = g.has(k);
    const skipped = !implOnly && !faceOnly && !touching && skippedAxisAllows(d, tol + Number.EPSILON, tol);
    const verdict: Verdict = touching || skipped ? 'ambiguous' : 'mismatch';
    tally.add({
      index: i, verdict, reason: touching ? 'touching' : skipped ? 'skipped-edge-axis' : implOnly ? 'extra-pair' : 'missing-pair',
      detail: `pair (${i}, ${j}) ${implOnly ? 'listed by the implementation only' : 'in the reference only'}; reference gap ${fmt(d.gap)} on ${SAT_AXIS_NAMES[d.axis]}`,
      input: pairInput(input.a, i, b, j),
      answer: { kind: 'pair', overlap: implOnly }, expected: { kind: 'pair', overlap: !implOnly, gap: d.gap, axis: d.axis },
    });
  }
  const total = self ? (input.a.count * (input.a.count - 1)) / 2 : input.a.count * b.count;
  // Every other pair is on both lists or on neither: the two sides decided it alike.
  tally.agreeing(total - diff.length);
  return tally.result(self ? 'allPairs' : 'obbCross', total);
}

// ------------------------------------------------------------------------------------------------
// Frustum culling

/** What a frustum comparison needs: the boxes, the world planes, the set's floating origin, and which test. */
export interface FrustumCompareInput {
  readonly boxes: BoxArray;
  readonly planes: readonly Plane[];
  readonly origin?: Vec3;
  /**
   * The exact test was asked for (FrustumDraw.exact; default false: the plane test). The list is
   * then judged against the exact reference (frustumCull with `exact`), each box on one side only
   * by the separating axes that decide it.
   */
  readonly exact?: boolean;
}

/**
 * Classifies an implementation's visible list (any order, no repeats) against the reference.
 *
 * The plane test: a box on one side only must lie within float32 error of a plane (its margin
 * n·c + d + r near 0; `on-plane`), else `extra-visible` / `missing-visible`.
 *
 * The exact test (`input.exact`): every axis of the OBB–frustum test decides (planes P0..P5 by the
 * plane test's bound, box axes and edge crosses by frustumGapBound, src/compare/errorModel.ts). A
 * box kept by the implementation only is ambiguous when every axis that separates it in float64
 * is within its bound of 0 (`on-plane` when all are planes, else `on-axis`) or is a near-parallel
 * edge cross that float32 may skip (|L|² within the skip band of SAT_EDGE_EPS_SQ:
 * `skipped-edge-axis`); a box culled by the implementation only is ambiguous when some axis could
 * separate it in float32 (its gap within its bound of 0, or above), a near-parallel edge cross
 * that the reference skips included (testing it is a valid choice: `skipped-edge-axis`). Anything
 * else is a mismatch.
 *
 * @example
 * compareFrustum({ boxes: set.boxes, planes, origin: set.origin }, (await culler.cull(set, planes)).visible).ok
 * compareFrustum({ boxes: set.boxes, planes, origin: set.origin, exact: true }, (await culler.cull(set, planes, { indexCount: 36, exact: true })).visible).ok
 */
export function compareFrustum(input: FrustumCompareInput, gpuVisible: Uint32Array, options: CompareOptions = {}): Comparison {
  const tally = new Tally(options.maxCases ?? 20);
  const exact = input.exact ?? false;
  const ref = new Set(frustumCull(input.boxes, input.planes, { exact }));
  const got = new Set<number>();
  for (const b of gpuVisible) {
    if (got.has(b) || b >= input.boxes.count) {
      throw new RangeError(`compareFrustum: the implementation's list repeats or overruns box ${b}`);
    }
    got.add(b);
  }
  const origin = input.origin ?? [0, 0, 0];
  const local = rebasePlanes(input.planes, origin);
  const shape = exact ? frustumShape(input.planes) : undefined;
  let reach = 0;
  for (let j = 0; shape && j < 8; j++) {
    reach = Math.max(reach, norm(shape.corners[3 * j]! - origin[0], shape.corners[3 * j + 1]! - origin[1], shape.corners[3 * j + 2]! - origin[2]));
  }
  const sat = makeObbFrustumScratch();
  for (let b = 0; b < input.boxes.count; b++) {
    if (got.has(b) === ref.has(b)) {
      tally.ok();
      continue;
    }
    const o = b * BOX_F64.STRIDE;
    const d = input.boxes.data;
    const scale = norm(d[o]! - origin[0], d[o + 1]! - origin[1], d[o + 2]! - origin[2]) + d[o + 3]! + d[o + 4]! + d[o + 5]!;
    const margins = input.planes.map((p) => boxPlaneMargin(input.boxes, b, p));
    const planeBound = (k: number): number => positionBound(scale + Math.abs(local[k]![3]));
    const side = got.has(b) ? 'visible to the implementation only' : 'visible in the reference only';
    const caseInput = { box: boxRecord(input.boxes, b), planes: input.planes, exact };
    if (!shape) {
      const near = local.some((_, k) => Math.abs(margins[k]!) <= planeBound(k));
      tally.add({
        index: b, verdict: near ? 'ambiguous' : 'mismatch', reason: near ? 'on-plane' : got.has(b) ? 'extra-visible' : 'missing-visible',
        detail: `box ${b} ${side}; plane margins ${margins.map(fmt).join(', ')}`,
        input: caseInput,
      });
      continue;
    }
    obbFrustumSatAt(d, b, input.planes, shape, sat);
    const S = scale + reach;
    const bound = (k: number): number => (k < 6 ? planeBound(k) : frustumGapBound(S, sat.axisLenSq[k]!));
    // float32 may skip an edge cross that float64 tests, or test one that it skips (|L|² from E, ≲ 8u per component: ≲ 3 × the box–box band).
    const maySkip = (k: number): boolean => k >= 9 && Math.abs(sat.axisLenSq[k]! - SAT_EDGE_EPS_SQ) <= 3 * edgeSkipBand(sat.axisLenSq[k]!);
    let reason: string | undefined;
    const axes: string[] = [];
    if (got.has(b)) {
      // Kept by the implementation only: every axis separating in float64 must be one float32 can miss.
      let planesOnly = true;
      let skips = false;
      let all = true;
      for (let k = 0; k < sat.axisCount; k++) {
        const gap = sat.axisGap[k]!;
        if (!sat.tested[k] || !(gap > 0)) {
          continue;
        }
        axes.push(`${obbFrustumAxisName(k)} ${fmt(gap)} (bound ${fmt(bound(k))})`);
        if (gap <= bound(k)) {
          planesOnly &&= k < 6;
        } else if (maySkip(k)) {
          skips = true;
        } else {
          all = false;
        }
      }
      reason = !all ? undefined : skips ? 'skipped-edge-axis' : planesOnly ? 'on-plane' : 'on-axis';
    } else {
      // Culled by the implementation only: some axis must be able to separate it in float32.
      for (let k = 0; k < sat.axisCount; k++) {
        const gap = sat.axisGap[k]!;
        if (!Number.isFinite(gap) || gap < -bound(k)) {
          continue;
        }
        // A skipped near-parallel axis may be tested by float32 near the threshold, or by another
        // implementation anywhere (a valid choice: when it separates, the box is outside).
        axes.push(`${obbFrustumAxisName(k)} ${fmt(gap)} (bound ${fmt(bound(k))})`);
        reason ??= sat.tested[k] ? (k < 6 ? 'on-plane' : 'on-axis') : 'skipped-edge-axis';
      }
    }
    tally.add({
      index: b, verdict: reason ? 'ambiguous' : 'mismatch', reason: reason ?? (got.has(b) ? 'extra-visible' : 'missing-visible'),
      detail: `box ${b} ${side} (exact test); largest gap ${fmt(sat.gap)} on ${obbFrustumAxisName(sat.axis)}; ${got.has(b) ? 'separating axes' : 'axes near separating'}: ${axes.join(', ') || 'none'}`,
      input: caseInput,
    });
  }
  return tally.result(exact ? 'frustumCullExact' : 'frustumCull', input.boxes.count);
}

/**
 * A printable report of one comparison.
 *
 * @example
 * console.log(formatComparison(comparison));
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
  if (c.note) {
    lines.push(`  (${c.note})`);
  }
  for (const x of c.cases.slice(0, maxCases)) {
    lines.push(`  ${x.verdict.toUpperCase()} ${x.reason}: ${x.detail}`);
    if (x.verdict === 'mismatch') {
      lines.push(`    input: ${JSON.stringify(x.input)}`);
    }
  }
  return lines.join('\n');
}
