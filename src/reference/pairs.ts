/**
 * Box–box queries over sets, float64. CPU twins of `shaders/pairs/listed.wgsl`:
 * `obbPairs` (a list of (i, j) pairs), `obbOneVsMany` (one box against a set), `obbCross` (two sets,
 * every overlapping (i, j)) and the brute-force `allPairs` that the broad phase will be checked
 * against; and of `shaders/pairs/status.wgsl`: `pairListStatus` (a pair list's state).
 */
import { PAIR_LIST_DISPATCH_WG, PAIR_LIST_OVERFLOW_CANDIDATES, PAIR_LIST_OVERFLOW_LIST, PAIR_LIST_OVERFLOW_STACK, SAT_TOLERANCE } from '../constants.ts';
import { BOX_F64, type BoxArray, type Obb } from '../core/types.ts';
import { makeSatScratch, obbObbSatAt } from './query/obbObbSat.ts';
import { writeBoxRecord } from '../core/canonical.ts';
import { checkPairs, type PairResults, type SatOptions } from '../core/queries.ts';

export { checkPairs, type PairResults };

function makePairResults(n: number): { count: number; overlap: Uint8Array; gap: Float64Array; axis: Uint8Array } {
  return { count: n, overlap: new Uint8Array(n), gap: new Float64Array(n), axis: new Uint8Array(n) };
}

/**
 * SAT on each listed pair (flat `[i0, j0, i1, j1, …]`) of one set.
 *
 * @example
 * const r = obbPairs(boxArrayFrom(boxes), new Uint32Array([0, 1]));
 * console.log(r.overlap[0], r.gap[0], SAT_AXIS_NAMES[r.axis[0]!])
 */
export function obbPairs(boxes: BoxArray, pairs: Uint32Array, options: SatOptions = {}): PairResults {
  checkPairs(pairs, boxes.count, boxes.count);
  const tol = options.tolerance ?? SAT_TOLERANCE;
  const faceOnly = options.faceOnly ?? false;
  const n = pairs.length / 2;
  const out = makePairResults(n);
  const s = makeSatScratch();
  for (let k = 0; k < n; k++) {
    const gap = obbObbSatAt(boxes.data, pairs[2 * k]!, boxes.data, pairs[2 * k + 1]!, faceOnly, s);
    out.gap[k] = gap;
    out.axis[k] = s.axis;
    out.overlap[k] = gap <= tol ? 1 : 0;
  }
  return out;
}

/**
 * One box (A) against every box of a set (B); results per box of the set.
 *
 * @example
 * obbOneVsMany(toObb(box), boxArrayFrom(boxes)).overlap // Uint8Array, one per box
 */
export function obbOneVsMany(box: Obb, boxes: BoxArray, options: SatOptions = {}): PairResults {
  const tol = options.tolerance ?? SAT_TOLERANCE;
  const faceOnly = options.faceOnly ?? false;
  const one = new Float64Array(BOX_F64.STRIDE);
  writeBoxRecord(one, 0, box);
  const out = makePairResults(boxes.count);
  const s = makeSatScratch();
  for (let k = 0; k < boxes.count; k++) {
    const gap = obbObbSatAt(one, 0, boxes.data, k, faceOnly, s);
    out.gap[k] = gap;
    out.axis[k] = s.axis;
    out.overlap[k] = gap <= tol ? 1 : 0;
  }
  return out;
}

/**
 * Every overlapping (i in A, j in B), flat `[i0, j0, …]`, sorted by i then j.
 *
 * @example
 * obbCross(cars, pedestrians) // Uint32Array [3, 0, 3, 7, …]
 */
export function obbCross(a: BoxArray, b: BoxArray, options: SatOptions = {}): Uint32Array {
  const tol = options.tolerance ?? SAT_TOLERANCE;
  const faceOnly = options.faceOnly ?? false;
  const s = makeSatScratch();
  const out: number[] = [];
  for (let i = 0; i < a.count; i++) {
    for (let j = 0; j < b.count; j++) {
      if (obbObbSatAt(a.data, i, b.data, j, faceOnly, s) <= tol) {
        out.push(i, j);
      }
    }
  }
  return Uint32Array.from(out);
}

/**
 * Every overlapping pair within one set, once each (i < j), sorted: the brute-force reference
 * for the broad phase.
 *
 * @example
 * allPairs(boxArrayFrom(boxes)) // Uint32Array [0, 7, 3, 9]
 */
export function allPairs(boxes: BoxArray, options: SatOptions = {}): Uint32Array {
  const tol = options.tolerance ?? SAT_TOLERANCE;
  const faceOnly = options.faceOnly ?? false;
  const s = makeSatScratch();
  const out: number[] = [];
  for (let i = 0; i < boxes.count; i++) {
    for (let j = i + 1; j < boxes.count; j++) {
      if (obbObbSatAt(boxes.data, i, boxes.data, j, faceOnly, s) <= tol) {
        out.push(i, j);
      }
    }
  }
  return Uint32Array.from(out);
}

/** What pairListStatus returns: PairListStatus (shaders/common/types.wgsl) as numbers. */
export interface PairListState {
  /** Pairs valid in the list: min(found, capacity). */
  readonly count: number;
  /** Overlapping pairs the narrow phase appended (more than the capacity: the list overflowed). */
  readonly found: number;
  /** Candidates the broad phase listed. */
  readonly candidates: number;
  /** PAIR_LIST_OVERFLOW_* bits; 0 when the list holds every overlapping pair. */
  readonly overflow: number;
  /** Workgroups of PAIR_LIST_DISPATCH_WG for one invocation per valid pair (x ≤ 65,535). */
  readonly dispatch: readonly [number, number, number];
}

/**
 * The state of a pair list recorded into an encoder, from its three counters and its two
 * capacities: CPU twin of pairsListStatus (shaders/pairs/status.wgsl), same statement order.
 *
 * @example
 * pairListStatus(1500, 9000, 0, 1024, 8192) // { count: 1024, overflow: LIST | CANDIDATES, … }
 */
export function pairListStatus(found: number, candidates: number, stackOverflows: number, capacity: number, candidateCapacity: number): PairListState {
  const count = Math.min(found, capacity);
  let overflow = 0;
  if (found > capacity) {
    overflow |= PAIR_LIST_OVERFLOW_LIST;
  }
  if (candidates > candidateCapacity) {
    overflow |= PAIR_LIST_OVERFLOW_CANDIDATES;
  }
  if (stackOverflows > 0) {
    overflow |= PAIR_LIST_OVERFLOW_STACK;
  }
  const groups = Math.ceil(count / PAIR_LIST_DISPATCH_WG);
  const x = Math.min(groups, 65535);
  const y = groups > 0 ? Math.ceil(groups / Math.max(x, 1)) : 0;
  return { count, found, candidates, overflow, dispatch: [x, y, 1] };
}
