/**
 * GPU-sourced sets on the CPU: the float64 twin of shaders/boxes/derive.wgsl (deriveBoxes) against
 * obbFromMatrix and box validation (the same rules), its flags on the adversarial sources, and the
 * comparison family compareDerivedBoxes held to both sides (a faithful float32 derivation agrees;
 * each classic fault is a mismatch with the reason that names it; a decision at the tolerance is
 * ambiguous, not a mismatch).
 */
import { describe, expect, it } from 'vitest';
import { AXIS_TOLERANCE, BOX_F64, BOX_FLAG_NAMES, GPU_MAX_COORDINATE, MATRIX_SHEAR_TOLERANCE, obbFromMatrix, validateBoxArray } from '../../src/index.ts';
import {
  compareDerivedBoxes, deriveBoxes, derivedAxisBound, derivedCenterBound, derivedDecisionBand, derivedHalfBound, formatComparison, type DeriveInput,
  type DerivedRecords,
} from '../../src/judge/index.ts';
import { BOX_FLAG_COUNT, BOX_INERT_HALF_EXTENT, DERIVE_MAX_COORDINATE, WGSL_CONSTANTS } from '../../src/constants.ts';
import { adversarialSource, inputOf, LAYOUTS, randomSource, twinDisagreements, type SourceCase } from '../fixtures/gpuSourced.ts';

describe('constants shared with the kernel', () => {
  it('the range limit is GPU_MAX_COORDINATE and the shear tolerance is the axes tolerance the WGSL reads', () => {
    expect(DERIVE_MAX_COORDINATE).toBe(GPU_MAX_COORDINATE);
    expect(MATRIX_SHEAR_TOLERANCE).toBe(AXIS_TOLERANCE);
    expect(WGSL_CONSTANTS.AXIS_TOLERANCE[1]).toBe(AXIS_TOLERANCE);
    expect(BOX_FLAG_NAMES.length).toBe(BOX_FLAG_COUNT);
    // |h|² · 3 within float32: the kernels square half extents (a bounding sphere's radius).
    expect(3 * BOX_INERT_HALF_EXTENT ** 2).toBeLessThan(3.4e38);
  });
});

/** Column-major 4×4 of record i of a matrix case (as the float32 values the GPU reads). */
function matrixOf(c: SourceCase, i: number): number[] {
  const at = c.offsetWords + i * c.strideWords;
  const w = Array.from(c.words.subarray(at, at + (c.layout === 'mat4x4f' ? 16 : 12)));
  if (c.layout === 'mat4x4f') {
    return w;
  }
  return [w[0]!, w[4]!, w[8]!, 0, w[1]!, w[5]!, w[9]!, 0, w[2]!, w[6]!, w[10]!, 0, w[3]!, w[7]!, w[11]!, 1];
}

function close(a: number, b: number, scale: number): boolean {
  return Math.abs(a - b) <= 1e-12 * (1 + scale);
}

