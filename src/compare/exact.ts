/**
 * Exact cases: which quantities of the documented algorithms every conforming implementation
 * computes exactly, for the given inputs, in its precision. A decision made from exact quantities
 * is exactly decidable: the float64 reference decides it by the closed-set semantics, and an
 * implementation that decides otherwise is wrong, whatever the first-order bound of
 * ./errorModel.ts says (that bound, K·u·scale/|d_k|, is a worst case over every input of the same
 * size and cannot see that 1 − 1 is 0). The WebGPU CTS gives such results point intervals.
 *
 * The model (docs/design.md, "Exact cases"), for a binary format of p significand bits (float16
 * 11, float32 24, float64 53) with minimum normal exponent e_min:
 *
 * - an input is exact when it is representable (a normal number or zero; subnormals may be
 *   flushed to zero on GPUs);
 * - a product of exact values is exact when the product is representable; a product with an
 *   exact zero is an exact zero, whatever the other factor (0 · x = 0 for every finite x);
 * - a sum of exact terms is exact in **every order and grouping** when, with ℓ the lowest set bit
 *   of any term and S the sum of their magnitudes, S < 2^(ℓ + p) and ℓ ≥ e_min: every partial sum
 *   is then a multiple of 2^ℓ below 2^(ℓ + p) in magnitude, so representable, and the rounding of
 *   each addition is exact. Sums are checked over the union of the terms any reasonable
 *   formulation adds (e.g. `o·a − c·a` and `(o − c)·a`), so an implementation that orders the
 *   operations differently is covered too;
 * - a quotient is exact when the numerator is an exact zero (0 / d = 0), or the divisor is an
 *   exact power of two and the quotient representable (WGSL allows 2.5 ulp for x / y in general;
 *   a power-of-two divisor has an exact reciprocal on every implementation we know, and a
 *   correctly rounded division is exact there);
 * - the normalised ray direction is exact in a component that is zero (0 · anything), and in
 *   the nonzero component of a direction along a coordinate axis (±1); other nonzero components
 *   are not exact (√ and a division round).
 *
 * Exact values are carried as numbers and inexact ones as NaN, so a chain of operations needs no
 * flags: NaN propagates. The formats are chosen by the unit roundoff: 2⁻¹¹, 2⁻²⁴ and 2⁻⁵³ are
 * float16, float32 and float64; any other unit roundoff claims nothing exact.
 */
import { BOX_F64, RAY_F64 } from '../core/types.ts';

/** A binary floating-point format: significand bits (with the implicit one) and exponent range. */
export interface FloatFormat {
  readonly bits: number;
  /** Smallest exponent of a normal number (2^emin is the smallest normal magnitude). */
  readonly emin: number;
  /** Largest exponent of a finite number. */
  readonly emax: number;
}

const FORMATS: ReadonlyMap<number, FloatFormat> = new Map([
  [2 ** -11, { bits: 11, emin: -14, emax: 15 }],
  [2 ** -24, { bits: 24, emin: -126, emax: 127 }],
  [2 ** -53, { bits: 53, emin: -1022, emax: 1023 }],
]);

/**
 * The format whose unit roundoff is `u` (float16, float32, float64), or undefined for any other
 * unit roundoff: then nothing is claimed exact.
 *
 * @example
 * formatOfRoundoff(2 ** -24) // { bits: 24, emin: -126, emax: 127 }
 */
export function formatOfRoundoff(u: number): FloatFormat | undefined {
  return FORMATS.get(u);
}

const view = new DataView(new ArrayBuffer(8));

/** Exponent of the highest set bit of a finite nonzero double (⌊log₂|x|⌋), exactly. */
function msbExponent(x: number): number {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const e = (hi >>> 20) & 0x7ff;
  if (e !== 0) {
    return e - 1023;
  }
  // Subnormal double: scale up by 2^64 exactly and retry.
  return msbExponent(x * 2 ** 64) - 64;
}

/** Exponent of the lowest set bit of a finite nonzero double, exactly. */
function lsbExponent(x: number): number {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const e = (hi >>> 20) & 0x7ff;
  if (e === 0) {
    return lsbExponent(x * 2 ** 64) - 64;
  }
  const base = e - 1075; // exponent of the mantissa's last bit
  if (lo !== 0) {
    return base + ctz32(lo);
  }
  const m = hi & 0xfffff;
  return m !== 0 ? base + 32 + ctz32(m) : e - 1023; // no fraction bits: the implicit one
}

function ctz32(v: number): number {
  return 31 - Math.clz32(v & -v);
}

/**
 * Whether `x` is exactly representable in format `f` as zero or a normal number.
 *
 * @example
 * const f32 = formatOfRoundoff(2 ** -24)!;
 * representable(0.1, f32) // false; representable(0.375, f32) // true
 */
