/**
 * Boxes derived on the GPU from a caller's buffer (GpuSourcedBoxSet): the float64 twin of
 * shaders/boxes/derive.wgsl ({@link deriveBoxes}: the kernel's functions, in its order, with its
 * constants), and the comparison family that judges the kernel's records against it
 * ({@link compareDerivedBoxes}), with its error model.
 *
 * The rules are those of `obbFromMatrix` (src/core/construct.ts) wherever that accepts the matrix
 * (the shear test is the same function, `columnCosines`, with the same tolerance): the centre is
 * M applied to the local box's centre, column k's length is the scale folded into half extent k,
 * a negative scale flips an axis, and u, v come out of Gram–Schmidt (w = u × v). Where
 * `obbFromMatrix` throws, or takes a zero column as a flat box, the derivation flags the box
 * instead (BOX_FLAG_* in src/constants.ts) and writes the inert record: a source of a million
 * instances must not fail whole for one bad matrix, and engines hide an instance by scaling it to
 * zero. Zero and "finite" are decided on the float32 bits, as the kernel decides them (an entry
 * below 2⁻¹²⁶ is zero: a GPU may flush subnormals).
 */
import {
  AXIS_TOLERANCE, BOX_FLAG_AXES, BOX_FLAG_COUNT, BOX_FLAG_LOCAL_BOX, BOX_FLAG_NAMES, BOX_FLAG_NEGATIVE_EXTENT, BOX_FLAG_NON_FINITE,
  BOX_FLAG_PROJECTIVE, BOX_FLAG_RANGE, BOX_FLAG_SHEAR, BOX_FLAG_ZERO_SCALE, BOX_INERT_HALF_EXTENT, DERIVE_MAX_COORDINATE,
  type BoxFlagName,
} from '../constants.ts';
import { BOX_F64, type Aabb, type BoxArray, type Vec3 } from '../core/types.ts';
import { MATRIX_SHEAR_TOLERANCE, columnCosines } from '../core/construct.ts';
import { Tally, type CompareOptions, type Comparison, type Verdict } from './compare.ts';
import { F32_UNIT_ROUNDOFF } from './errorModel.ts';

/** How a GPU-sourced set reads its caller's records: column-major 4×4, row-major 3×4, or the library's box record. */
export type DeriveLayout = 'mat4x4f' | 'mat3x4f' | 'obb';

/** 4-byte words per record of each layout (the least stride). */
export const DERIVE_RECORD_WORDS: Readonly<Record<DeriveLayout, number>> = { mat4x4f: 16, mat3x4f: 12, obb: 12 };

/** Words of one per-instance local box: min xyz, max xyz. */
export const LOCAL_BOX_WORDS = 6;

/**
 * What the derivation read: the caller's records as raw 32-bit words (record i at word
 * `i × stride`), the layout, the local box (one per set, float64 as the caller gave it; or one per
 * instance, as raw words), and the set's floating origin.
 */
export interface DeriveInput {
  readonly layout: DeriveLayout;
  readonly words: Uint32Array;
  /** Words from one record to the next (≥ DERIVE_RECORD_WORDS[layout]). */
  readonly stride: number;
  readonly count: number;
  /** The set's one local box (matrix layouts without `localBoxes`). */
  readonly localBox?: Aabb;
  /** One local box per instance (min xyz, max xyz as float32 words, `stride` words apart). */
  readonly localBoxes?: { readonly words: Uint32Array; readonly stride: number };
  /** The set's floating origin (default [0, 0, 0]). */
  readonly origin?: Vec3;
  /** The caller's masks (judged: the effective mask is 0 for a flagged box, else this; default every bit). */
  readonly masks?: Uint32Array;
}

/** A box the derivation left out: its index, its flag bits and their names. */
export interface BadBox {
  readonly index: number;
  readonly flags: number;
  readonly reasons: readonly BoxFlagName[];
}

/** The float64 derivation of a source (see {@link deriveBoxes}). */
export interface DerivedBoxes {
  readonly count: number;
  readonly origin: Vec3;
  /**
   * The boxes in world coordinates, canonical (what obbFromMatrix returns for the same matrix);
   * a flagged box holds the inert record as the GPU writes it (centre at the origin, u = (1, 0, 0),
   * v = w = 0, half extents −BOX_INERT_HALF_EXTENT rounded to float32), which no query returns.
   */
  readonly boxes: BoxArray;
  /** Flag bits per box (0: derived). */
  readonly flags: Uint32Array;
  /** The flagged boxes, in index order. */
  readonly bad: readonly BadBox[];
  /** As the GPU's status buffer: [0] flagged boxes, [1 + b] boxes with flag bit b. */
  readonly status: Uint32Array;
}

/**
 * Everything the comparison needs per box: the record the kernel would write when it flags
 * nothing (relative to the origin), and how close each decision is to flipping.
 */