describe('deriveBoxes follows obbFromMatrix where it accepts the matrix', () => {
  it.each([
    ['mat4x4f', false], ['mat4x4f', true], ['mat3x4f', false], ['mat3x4f', true],
  ] as const)('%s (per-instance local boxes: %s), 2,000 random matrices (seed 5): the same boxes, no flag', (layout, perInstance) => {
    const c = randomSource(5, 2000, layout, { spread: 1e6, padWords: 3, offsetWords: 5, perInstance });
    const d = deriveBoxes(inputOf(c));
    expect(d.bad).toEqual([]);
    for (let i = 0; i < c.count; i++) {
      const local = c.localBox ?? { min: Array.from(c.localBoxes!.subarray(6 * i, 6 * i + 3)) as [number, number, number], max: Array.from(c.localBoxes!.subarray(6 * i + 3, 6 * i + 6)) as [number, number, number] };
      const ref = obbFromMatrix(matrixOf(c, i), local);
      const got = d.boxes.data.subarray(i * BOX_F64.STRIDE);
      const scale = Math.hypot(...ref.center) + Math.hypot(...ref.halfExtents);
      for (let k = 0; k < 3; k++) {
        expect(close(got[BOX_F64.CENTER + k]!, ref.center[k]!, scale), `box ${i} centre ${k}`).toBe(true);
        expect(close(got[BOX_F64.HALF + k]!, ref.halfExtents[k]!, scale), `box ${i} half ${k}`).toBe(true);
        expect(close(got[BOX_F64.U + k]!, ref.axes[0][k]!, 1), `box ${i} u ${k}`).toBe(true);
        expect(close(got[BOX_F64.V + k]!, ref.axes[1][k]!, 1), `box ${i} v ${k}`).toBe(true);
        expect(close(got[BOX_F64.W + k]!, ref.axes[2][k]!, 1), `box ${i} w ${k}`).toBe(true);
      }
    }
  });

  it('box records (layout obb): the canonical boxes of validateBoxArray', () => {
    const c = randomSource(6, 1000, 'obb', { spread: 1e5 });
    const d = deriveBoxes(inputOf(c));
    expect(d.bad).toEqual([]);
    const raw = new Float64Array(c.count * BOX_F64.STRIDE);
    for (let i = 0; i < c.count; i++) {
      const w = c.words.subarray(i * 12, i * 12 + 12);
      const u = [w[4]!, w[5]!, w[6]!], v = [w[8]!, w[9]!, w[10]!];
      raw.set([w[0]!, w[1]!, w[2]!, w[3]!, w[7]!, w[11]!, ...u, ...v, u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!], i * BOX_F64.STRIDE);
    }
    const canonical = validateBoxArray(raw, c.count).data;
    for (let k = 0; k < raw.length; k++) {
      expect(close(d.boxes.data[k]!, canonical[k]!, Math.abs(canonical[k]!)), `word ${k}`).toBe(true);
    }
  });

  it('where obbFromMatrix throws (shear, projective) or takes a flat box (zero scale), the box is flagged', () => {
    const c = adversarialSource('mat4x4f');
    const d = deriveBoxes(inputOf(c));
    for (let i = 0; i < c.count; i++) {
      const m = matrixOf(c, i);
      let thrown: string | undefined;
      try {
        obbFromMatrix(m, c.localBox!);
      } catch (error) {
        thrown = (error as Error).message;
      }
      const reasons = BOX_FLAG_NAMES.filter((_, b) => (d.flags[i]! >>> b) & 1);
      // Subnormal entries of the last row: zero here, as a GPU may flush them (the one difference).
      const subnormalRow = [3, 7, 11].every((k) => Math.abs(m[k]!) < 2 ** -126) && m[15] === 1;
      if (thrown && !(thrown.includes('projective') && subnormalRow)) {
        expect(reasons.length, `box ${i} (${thrown})`).toBeGreaterThan(0);
      }
      if (reasons.includes('shear')) {
        expect(thrown, `box ${i}`).toMatch(/shear|not a finite/);
      }
    }
  });
});

describe.each([
  ...LAYOUTS.map((l) => [l, false] as const),
  ['mat4x4f', true] as const, ['mat3x4f', true] as const,
])('adversarial sources, %s (per-instance local boxes: %s)', (layout, perInstance) => {
  it('the twin flags every case as expected, by name', () => {
    const c = adversarialSource(layout, perInstance);
    expect(twinDisagreements(c)).toEqual([]);
    const d = deriveBoxes(inputOf(c));
    expect(d.status[0]).toBe(d.bad.length);
  });
});

/** What a faithful float32 derivation would write: the twin's records rounded once, inert where flagged. */
function faithful(input: DeriveInput): DerivedRecords & { status: Uint32Array; masks: Uint32Array } {
  const d = deriveBoxes(input);
  const n = d.count;
  const records = new Float32Array(12 * n);
  const o = d.origin;
  for (let i = 0; i < n; i++) {
    const b = d.boxes.data.subarray(i * BOX_F64.STRIDE);
    if (d.flags[i] !== 0) {
      records.set([0, 0, 0, -BOX_INERT_HALF_EXTENT, 1, 0, 0, -BOX_INERT_HALF_EXTENT, 0, 0, 0, -BOX_INERT_HALF_EXTENT], 12 * i);
      continue;
    }
    records.set([b[0]! - o[0], b[1]! - o[1], b[2]! - o[2], b[3]!, b[6]!, b[7]!, b[8]!, b[4]!, b[9]!, b[10]!, b[11]!, b[5]!], 12 * i);
  }
  const masks = Uint32Array.from(d.flags, (f) => (f ? 0 : 0xffffffff));
  return { records, flags: d.flags.slice(), status: d.status.slice(), masks };
}