export function representable(x: number, f: FloatFormat): boolean {
  if (x === 0) {
    return true;
  }
  if (!Number.isFinite(x)) {
    return false;
  }
  const hi = msbExponent(x);
  return hi >= f.emin && hi <= f.emax && hi - lsbExponent(x) + 1 <= f.bits;
}

/** `x` when representable in `f`, else NaN (inexact). */
export function exactInput(x: number, f: FloatFormat): number {
  return representable(x, f) ? x : NaN;
}

/** An exact product, or NaN. A factor that is an exact zero makes an exact zero. */
export function exactMul(a: number, b: number, f: FloatFormat): number {
  if (a === 0 || b === 0) {
    return 0;
  }
  if (Number.isNaN(a) || Number.isNaN(b)) {
    return NaN;
  }
  // The product needs at most the sum of the factors' bit spans; within 53 the double is exact.
  const span = msbExponent(a) - lsbExponent(a) + 1 + (msbExponent(b) - lsbExponent(b) + 1);
  if (span > 53) {
    return NaN;
  }
  return exactInput(a * b, f);
}

/**
 * The exact sum of `terms` in every order and grouping, or NaN (an inexact term, or a partial
 * sum that some order could round). Zeros drop out.
 *
 * @example
 * const f32 = formatOfRoundoff(2 ** -24)!;
 * exactSum([1, -1, 0.5], f32) // 0.5; exactSum([2 ** 30, 1], f32) // NaN
 */
export function exactSum(terms: readonly number[], f: FloatFormat): number {
  let low = Infinity;
  let mag = 0;
  let sum = 0;
  for (const t of terms) {
    if (Number.isNaN(t)) {
      return NaN;
    }
    if (t === 0) {
      continue;
    }
    low = Math.min(low, lsbExponent(t));
    mag += Math.abs(t);
    sum += t;
  }
  if (mag === 0) {
    return 0;
  }
  // 2^(msb(mag) + 1) bounds Σ|t| even if the double sum `mag` rounded down: partial sums need at
  // most msb(mag) + 2 − low bits.
  if (low < f.emin || msbExponent(mag) + 2 - low > f.bits || msbExponent(mag) + 1 > f.emax) {
    return NaN;
  }
  // Every partial sum fits in f.bits ≤ 53 bits above 2^low: the double additions were exact.
  return sum;
}

/** An exact quotient, or NaN: 0 / d, or a division by an exact power of two. */
export function exactDiv(n: number, d: number, f: FloatFormat): number {
  if (n === 0 && d !== 0) {
    return 0;
  }
  if (Number.isNaN(n) || Number.isNaN(d) || d === 0) {
    return NaN;
  }
  if (msbExponent(d) !== lsbExponent(d)) {
    return NaN;
  }
  return exactInput(n / d, f);
}

/** An exact square root, or NaN: √0, or √(4^k) = 2^k. */
export function exactSqrt(x: number, f: FloatFormat): number {
  if (x === 0) {
    return 0;
  }
  if (Number.isNaN(x) || x < 0) {
    return NaN;
  }
  const e = msbExponent(x);
  return e === lsbExponent(x) && e % 2 === 0 ? exactInput(2 ** (e / 2), f) : NaN;
}

/** `x − origin` as the implementation receives it (re-based in float64, then rounded), or NaN. */
function rebased(x: number, origin: number, f: FloatFormat): number {
  const d = exactSum([x, -origin], { bits: 53, emin: -1022, emax: 1023 });
  return Number.isNaN(d) ? NaN : exactInput(d, f);
}

/**
 * A box's axes u, v, w as exact values or NaN. w counts as exact only when the given w and u × v
 * computed in the format agree exactly (the library's kernels compute w = u × v; others read w).
 */
function exactAxes(data: Float64Array, o: number, f: FloatFormat): number[][] {
  const axis = (off: number): number[] => [0, 1, 2].map((i) => exactInput(data[o + off + i]!, f));
  const u = axis(BOX_F64.U);
  const v = axis(BOX_F64.V);
  const cross = [
    exactSum([exactMul(u[1]!, v[2]!, f), -exactMul(u[2]!, v[1]!, f)], f),
    exactSum([exactMul(u[2]!, v[0]!, f), -exactMul(u[0]!, v[2]!, f)], f),
    exactSum([exactMul(u[0]!, v[1]!, f), -exactMul(u[1]!, v[0]!, f)], f),
  ];
  const w = axis(BOX_F64.W).map((x, i) => (x === cross[i] ? x : NaN));
  return [u, v, w];
}

/** Whether positions (re-based to `origin`) and half extents of box `o` could be exact: a cheap test first. */
function positionsExact(data: Float64Array, o: number, origin: readonly [number, number, number], f: FloatFormat, withHalf: boolean): boolean {
  for (let i = 0; i < 3; i++) {
    if (Number.isNaN(rebased(data[o + i]!, origin[i]!, f)) || (withHalf && !representable(data[o + BOX_F64.HALF + i]!, f))) {
      return false;
    }
  }
  return true;
}