interface Detailed {
  readonly count: number;
  readonly origin: Vec3;
  readonly flags: Uint32Array;
  /** The box as derived (centre relative to the origin, half extents, u, v): 12 per box; NaN when non-finite. */
  readonly record: Float64Array;
  /** Σ per centre component: |t_i − o_i| + Σ_k |M_ik|·|lc_k| (the centre bound's scale), 3 per box. */
  readonly centerScale: Float64Array;
  /** Σ_k |lc_k| and max_k |lh_k| (the flush floors), 2 per box. */
  readonly local: Float64Array;
  /** Largest |cos| between two non-zero columns (−1: fewer than two). */
  readonly maxCos: Float64Array;
  /** Box records: max(|‖u‖ − 1|, |‖v‖ − 1|, |u·v|), +∞ when an entry exceeds 2 (−1 for matrices). */
  readonly axisDev: Float64Array;
  /** The least scale (largest |entry|) of a non-zero column (1 for box records). */
  readonly minScale: Float64Array;
  /** Float32 may overflow deriving this box (an intermediate beyond 1e37). */
  readonly overflowRisk: Uint8Array;
}

const F32_MIN_NORMAL = 2 ** -126;
/** Intermediates beyond this may overflow float32 (3.4e38) in the kernel's few operations. */
const OVERFLOW_RISK = 1e37;

/** Whether float32 bits are NaN or ±∞. */
function bitsNonFinite(b: number): boolean {
  return (b & 0x7f800000) === 0x7f800000;
}

/** Whether float32 bits are ±0 or subnormal (zero to a GPU that flushes). */
function bitsZero(b: number): boolean {
  return (b & 0x7f800000) === 0;
}

/** The inert record's half extent as float32 (what the kernel writes). */
const INERT_HALF = Math.fround(-BOX_INERT_HALF_EXTENT);

/**
 * Bound on |centre_gpu − centre_ref| of one component: `scale` = |t_i − o_i| + Σ_k |M_ik|·|lc_k|
 * (for box records |c_i − o_i|), `origin` = |o_i|, `localSum` = Σ_k |lc_k|.
 *
 * Derivation (u = 2⁻²⁴): the kernel forms (t − oHi) − oLo, with oHi = f32(o) and oLo = f32(o − oHi)
 * (so |oHi + oLo − o| ≤ u²|o|): two roundings, ≤ 2u|t − o| + 3u²|o|; the local centre reaches it
 * rounded once (≤ u|lc_k|) and each product M_ik·lc_k rounds once more; the three additions round
 * each partial sum: ≤ 3u·scale. First order ≤ 6u·scale + 3u²|o|, doubled:
 * K_DERIVE_CENTER = 12 and 8u²|o|. A GPU may flush subnormal inputs and results to zero: an entry
 * of M below 2⁻¹²⁶ times lc_k, and each of the few results, moves the centre by at most
 * 2⁻¹²⁶·(1 + |lc_k|); 2⁻¹²²·(1 + Σ|lc_k|) covers them.
 *
 * @example
 * derivedCenterBound(1e6, 1e6, 1) // ≈ 0.72: a box 1,000 km from an origin at the world origin
 * derivedCenterBound(10, 1e6, 1) // ≈ 7e-6: the same box, the set's origin 10 m away
 */
export function derivedCenterBound(scale: number, origin: number, localSum = 0, u = F32_UNIT_ROUNDOFF): number {
  return K_DERIVE_CENTER * u * scale + 8 * u * u * Math.abs(origin) + 2 ** -122 * (1 + localSum);
}

/**
 * Bound on |half_gpu − half_ref| of half extent `half` (local half size `localHalf`).
 *
 * Derivation: q = c / m (WGSL division: 2.5 ulp, ≤ 5u relative), s = q·q (≤ 13u), sqrt (WGSL:
 * inherited from 1 / inverseSqrt, ≤ 9u), times m (u), the local half size rounded (u) and the
 * product (u): first order ≈ 18.5u relative, doubled and rounded up: K_DERIVE_HALF = 40; a box
 * record's half extent is copied exactly. Flushed subnormals: 2⁻¹²²·(1 + |lh|).
 *
 * @example
 * derivedHalfBound(2) // ≈ 4.8e-6
 */
export function derivedHalfBound(half: number, localHalf = 0, u = F32_UNIT_ROUNDOFF): number {
  return K_DERIVE_HALF * u * Math.abs(half) + 2 ** -122 * (1 + Math.abs(localHalf));
}