describe('compareDerivedBoxes', () => {
  const c = randomSource(8, 500, 'mat4x4f', { spread: 1e5, origin: [1e5, 0, 0] });
  const adv = adversarialSource('mat4x4f');

  it('a faithful float32 derivation agrees, random and adversarial, with its counts and masks', () => {
    for (const s of [c, adv]) {
      const cmp = compareDerivedBoxes(inputOf(s), faithful(inputOf(s)));
      expect(cmp.mismatch, formatComparison(cmp)).toBe(0);
      expect(cmp.total).toBe(s.count + 1);
      expect(cmp.worstRatio).toBeLessThan(0.2);
    }
  });

  it('a centre off by twice its bound is a center-error', () => {
    const g = faithful(inputOf(c));
    const d = deriveBoxes(inputOf(c));
    const at = 7;
    const scale = Math.abs(d.boxes.data[at * BOX_F64.STRIDE]! - 0);
    g.records[12 * at] = g.records[12 * at]! + 2 * derivedCenterBound(scale, 1e5, 4) + 1;
    const cmp = compareDerivedBoxes(inputOf(c), g);
    expect(cmp.mismatchByReason).toEqual({ 'center-error': 1 });
    expect(cmp.cases[0]?.index).toBe(at);
  });

  it('an axis turned by 1e-3 is an axis-error, a half extent 1e-3 larger a half-extent-error', () => {
    const g = faithful(inputOf(c));
    g.records[12 * 3 + 5] = g.records[12 * 3 + 5]! + 1e-3;
    g.records[12 * 4 + 3] = g.records[12 * 4 + 3]! * (1 + 1e-3);
    const cmp = compareDerivedBoxes(inputOf(c), g);
    expect(cmp.mismatchByReason).toEqual({ 'axis-error': 1, 'half-extent-error': 1 });
  });

  it('a missed flag, a flagged box left un-inert, a wrong mask and a wrong count each name themselves', () => {
    const input = inputOf(adv);
    const d = deriveBoxes(input);
    const sheared = d.bad.find((b) => b.reasons.includes('shear') && b.reasons.length === 1)!.index;
    const nan = d.bad.find((b) => b.reasons.includes('non-finite'))!.index;
    const good = Array.from(d.flags).indexOf(0);
    const g = faithful(input);
    g.flags[sheared] = 0; // derived it anyway
    g.records[12 * nan] = 1; // flagged, not inert
    g.masks![good] = 0;
    g.status![0] = g.status![0]! + 1;
    const cmp = compareDerivedBoxes(input, g);
    expect(cmp.mismatchByReason).toEqual({ 'flag-shear': 1, 'inert-record': 1, mask: 1, 'status-count': 1 });
  });

  it('a shear at the tolerance, decided either way, is ambiguous (shear-threshold); just outside the band it is decided', () => {
    const band = derivedDecisionBand();
    const rows: number[] = [];
    for (const cos of [AXIS_TOLERANCE + band / 2, AXIS_TOLERANCE - band / 2, AXIS_TOLERANCE + 3 * band]) {
      const s = Math.sqrt(1 - cos * cos);
      rows.push(1, 0, 0, 0, cos, s, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    }
    const words = new Float32Array(rows);
    const input: DeriveInput = { layout: 'mat4x4f', words: new Uint32Array(words.buffer), stride: 16, count: 3, localBox: { min: [-1, -1, -1], max: [1, 1, 1] } };
    const g = faithful(input);
    // The other decision for each: derive the first, flag the second, derive the third.
    const d = deriveBoxes({ ...input, count: 3 });
    expect(Array.from(d.flags, (f) => f !== 0)).toEqual([true, false, true]);
    g.flags.set([0, 8, 0]);
    // Box 0 derived as if unflagged: the columns are unit and v is made orthogonal to u.
    g.records.set([0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1], 0);
    g.records.set([0, 0, 0, -BOX_INERT_HALF_EXTENT, 1, 0, 0, -BOX_INERT_HALF_EXTENT, 0, 0, 0, -BOX_INERT_HALF_EXTENT], 12);
    g.records.set(new Float32Array(12).fill(0.5), 24);
    const cmp = compareDerivedBoxes(input, { records: g.records, flags: g.flags });
    expect(cmp.ambiguousByReason).toEqual({ 'shear-threshold': 2 });
    expect(cmp.mismatchByReason).toEqual({ 'flag-shear': 1 });
  });

  it('bounds: the origin\'s distance and the entries\' magnitude enter the centre bound', () => {
    expect(derivedCenterBound(10, 0)).toBeCloseTo(12 * 2 ** -24 * 10, 15);
    expect(derivedCenterBound(1e6, 1e6, 1)).toBeGreaterThan(derivedCenterBound(10, 1e6, 1) * 1e4);
    expect(derivedHalfBound(2)).toBeCloseTo(40 * 2 ** -24 * 2, 15);
    expect(derivedAxisBound()).toBeCloseTo(80 * 2 ** -24, 12);
    // A column scaled to 1e-36 (normal float32) whose small entries a GPU may flush: a wider axis bound.
    expect(derivedAxisBound(1e-36)).toBeGreaterThan(derivedAxisBound(1) * 100);
  });
});