const NOTHING3: readonly [number, number, number] = [NaN, NaN, NaN];

/** What is exact of one ray–box slab test (NaN: not exact). */
export interface RaySlabExactness {
  /** Local direction components d_k = d̂ · axis_k. */
  readonly d: readonly [number, number, number];
  /** Half extents. */
  readonly h: readonly [number, number, number];
  /** A parallel slab's slack h_k − |p_k| (how far inside the slab the origin lies). */
  readonly slack: readonly [number, number, number];
  /** The slab crossing numerators −h_k − p_k (the −face) and h_k − p_k (the +face). */
  readonly nNeg: readonly [number, number, number];
  readonly nPos: readonly [number, number, number];
  /** The crossing distances nNeg / d_k and nPos / d_k. */
  readonly tNeg: readonly [number, number, number];
  readonly tPos: readonly [number, number, number];
  /** maxDistance (infinite counts as exact: no rounding can move it). */
  readonly tMax: number;
}

/**
 * The exactness of ray `r` (RAY_F64 records) against box `b` (BOX_F64 records) for an
 * implementation of format `f` whose positions were re-based to `origin`: every quantity the
 * slab test decides by, exact or NaN.
 *
 * @example
 * const e = raySlabExactness(boxes.data, 0, rays.data, 0, [0, 0, 0], formatOfRoundoff(2 ** -24)!);
 * Number.isNaN(e.slack[1]) // false: the ray's y-slab slack is exact
 */
export function raySlabExactness(
  boxes: Float64Array, b: number, rays: Float64Array, r: number, origin: readonly [number, number, number], f: FloatFormat,
): RaySlabExactness {
  const bo = b * BOX_F64.STRIDE;
  const ro = r * RAY_F64.STRIDE;
  // Nothing the slab test decides by is exact when the origin or the centre is not (the common
  // case of random inputs): answer that at once.
  const tMaxRaw = rays[ro + RAY_F64.MAX]!;
  const tMax = Number.isFinite(tMaxRaw) ? exactInput(tMaxRaw, f) : tMaxRaw;
  if (!positionsExact(boxes, bo, origin, f, false) || !positionsExact(rays, ro, origin, f, false)) {
    return { d: NOTHING3, h: NOTHING3, slack: NOTHING3, nNeg: NOTHING3, nPos: NOTHING3, tNeg: NOTHING3, tPos: NOTHING3, tMax };
  }
  const o = [0, 1, 2].map((i) => rebased(rays[ro + RAY_F64.ORIGIN + i]!, origin[i]!, f));
  const c = [0, 1, 2].map((i) => rebased(boxes[bo + BOX_F64.CENTER + i]!, origin[i]!, f));
  const axes = exactAxes(boxes, bo, f);
  const dir = [0, 1, 2].map((i) => rays[ro + RAY_F64.DIR + i]!);
  const nonzero = dir.filter((x) => x !== 0).length;
  const dHat = dir.map((x) => (x === 0 ? 0 : nonzero === 1 && Math.abs(x) === 1 ? x : NaN));
  const triple = (fn: (k: number) => number): [number, number, number] => [fn(0), fn(1), fn(2)];
  const d = triple((k) => exactSum([0, 1, 2].map((i) => exactMul(dHat[i]!, axes[k]![i]!, f)), f));
  const h = triple((k) => exactInput(boxes[bo + BOX_F64.HALF + k]!, f));
  // p_k = (o − c) · a_k over the union of the terms o_i a_ki and −c_i a_ki.
  const pTerms = (k: number): number[] => [0, 1, 2].flatMap((i) => [exactMul(o[i]!, axes[k]![i]!, f), -exactMul(c[i]!, axes[k]![i]!, f)]);
  const p = triple((k) => exactSum(pTerms(k), f));
  const slack = triple((k) => {
    const s = Math.sign(p[k]!);
    return Number.isNaN(s) ? NaN : exactSum([h[k]!, ...pTerms(k).map((x) => -s * x)], f);
  });
  const nNeg = triple((k) => exactSum([-h[k]!, ...pTerms(k).map((x) => -x)], f));
  const nPos = triple((k) => exactSum([h[k]!, ...pTerms(k).map((x) => -x)], f));
  return {
    d, h, slack, nNeg, nPos,
    tNeg: triple((k) => exactDiv(nNeg[k]!, d[k]!, f)),
    tPos: triple((k) => exactDiv(nPos[k]!, d[k]!, f)),
    tMax,
  };
}

