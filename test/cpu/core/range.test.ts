/**
 * The range check a set makes once its origin is known (checkBoxRange, from the one-pass
 * boxBounds, issue #19), against the rule it implements, checked box by box: it throws exactly
 * when some centre lies farther than GPU_MAX_COORDINATE from the origin on some axis, or some
 * half extent (≥ 0, as validated) exceeds it (NaN counts as beyond), and then names such a box; defaultOrigin is the
 * centre of the centres' bounds.
 */
import { describe, expect, it } from 'vitest';
import { BOX_F64, GPU_MAX_COORDINATE, ValidationError, type BoxArray, type Vec3 } from '../../../src/index.ts';
import { mulberry32, randomBoxes } from '../../../src/judge/index.ts';
import { boxBounds, checkBoxRange, defaultOrigin } from '../../../src/advanced.ts';

const M = GPU_MAX_COORDINATE;
const S = BOX_F64.STRIDE;

/** The rule, box by box: the boxes with a coordinate beyond the range. */
function outOfRange(boxes: BoxArray, origin: Vec3): number[] {
  const out: number[] = [];
  for (let i = 0; i < boxes.count; i++) {
    for (let k = 0; k < 3; k++) {
      const c = boxes.data[i * S + BOX_F64.CENTER + k]!;
      const h = boxes.data[i * S + BOX_F64.HALF + k]!;
      if (!(Math.abs(c - origin[k]!) <= M) || !(h <= M)) {
        out.push(i);
        break;
      }
    }
  }
  return out;
}

/** The box a refusal names. */
function named(message: string): number {
  return Number(/^box (\d+):/.exec(message)?.[1] ?? -1);
}

function outcome(boxes: BoxArray, origin: Vec3): 'ok' | string {
  try {
    checkBoxRange(boxes, origin);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
}

describe('checkBoxRange from the bounds: the box-by-box rule', () => {
  it('on the edge and one step past it, on each axis and side, for centres and half extents (and NaN)', () => {
    const rng = mulberry32(1901);
    const origin: Vec3 = [3.5e14, -2e14, 7];
    let cases = 0;
    for (const field of [BOX_F64.CENTER, BOX_F64.HALF]) {
      for (let k = 0; k < 3; k++) {
        // Half extents are ≥ 0 (validated): only past the upper edge.
        for (const sign of field === BOX_F64.HALF ? [1] : [1, -1]) {
          for (const value of ['edge', 'past', 'nan'] as const) {
            const boxes = randomBoxes(50, rng, { extent: 100, offset: origin });
            const at = Math.floor(rng() * boxes.count);
            const o = at * S + field + k;
            const base = field === BOX_F64.CENTER ? origin[k]! : 0;
            const edge = base + sign * M;
            // The float nearest past the edge (the edge itself is representable here).
            const past = edge + sign * Math.max(Math.abs(edge) * Number.EPSILON, Number.MIN_VALUE);
            boxes.data[o] = value === 'edge' ? edge : value === 'past' ? past : NaN;
            const expected = outOfRange(boxes, origin);
            const got = outcome(boxes, origin);
            expect(got === 'ok', `${field}/${k}/${sign}/${value}`).toBe(expected.length === 0);
            // One box was changed: when it is beyond the range, the refusal names it.
            expect(expected.length === 0 || (expected.length === 1 && expected[0] === at)).toBe(true);
            if (expected.length > 0) {
              expect(named(got), got).toBe(at);
            }
            cases++;
          }
        }
      }
    }
    expect(cases).toBe(27);
  });

  it('random sets at the scale of the range: the same verdict and box as the rule (500 sets)', () => {
    const rng = mulberry32(1902);
    let refused = 0;
    for (let s = 0; s < 500; s++) {
      const origin: Vec3 = [(rng() - 0.5) * 1e15, (rng() - 0.5) * 1e15, (rng() - 0.5) * 1e15];
      const boxes = randomBoxes(20, rng, { extent: 0.6e15 * rng(), offset: origin, halfMin: 0, halfMax: rng() < 0.1 ? 2e15 : 10 });
      const expected = outOfRange(boxes, origin);
      const got = outcome(boxes, origin);
      expect(got === 'ok').toBe(expected.length === 0);
      if (expected.length > 0) {
        expect(expected).toContain(named(got));
      }
      refused += expected.length > 0 ? 1 : 0;
    }
    // Both verdicts occur.
    expect(refused).toBeGreaterThan(20);
    expect(refused).toBeLessThan(480);
  });

  it('defaultOrigin is the centre of the centres\' bounds, with or without the bounds given; empty sets: 0', () => {
    const boxes = randomBoxes(1000, mulberry32(1903), { extent: 50, offset: [1e6, -3, 2e5] });
    let lo = [Infinity, Infinity, Infinity];
    let hi = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < boxes.count; i++) {
      const c = [0, 1, 2].map((k) => boxes.data[i * S + k]!);
      lo = lo.map((x, k) => Math.min(x, c[k]!));
      hi = hi.map((x, k) => Math.max(x, c[k]!));
    }
    const expected = [0, 1, 2].map((k) => lo[k]! / 2 + hi[k]! / 2);
    expect(defaultOrigin(boxes)).toEqual(expected);
    expect(defaultOrigin(boxes, boxBounds(boxes))).toEqual(expected);
    expect(defaultOrigin({ count: 0, data: new Float64Array(0) })).toEqual([0, 0, 0]);
  });
});