/**
 * Bound on each component of |u_gpu − u_ref| and |v_gpu − v_ref| (unit vectors), for columns whose
 * least scale (largest |entry|) is `minScale`.
 *
 * Derivation: q = c / m (≤ 5u), 1/‖q‖ by inverseSqrt of a sum of squares (≤ 6.5u + 4u), the product
 * (u): u is off by ≤ 16.5u; v = d1 − (d1·u)u, with d1·u ≤ 1e-4 for an accepted matrix, is off by
 * ≲ 31u before its normalisation (≲ 6u more): first order ≈ 37u, doubled and rounded up:
 * K_DERIVE_AXIS = 80. A GPU that flushes a subnormal entry of a column moves q by ≤ 2⁻¹²⁶/m:
 * 2⁻¹²⁴/minScale more (nothing for columns of ordinary scale).
 *
 * @example
 * derivedAxisBound(1) // ≈ 4.8e-6
 */
export function derivedAxisBound(minScale = 1, u = F32_UNIT_ROUNDOFF): number {
  return K_DERIVE_AXIS * u + 2 ** -124 / Math.max(minScale, F32_MIN_NORMAL);
}

/**
 * Half-width of the band around AXIS_TOLERANCE where the shear and axes decisions are too close
 * to call: |cos| of two unit directions (each off by ≤ 16.5u) is off by ≲ 36u; ‖u‖ − 1 and u·v of a
 * box record by ≲ 11u; doubled and rounded up: K_DERIVE_DECISION = 80 (≈ 4.8e-6 against the
 * tolerance 1e-4), plus the flush term of {@link derivedAxisBound}.
 *
 * @example
 * derivedDecisionBand() // ≈ 4.8e-6
 */
export function derivedDecisionBand(minScale = 1, u = F32_UNIT_ROUNDOFF): number {
  return K_DERIVE_DECISION * u + 2 ** -123 / Math.max(minScale, F32_MIN_NORMAL);
}

/** Safety factor of the derived centre's bound (first-order constant 6, doubled). */
export const K_DERIVE_CENTER = 12;
/** Safety factor of the derived half extents' bound (first-order constant ≈ 18.5, doubled). */
export const K_DERIVE_HALF = 40;
/** Safety factor of the derived axes' bound (first-order constant ≈ 37, doubled). */
export const K_DERIVE_AXIS = 80;
/** Safety factor of the shear and axes decision band (first-order constant ≈ 36, doubled). */
export const K_DERIVE_DECISION = 80;

/** The flag bits' names, lowest first. */
export function flagReasons(flags: number): BoxFlagName[] {
  return BOX_FLAG_NAMES.filter((_, b) => (flags >>> b) & 1);
}

/** The flagged boxes of a flags array, with their reasons. */
export function badBoxes(flags: Uint32Array): BadBox[] {
  const out: BadBox[] = [];
  for (let i = 0; i < flags.length; i++) {
    if (flags[i] !== 0) {
      out.push({ index: i, flags: flags[i]!, reasons: flagReasons(flags[i]!) });
    }
  }
  return out;
}

function checkInput(input: DeriveInput): void {
  const need = DERIVE_RECORD_WORDS[input.layout];
  if (need === undefined) {
    throw new RangeError(`deriveBoxes: layout must be 'mat4x4f', 'mat3x4f' or 'obb' (got ${String(input.layout)})`);
  }
  if (!Number.isInteger(input.stride) || input.stride < need) {
    throw new RangeError(`deriveBoxes: stride ${input.stride} is below the ${need} words of a ${input.layout} record`);
  }
  if (input.count > 0 && input.words.length < (input.count - 1) * input.stride + need) {
    throw new RangeError(`deriveBoxes: ${input.words.length} words hold fewer than ${input.count} records`);
  }
  if (input.layout === 'obb' ? input.localBox !== undefined || input.localBoxes !== undefined : (input.localBox === undefined) === (input.localBoxes === undefined)) {
    throw new RangeError(`deriveBoxes: ${input.layout === 'obb' ? "layout 'obb' takes no local box" : 'give localBox or localBoxes, one of them'}`);
  }
  const lb = input.localBoxes;
  if (lb && input.count > 0 && (lb.stride < LOCAL_BOX_WORDS || lb.words.length < (input.count - 1) * lb.stride + LOCAL_BOX_WORDS)) {
    throw new RangeError(`deriveBoxes: localBoxes hold fewer than ${input.count} local boxes of ${LOCAL_BOX_WORDS} words`);
  }
}

/**
 * The twin of deriveFromMatrix (shaders/boxes/derive.wgsl): writes box `i`'s record at
 * `d.record[12 i]` and its margins; returns its flags.
 */