/** What is exact of one SAT test: per axis (A0..A2, B0..B2, AixBj) the separation and |L|². */
export interface SatExactness {
  /** Separation |T·L| − rA − rB along the unnormalised axis, exact or NaN. */
  readonly sep: Float64Array;
  /** |L|², exact or NaN (1 for face axes). */
  readonly lenSq: Float64Array;
  /** The gap sep / |L|, exact or NaN. */
  readonly gap: Float64Array;
}

/**
 * The exactness of the 15-axis SAT between box `ia` of `a` and box `ib` of `b` (BOX_F64
 * records) for format `f`, positions re-based to `origin`.
 *
 * @example
 * satExactness(boxes.data, 0, boxes.data, 1, [0, 0, 0], formatOfRoundoff(2 ** -24)!).gap[0] // 0.5 for unit cubes 2.5 apart on x
 */
export function satExactness(
  a: Float64Array, ia: number, b: Float64Array, ib: number, origin: readonly [number, number, number], f: FloatFormat,
): SatExactness {
  const ao = ia * BOX_F64.STRIDE;
  const bo = ib * BOX_F64.STRIDE;
  if (!positionsExact(a, ao, origin, f, true) || !positionsExact(b, bo, origin, f, true)) {
    const none = new Float64Array(15).fill(NaN);
    return { sep: none, lenSq: none, gap: none };
  }
  const cA = [0, 1, 2].map((i) => rebased(a[ao + i]!, origin[i]!, f));
  const cB = [0, 1, 2].map((i) => rebased(b[bo + i]!, origin[i]!, f));
  const A = exactAxes(a, ao, f);
  const B = exactAxes(b, bo, f);
  const hA = [0, 1, 2].map((k) => exactInput(a[ao + BOX_F64.HALF + k]!, f));
  const hB = [0, 1, 2].map((k) => exactInput(b[bo + BOX_F64.HALF + k]!, f));
  // R[i][j] = Ai·Bj; the terms of T_A[i] = (cB − cA)·Ai.
  const R = A.map((ai) => B.map((bj) => exactSum([0, 1, 2].map((m) => exactMul(ai[m]!, bj[m]!, f)), f)));
  const taTerms = A.map((ai) => [0, 1, 2].flatMap((m) => [exactMul(cB[m]!, ai[m]!, f), -exactMul(cA[m]!, ai[m]!, f)]));
  const ta = taTerms.map((t) => exactSum(t, f));
  const scaled = (terms: readonly number[], s: number): number[] => terms.map((x) => exactMul(x, s, f));
  const sep = new Float64Array(15).fill(NaN);
  const lenSq = new Float64Array(15).fill(NaN);
  const gap = new Float64Array(15).fill(NaN);
  const abs = Math.abs;
  // |x| over terms whose sum is x: the terms negated when x < 0 (an inexact x has no known sign).
  const absTerms = (terms: readonly number[], x: number): number[] => {
    const s = Math.sign(x);
    return Number.isNaN(s) ? [NaN] : terms.map((t) => s * t);
  };
  for (let i = 0; i < 3; i++) {
    // A_i: |T_A[i]| − hA[i] − Σ_j hB[j] |R[i][j]|.
    sep[i] = exactSum([...absTerms(taTerms[i]!, ta[i]!), -hA[i]!, ...[0, 1, 2].map((j) => -exactMul(hB[j]!, abs(R[i]![j]!), f))], f);
    lenSq[i] = 1;
  }
  for (let j = 0; j < 3; j++) {
    // B_j: |Σ_i T_A[i] R[i][j]| − Σ_i hA[i] |R[i][j]| − hB[j].
    const terms = [0, 1, 2].flatMap((i) => scaled(taTerms[i]!, R[i]![j]!));
    const x = exactSum(terms, f);
    sep[3 + j] = exactSum([...absTerms(terms, x), ...[0, 1, 2].map((i) => -exactMul(hA[i]!, abs(R[i]![j]!), f)), -hB[j]!], f);
    lenSq[3 + j] = 1;
  }
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const id = 6 + 3 * i + j;
      const i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const r1 = R[i1]![j]!, r2 = R[i2]![j]!;
      const terms = [...scaled(taTerms[i2]!, r1), ...scaled(taTerms[i1]!, -r2)];
      const x = exactSum(terms, f);
      sep[id] = exactSum([
        ...absTerms(terms, x),
        -exactMul(hA[i1]!, abs(r2), f), -exactMul(hA[i2]!, abs(r1), f),
        -exactMul(hB[j1]!, abs(R[i]![j2]!), f), -exactMul(hB[j2]!, abs(R[i]![j1]!), f),
      ], f);
      lenSq[id] = exactSum([exactMul(r1, r1, f), exactMul(r2, r2, f)], f);
    }
  }
  for (let k = 0; k < 15; k++) {
    gap[k] = k < 6 ? sep[k]! : exactDiv(sep[k]!, exactSqrt(lenSq[k]!, f), f);
  }
  return { sep, lenSq, gap };
}