function deriveFromMatrix(
  d: Detailed, i: number, cols: readonly Vec3[], t: Vec3, zero: readonly boolean[], lc: Vec3, lh: Vec3,
): number {
  let flags = zero.some((z) => z) ? BOX_FLAG_ZERO_SCALE : 0;
  const m = cols.map((c, k) => (zero[k] ? 1 : Math.max(Math.abs(c[0]), Math.abs(c[1]), Math.abs(c[2]))));
  const q = cols.map((c, k): Vec3 => [c[0] / m[k]!, c[1] / m[k]!, c[2] / m[k]!]);
  const s = q.map((v, k) => (zero[k] ? 1 : v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  const inv = s.map((x) => 1 / Math.sqrt(x));
  const dirs = q.map((v, k): Vec3 => [v[0] * inv[k]!, v[1] * inv[k]!, v[2] * inv[k]!]);
  // Shear: the rule obbFromMatrix applies (columnCosines, MATRIX_SHEAR_TOLERANCE).
  const live = [0, 1, 2].filter((k) => !zero[k]);
  let maxCos = -1;
  for (const { cos } of columnCosines(dirs, live)) {
    maxCos = Math.max(maxCos, cos);
    if (cos > MATRIX_SHEAR_TOLERANCE) {
      flags |= BOX_FLAG_SHEAR;
    }
  }
  const scale = m.map((mk, k) => (zero[k] ? 0 : mk * Math.sqrt(s[k]!)));
  const half = [lh[0] * scale[0]!, lh[1] * scale[1]!, lh[2] * scale[2]!];
  const o = d.origin;
  const center = [0, 1, 2].map((r) => (t[r]! - o[r]!) + cols[0]![r]! * lc[0] + cols[1]![r]! * lc[1] + cols[2]![r]! * lc[2]);
  const [d0, d1] = [dirs[0]!, dirs[1]!];
  const dd = d1[0] * d0[0] + d1[1] * d0[1] + d1[2] * d0[2];
  const vRaw = [d1[0] - dd * d0[0], d1[1] - dd * d0[1], d1[2] - dd * d0[2]];
  const vInv = 1 / Math.sqrt(Math.max(vRaw[0]! * vRaw[0]! + vRaw[1]! * vRaw[1]! + vRaw[2]! * vRaw[2]!, 1e-30));
  if (outOfRange(center, half)) {
    flags |= BOX_FLAG_RANGE;
  }
  const r = d.record;
  const at = 12 * i;
  r.set(center, at);
  r.set(half, at + 3);
  r.set(d0, at + 6);
  r.set([vRaw[0]! * vInv, vRaw[1]! * vInv, vRaw[2]! * vInv], at + 9);
  let risk = Math.max(...scale, ...half.map(Math.abs));
  for (let row = 0; row < 3; row++) {
    const sc = Math.abs(t[row]! - o[row]!) + Math.abs(cols[0]![row]! * lc[0]) + Math.abs(cols[1]![row]! * lc[1]) + Math.abs(cols[2]![row]! * lc[2]);
    d.centerScale[3 * i + row] = sc;
    risk = Math.max(risk, sc, Math.abs(t[row]!));
  }
  d.local[2 * i] = Math.abs(lc[0]) + Math.abs(lc[1]) + Math.abs(lc[2]);
  d.local[2 * i + 1] = Math.max(Math.abs(lh[0]), Math.abs(lh[1]), Math.abs(lh[2]));
  d.maxCos[i] = maxCos;
  d.axisDev[i] = -1;
  d.minScale[i] = Math.min(...live.map((k) => m[k]!), Infinity);
  d.overflowRisk[i] = risk > OVERFLOW_RISK ? 1 : 0;
  return flags;
}

/** The twin of deriveFromRecord (shaders/boxes/derive.wgsl), for the layout 'obb'. */
function deriveFromRecord(d: Detailed, i: number, c: Vec3, h: Vec3, u: Vec3, v: Vec3): number {
  let flags = h.some((x) => x < 0) ? BOX_FLAG_NEGATIVE_EXTENT : 0;
  const big = [...u, ...v].some((x) => Math.abs(x) > 2);
  const uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  const uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  const dev = Math.max(Math.abs(Math.sqrt(uu) - 1), Math.abs(Math.sqrt(vv) - 1), Math.abs(uv));
  if (big || dev > AXIS_TOLERANCE) {
    flags |= BOX_FLAG_AXES;
  }
  const un = 1 / Math.sqrt(Math.max(uu, 1e-30));
  const uN = [u[0] * un, u[1] * un, u[2] * un];
  const vu = v[0] * uN[0]! + v[1] * uN[1]! + v[2] * uN[2]!;
  const vRaw = [v[0] - vu * uN[0]!, v[1] - vu * uN[1]!, v[2] - vu * uN[2]!];
  const vInv = 1 / Math.sqrt(Math.max(vRaw[0]! * vRaw[0]! + vRaw[1]! * vRaw[1]! + vRaw[2]! * vRaw[2]!, 1e-30));
  const o = d.origin;
  const center = [c[0] - o[0], c[1] - o[1], c[2] - o[2]];
  const half = [h[0] + 0, h[1] + 0, h[2] + 0];
  if (outOfRange(center, half)) {
    flags |= BOX_FLAG_RANGE;
  }
  const at = 12 * i;
  d.record.set(center, at);
  d.record.set(half, at + 3);
  d.record.set(uN, at + 6);
  d.record.set([vRaw[0]! * vInv, vRaw[1]! * vInv, vRaw[2]! * vInv], at + 9);
  let risk = 0;
  for (let k = 0; k < 3; k++) {
    d.centerScale[3 * i + k] = Math.abs(center[k]!);
    risk = Math.max(risk, Math.abs(c[k]!) + Math.abs(o[k]!), Math.abs(h[k]!));
  }
  d.local[2 * i] = 0;
  d.local[2 * i + 1] = 0;
  d.maxCos[i] = -1;
  d.axisDev[i] = big ? Infinity : dev;
  d.minScale[i] = 1;
  d.overflowRisk[i] = risk > OVERFLOW_RISK ? 1 : 0;
  return flags;
}

/** BOX_FLAG_RANGE: beyond DERIVE_MAX_COORDINATE (float64 cannot overflow here: |values| ≲ 1e77). */
function outOfRange(center: readonly number[], half: readonly number[]): boolean {
  return center.some((x) => !(Math.abs(x) <= DERIVE_MAX_COORDINATE)) || half.some((x) => !(Math.abs(x) <= DERIVE_MAX_COORDINATE));
}

/** Words a, b, c of a record as float32 values, and whether any is NaN or ±∞ or all are zero. */
function vec3At(bits: Uint32Array, floats: Float32Array, at: number, k: readonly [number, number, number]): { v: Vec3; nonFinite: boolean; zero: boolean } {
  const b = [bits[at + k[0]]!, bits[at + k[1]]!, bits[at + k[2]]!];
  return {
    v: [floats[at + k[0]]!, floats[at + k[1]]!, floats[at + k[2]]!],
    nonFinite: b.some(bitsNonFinite),
    zero: b.every(bitsZero),
  };
}

function floatsOf(words: Uint32Array): Float32Array {
  return new Float32Array(words.buffer, words.byteOffset, words.length);
}

/** The whole derivation with its margins (the comparison's input). */
function deriveDetailed(input: DeriveInput): Detailed {
  checkInput(input);
  const n = input.count;
  const origin: Vec3 = input.origin ? [input.origin[0], input.origin[1], input.origin[2]] : [0, 0, 0];
  const d: Detailed = {
    count: n, origin,
    flags: new Uint32Array(n), record: new Float64Array(12 * n), centerScale: new Float64Array(3 * n), local: new Float64Array(2 * n),
    maxCos: new Float64Array(n), axisDev: new Float64Array(n), minScale: new Float64Array(n), overflowRisk: new Uint8Array(n),
  };
  const bits = input.words;
  const floats = floatsOf(bits);
  const lb = input.localBoxes;
  const lbBits = lb?.words;
  const lbFloats = lbBits ? floatsOf(lbBits) : undefined;
  // The set's local box: halved before combining, as obbFromMatrix does (the kernel gets them rounded to float32).
  const set = input.localBox;
  const setCenter: Vec3 = set ? [set.min[0] / 2 + set.max[0] / 2, set.min[1] / 2 + set.max[1] / 2, set.min[2] / 2 + set.max[2] / 2] : [0, 0, 0];
  const setHalf: Vec3 = set ? [set.max[0] / 2 - set.min[0] / 2, set.max[1] / 2 - set.min[1] / 2, set.max[2] / 2 - set.min[2] / 2] : [0, 0, 0];
  for (let i = 0; i < n; i++) {
    let flags = 0;
    let nonFinite = false;
    let lc = setCenter;
    let lh = setHalf;
    if (lb && lbBits && lbFloats) {
      const at = i * lb.stride;
      const lo = vec3At(lbBits, lbFloats, at, [0, 1, 2]);
      const hi = vec3At(lbBits, lbFloats, at, [3, 4, 5]);
      nonFinite = lo.nonFinite || hi.nonFinite;
      if (lo.v.some((x, k) => x > hi.v[k]!)) {
        flags |= BOX_FLAG_LOCAL_BOX;
      }
      lc = [lo.v[0] / 2 + hi.v[0] / 2, lo.v[1] / 2 + hi.v[1] / 2, lo.v[2] / 2 + hi.v[2] / 2];
      lh = [hi.v[0] / 2 - lo.v[0] / 2, hi.v[1] / 2 - lo.v[1] / 2, hi.v[2] / 2 - lo.v[2] / 2];
    }
    const at = i * input.stride;
    let derived: number;
    if (input.layout === 'obb') {
      const c = vec3At(bits, floats, at, [0, 1, 2]);
      const h = vec3At(bits, floats, at, [3, 7, 11]);
      const u = vec3At(bits, floats, at, [4, 5, 6]);
      const v = vec3At(bits, floats, at, [8, 9, 10]);
      nonFinite ||= c.nonFinite || h.nonFinite || u.nonFinite || v.nonFinite;
      derived = nonFinite ? 0 : deriveFromRecord(d, i, c.v, h.v, u.v, v.v);
    } else {
      const mat4 = input.layout === 'mat4x4f';
      const c0 = vec3At(bits, floats, at, mat4 ? [0, 1, 2] : [0, 4, 8]);
      const c1 = vec3At(bits, floats, at, mat4 ? [4, 5, 6] : [1, 5, 9]);
      const c2 = vec3At(bits, floats, at, mat4 ? [8, 9, 10] : [2, 6, 10]);
      const t = vec3At(bits, floats, at, mat4 ? [12, 13, 14] : [3, 7, 11]);
      if (mat4) {
        const row = vec3At(bits, floats, at, [3, 7, 11]);
        const w = bits[at + 15]!;
        nonFinite ||= row.nonFinite || bitsNonFinite(w);
        if (!row.zero || w !== 0x3f800000) {
          flags |= BOX_FLAG_PROJECTIVE;
        }
      }
      nonFinite ||= c0.nonFinite || c1.nonFinite || c2.nonFinite || t.nonFinite;
      derived = nonFinite ? 0 : deriveFromMatrix(d, i, [c0.v, c1.v, c2.v], t.v, [c0.zero, c1.zero, c2.zero], lc, lh);
    }
    if (nonFinite) {
      d.record.fill(NaN, 12 * i, 12 * i + 12);
      d.maxCos[i] = -1;
      d.axisDev[i] = -1;
      d.minScale[i] = 1;
    }
    d.flags[i] = nonFinite ? BOX_FLAG_NON_FINITE : flags | derived;
  }
  return d;
}

/**
 * The float64 twin of the kernel deriveBoxes (shaders/boxes/derive.wgsl): the boxes a
 * GPU-sourced set's records describe, in world coordinates, with every box that cannot be
 * derived flagged and named (the rules: this module's header and the kernel's). What
 * `GpuSourcedBoxSet.readBack()` returns as the reference.
 *
 * @example
 * // One unit cube translated to (5, 0, 0), column-major:
 * const words = new Uint32Array(new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]).buffer);
 * const d = deriveBoxes({ layout: 'mat4x4f', words, stride: 16, count: 1, localBox: { min: [-1, -1, -1], max: [1, 1, 1] } });
 * d.boxes.data.subarray(0, 3) // [5, 0, 0]
 */
export function deriveBoxes(input: DeriveInput): DerivedBoxes {
  const d = deriveDetailed(input);
  const n = d.count;
  const data = new Float64Array(n * BOX_F64.STRIDE);
  const status = new Uint32Array(1 + BOX_FLAG_COUNT);
  const o = d.origin;
  for (let i = 0; i < n; i++) {
    const at = i * BOX_F64.STRIDE;
    const f = d.flags[i]!;
    if (f !== 0) {
      data.set([o[0], o[1], o[2], INERT_HALF, INERT_HALF, INERT_HALF, 1, 0, 0, 0, 0, 0, 0, 0, 0], at);
      status[0]!++;
      for (let b = 0; b < BOX_FLAG_COUNT; b++) {
        if ((f >>> b) & 1) {
          status[1 + b]!++;
        }
      }
      continue;
    }
    const r = d.record.subarray(12 * i, 12 * i + 12);
    const ux = r[6]!, uy = r[7]!, uz = r[8]!, vx = r[9]!, vy = r[10]!, vz = r[11]!;
    data.set([
      r[0]! + o[0], r[1]! + o[1], r[2]! + o[2], r[3]!, r[4]!, r[5]!,
      ux, uy, uz, vx, vy, vz, uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx,
    ], at);
  }
  return { count: n, origin: o, boxes: { count: n, data }, flags: d.flags, bad: badBoxes(d.flags), status };
}

/** What the GPU derived, as read back (GpuSourcedBoxSet.readBack: `gpu`). */
export interface DerivedRecords {
  /** The set's records (struct Obb: centre, hx, u, hy, v, hz; 12 floats per box), relative to the origin. */
  readonly records: Float32Array;
  /** The flag bits per box. */
  readonly flags: Uint32Array;
  /** The status buffer ([0] flagged boxes, [1 + b] per flag bit); judged as one more case when given. */
  readonly status?: Uint32Array;
  /** The effective masks the queries read (0 for a flagged box); judged per box when given. */
  readonly masks?: Uint32Array;
}

const fmt = (x: number): string => (Number.isFinite(x) ? Number(x.toPrecision(7)).toString() : String(x));

/** Whether a record is the inert record, bit for bit (−0 counted as 0). */
function isInert(rec: Float32Array, at: number): boolean {
  const want = [0, 0, 0, INERT_HALF, 1, 0, 0, INERT_HALF, 0, 0, 0, INERT_HALF];
  return want.every((x, k) => rec[at + k] === x);
}

/** Float32 values that are all finite. */
function allFinite(rec: Float32Array, at: number): boolean {
  for (let k = 0; k < 12; k++) {
    if (!Number.isFinite(rec[at + k]!)) {
      return false;
    }
  }
  return true;
}

/**
 * Judges a GPU derivation (the records, flags, effective masks and counts a GPU-sourced set's
 * refresh wrote) against the float64 twin on the same source ({@link deriveBoxes}), one case per
 * box (and one more for the status counts when given):
 * - **flags**: each bit equal, except a decision within its error of flipping: shear (the largest
 *   |cos| within {@link derivedDecisionBand} of AXIS_TOLERANCE), axes of a box record (likewise),
 *   range (a centre or half extent within its bound of DERIVE_MAX_COORDINATE, or an intermediate
 *   beyond 1e37 that float32 may overflow): those differ as **ambiguous** (`shear-threshold`,
 *   `axes-threshold`, `range-threshold`). Non-finite, projective, zero-scale, local-box and
 *   negative-extent are decided exactly on the bits on both sides: any difference is a mismatch
 *   (`flag-<name>`).
 * - **records**: a flagged box must hold the inert record bit for bit (`inert-record`); a derived
 *   one must be finite (`not-finite`) and within the bounds of every number: the centre
 *   ({@link derivedCenterBound}: the matrix entries' magnitudes, the local centre and the box's
 *   distance from the origin enter it), half extents ({@link derivedHalfBound}), u and v
 *   ({@link derivedAxisBound}) — else `center-error`, `half-extent-error`, `axis-error`.
 * - **masks** (when given): 0 for a flagged box, else the caller's (`mask`).
 * - **status** (when given): the counts equal the flags' (`status-count`).
 *
 * @example
 * declare const sourced: GpuSourcedBoxSet;
 * const back = await sourced.readBack();
 * console.log(formatComparison(compareDerivedBoxes(back.input, back.gpu)));
 * // derivedBoxes: 100001 cases — 100001 agree, 0 ambiguous, 0 mismatch; worst |Δ|/bound 0.08
 */
export function compareDerivedBoxes(input: DeriveInput, gpu: DerivedRecords, options: CompareOptions = {}): Comparison {
  const d = deriveDetailed(input);
  const n = d.count;
  if (gpu.records.length < 12 * n || gpu.flags.length < n) {
    throw new RangeError(`compareDerivedBoxes: the GPU's records or flags hold fewer than ${n} boxes`);
  }
  const tally = new Tally(options.maxCases ?? 20);
  const r = gpu.records;
  const flagNames = (f: number): string => (f === 0 ? 'none' : flagReasons(f).join('+'));
  for (let i = 0; i < n; i++) {
    const want = d.flags[i]!;
    const got = gpu.flags[i]!;
    const at = 12 * i;
    const caseInput = (): Record<string, unknown> => ({
      index: i, layout: input.layout,
      record: Array.from(floatsOf(input.words).subarray(i * input.stride, i * input.stride + DERIVE_RECORD_WORDS[input.layout])),
      ...(input.localBox ? { localBox: input.localBox } : {}),
      ...(input.localBoxes ? { localBox: Array.from(floatsOf(input.localBoxes.words).subarray(i * input.localBoxes.stride, i * input.localBoxes.stride + LOCAL_BOX_WORDS)) } : {}),
      origin: d.origin,
    });
    const add = (verdict: Verdict, reason: string, detail: string): void => {
      tally.add({ index: i, verdict, reason, detail: `box ${i}: ${detail}`, input: caseInput() });
    };
    // Which bits may differ: the decisions within their error of flipping.
    const band = derivedDecisionBand(d.minScale[i]!);
    let loose = 0;
    if (d.maxCos[i]! >= 0 && Math.abs(d.maxCos[i]! - MATRIX_SHEAR_TOLERANCE) <= band) {
      loose |= BOX_FLAG_SHEAR;
    }
    if (d.axisDev[i]! >= 0 && Math.abs(d.axisDev[i]! - AXIS_TOLERANCE) <= band) {
      loose |= BOX_FLAG_AXES;
    }
    let worst = 0;
    const rec = d.record;
    if (want !== BOX_FLAG_NON_FINITE) {
      if (d.overflowRisk[i]) {
        loose |= BOX_FLAG_RANGE;
      }
      for (let k = 0; k < 3; k++) {
        const cb = derivedCenterBound(d.centerScale[3 * i + k]!, d.origin[k]!, d.local[2 * i]!);
        const hb = derivedHalfBound(rec[at + 3 + k]!, d.local[2 * i + 1]!);
        if (Math.abs(Math.abs(rec[at + k]!) - DERIVE_MAX_COORDINATE) <= cb || Math.abs(Math.abs(rec[at + 3 + k]!) - DERIVE_MAX_COORDINATE) <= hb) {
          loose |= BOX_FLAG_RANGE;
        }
      }
    }
    const differ = want ^ got;
    if (differ & ~loose) {
      const firm = differ & ~loose;
      const bit = flagReasons(firm)[0] ?? 'unknown';
      add('mismatch', `flag-${bit}`, `flags ${flagNames(got)}, the reference ${flagNames(want)}`);
      continue;
    }
    const maskOk = (): boolean => {
      if (!gpu.masks) {
        return true;
      }
      const user = input.masks ? input.masks[i]! : 0xffffffff;
      return gpu.masks[i] === (got !== 0 ? 0 : user);
    };
    if (!maskOk()) {
      add('mismatch', 'mask', `effective mask ${gpu.masks?.[i]} with flags ${flagNames(got)}`);
      continue;
    }
    if (got !== 0) {
      if (!isInert(r, at)) {
        add('mismatch', 'inert-record', `flagged ${flagNames(got)} but its record is not the inert record: ${Array.from(r.subarray(at, at + 12)).map(fmt).join(', ')}`);
        continue;
      }
    } else {
      if (!allFinite(r, at)) {
        add('mismatch', 'not-finite', `derived record ${Array.from(r.subarray(at, at + 12)).map(fmt).join(', ')}`);
        continue;
      }
      const ab = derivedAxisBound(d.minScale[i]!);
      let failed: string | undefined;
      for (let k = 0; k < 3 && !failed; k++) {
        const cb = derivedCenterBound(d.centerScale[3 * i + k]!, d.origin[k]!, d.local[2 * i]!);
        const hb = derivedHalfBound(rec[at + 3 + k]!, d.local[2 * i + 1]!);
        // Record layout: centre 0..2, then hx 3, u 4..6, hy 7, v 8..10, hz 11 (struct Obb).
        const ce = Math.abs(r[at + k]! - rec[at + k]!);
        const he = Math.abs(r[at + [3, 7, 11][k]!]! - rec[at + 3 + k]!);
        const ue = Math.abs(r[at + 4 + k]! - rec[at + 6 + k]!);
        const ve = Math.abs(r[at + 8 + k]! - rec[at + 9 + k]!);
        worst = Math.max(worst, ce / cb, he / hb, ue / ab, ve / ab);
        if (ce > cb) {
          failed = `center-error:centre[${k}] ${fmt(r[at + k]!)}, the reference ${fmt(rec[at + k]!)} (|Δ| ${fmt(ce)} > bound ${fmt(cb)})`;
        } else if (he > hb) {
          failed = `half-extent-error:half extent ${k} ${fmt(r[at + [3, 7, 11][k]!]!)}, the reference ${fmt(rec[at + 3 + k]!)} (|Δ| ${fmt(he)} > bound ${fmt(hb)})`;
        } else if (ue > ab || ve > ab) {
          failed = `axis-error:axis component ${k}: u ${fmt(r[at + 4 + k]!)} / ${fmt(rec[at + 6 + k]!)}, v ${fmt(r[at + 8 + k]!)} / ${fmt(rec[at + 9 + k]!)} (bound ${fmt(ab)})`;
        }
      }
      if (failed) {
        const [reason, detail] = [failed.slice(0, failed.indexOf(':')), failed.slice(failed.indexOf(':') + 1)];
        add('mismatch', reason, detail);
        continue;
      }
    }
    if (differ !== 0) {
      const bit = flagReasons(differ)[0] ?? 'unknown';
      const why = bit === 'shear' ? `largest |cos| ${fmt(d.maxCos[i]!)}` : bit === 'axes' ? `axis deviation ${fmt(d.axisDev[i]!)}` : 'a centre or half extent at the range limit';
      add('ambiguous', `${bit}-threshold`, `flags ${flagNames(got)}, the reference ${flagNames(want)}: ${why} within ${fmt(band)} of the tolerance`);
      continue;
    }
    tally.ok(worst);
  }
  let total = n;
  if (gpu.status) {
    total++;
    const expect = new Uint32Array(1 + BOX_FLAG_COUNT);
    for (let i = 0; i < n; i++) {
      const f = gpu.flags[i]!;
      if (f !== 0) {
        expect[0]!++;
        for (let b = 0; b < BOX_FLAG_COUNT; b++) {
          expect[1 + b]! += (f >>> b) & 1;
        }
      }
    }
    const same = expect.every((x, k) => gpu.status![k] === x);
    if (same) {
      tally.ok();
    } else {
      tally.add({
        index: n, verdict: 'mismatch', reason: 'status-count',
        detail: `status counts [${Array.from(gpu.status.subarray(0, 1 + BOX_FLAG_COUNT)).join(', ')}], the GPU's flags count [${Array.from(expect).join(', ')}]`,
        input: { count: n },
      });
    }
  }
  return tally.result('derivedBoxes', total);
}
