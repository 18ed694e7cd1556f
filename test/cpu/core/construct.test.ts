import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toObb } from '../../../src/core/canonical.ts';
import {
  MATRIX_SHEAR_TOLERANCE,
  obbFromAxes,
  obbFromMatrix,
  obbFromPoints,
  obbFromQuaternion,
} from '../../../src/core/construct.ts';
import { obbCorners, obbFromAabb } from '../../../src/core/helpers.ts';
import type { Aabb, Obb, Vec3 } from '../../../src/core/types.ts';
import { ValidationError } from '../../../src/errors.ts';
import { apply4, cornerSetDistance, pointSetDistance, finite, frameDefects, maxDiff, obbArb, quatArb, toLocal, vec3Arb } from './fixtures.ts';

function caught(f: () => unknown): ValidationError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

const UNIT: Aabb = { min: [-1, -1, -1], max: [1, 1, 1] };

/** Column-major matrix with upper 3×3 columns c0, c1, c2 and translation t. */
function matrix(c0: Vec3, c1: Vec3, c2: Vec3, t: Vec3): number[] {
  return [...c0, 0, ...c1, 0, ...c2, 0, ...t, 1];
}

/** Every point lies in the box, up to `tol` in the box's local coordinates. */
function containsAll(obb: Obb, points: readonly Vec3[], tol: number): boolean {
  return points.every((p) => toLocal(obb, p).every((x, k) => Math.abs(x) <= (obb.halfExtents[k] as number) + tol));
}

describe('obbFromQuaternion / obbFromAxes', () => {
  it('90° about z maps x to y and y to −x', () => {
    const s = Math.SQRT1_2;
    const b = obbFromQuaternion([1, 2, 3], [0, 0, s, s], [2, 1, 0.5]);
    expect(maxDiff(b.axes.flat(), [0, 1, 0, -1, 0, 0, 0, 0, 1])).toBeLessThan(1e-15);
    expect(b.center).toEqual([1, 2, 3]);
    expect(b.halfExtents).toEqual([2, 1, 0.5]);
  });

  it('120° about (1, 1, 1) permutes the axes cyclically', () => {
    const h = Math.sin(Math.PI / 3) / Math.sqrt(3);
    const b = obbFromQuaternion([0, 0, 0], [h, h, h, Math.cos(Math.PI / 3)], [1, 1, 1]);
    expect(maxDiff(b.axes.flat(), [0, 1, 0, 0, 0, 1, 1, 0, 0])).toBeLessThan(1e-15);
  });

  it('agrees with the object form (seed 201)', () => {
    fc.assert(
      fc.property(obbArb, quatArb, (b, q) => {
        expect(obbFromAxes(b.center, b.halfExtents, b.axes)).toEqual(toObb(b));
        expect(obbFromQuaternion(b.center, q, b.halfExtents)).toEqual(toObb({ center: b.center, halfExtents: b.halfExtents, rotation: q }));
      }),
      { seed: 201, numRuns: 100 },
    );
  });

  it('rejects a zero quaternion', () => {
    expect(caught(() => obbFromQuaternion([0, 0, 0], [0, 0, 0, 0], [1, 1, 1])).field).toBe('rotation');
  });
});

describe('obbFromMatrix', () => {
  it('matches the documented example', () => {
    const b = obbFromMatrix([0, 2, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1], UNIT);
    expect(b.center).toEqual([5, 0, 0]);
    expect(b.halfExtents).toEqual([2, 1, 1]);
    expect(maxDiff(b.axes.flat(), [0, 1, 0, -1, 0, 0, 0, 0, 1])).toBeLessThan(1e-15);
  });

  it('round-trips rotation × scale (negative included) + translation (seed 202)', () => {
    const scaleArb = fc.oneof(finite(0.01, 100), finite(-100, -0.01));
    const lo = vec3Arb(-5, 5);
    fc.assert(
      fc.property(obbArb, fc.tuple(scaleArb, scaleArb, scaleArb), lo, vec3Arb(0, 5), (b, s, min, size) => {
        const [u, v, w] = b.axes;
        const m = matrix(
          [u[0] * s[0], u[1] * s[0], u[2] * s[0]],
          [v[0] * s[1], v[1] * s[1], v[2] * s[1]],
          [w[0] * s[2], w[1] * s[2], w[2] * s[2]],
          b.center,
        );
        const local: Aabb = { min, max: [min[0] + size[0], min[1] + size[1], min[2] + size[2]] };
        const got = obbFromMatrix(m, local);
        const lc = [0, 1, 2].map((k) => ((local.min[k] as number) + (local.max[k] as number)) / 2);
        const world = (p: readonly number[]): Vec3 => apply4(m, [p[0] as number, p[1] as number, p[2] as number, 1]).slice(0, 3) as unknown as Vec3;
        const scaleTol = 1e-12 * 1e4;
        expect(maxDiff(got.center, world(lc))).toBeLessThan(scaleTol);
        for (let k = 0; k < 3; k++) {
          const expected = (((local.max[k] as number) - (local.min[k] as number)) / 2) * Math.abs(s[k] as number);
          expect(Math.abs((got.halfExtents[k] as number) - expected)).toBeLessThan(scaleTol);
        }
        const d = frameDefects(got);
        expect(Math.max(d.unit, d.ortho, d.handed)).toBeLessThan(1e-15);
        // The same set of points: M maps the local box's corners onto the result's corners.
        const mapped = obbCorners(obbFromAabb(local)).map(world);
        expect(pointSetDistance(mapped, obbCorners(got))).toBeLessThan(scaleTol);
      }),
      { seed: 202, numRuns: 300 },
    );
  });

  it('makes a mirrored (det < 0) matrix right-handed without changing the box', () => {
    const b = obbFromMatrix(matrix([-2, 0, 0], [0, 3, 0], [0, 0, 4], [1, 1, 1]), UNIT);
    expect(b.halfExtents).toEqual([2, 3, 4]);
    expect(frameDefects(b).handed).toBe(0);
    expect(cornerSetDistance(b, { center: [1, 1, 1], halfExtents: [2, 3, 4], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] })).toBe(0);
  });

  it('accepts float32 world matrices and very different scales', () => {
    const c = Math.cos(0.3), s = Math.sin(0.3);
    const m32 = new Float32Array(matrix([c * 1e3, s * 1e3, 0], [-s * 1e-3, c * 1e-3, 0], [0, 0, 7], [1e4, 0, 0]));
    const b = obbFromMatrix(m32, UNIT);
    expect(Math.abs(b.halfExtents[0] - 1e3)).toBeLessThan(1e-3);
    expect(Math.abs(b.halfExtents[1] - 1e-3)).toBeLessThan(1e-9);
  });

  it('rejects shear, naming it', () => {
    const e = caught(() => obbFromMatrix(matrix([1, 0, 0], [0.2, 1, 0], [0, 0, 1], [0, 0, 0]), UNIT));
    expect(e.kind).toBe('matrix');
    expect(e.message).toMatch(/^matrix: matrix has shear \(\|cos ∠\(column 0, column 1\)\| = 0\.196/);
    // Just outside and just inside the tolerance.
    const k = (cos: number): number => cos / Math.sqrt(1 - cos * cos);
    expect(() => obbFromMatrix(matrix([1, 0, 0], [0, 1, 0], [0, k(1.1 * MATRIX_SHEAR_TOLERANCE), 1], [0, 0, 0]), UNIT)).toThrow(/shear/);
    expect(() => obbFromMatrix(matrix([1, 0, 0], [0, 1, 0], [0, k(0.9 * MATRIX_SHEAR_TOLERANCE), 1], [0, 0, 0]), UNIT)).not.toThrow();
  });

  it('rejects the classic sheared hierarchy: non-uniform parent scale × rotated child', () => {
    const c = Math.cos(0.5), s = Math.sin(0.5);
    // S(2, 1, 1) · Rz(0.5): columns (2c, s, 0) and (−2s, c, 0) are not orthogonal.
    const e = caught(() => obbFromMatrix(matrix([2 * c, s, 0], [-2 * s, c, 0], [0, 0, 1], [0, 0, 0]), UNIT));
    expect(e.message).toContain('shear');
  });

  it('rejects projective matrices', () => {
    const m = matrix([1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]);
    for (const [i, x] of [[3, 0.1], [7, -1], [11, 1e-20], [15, 2]] as const) {
      const p = m.slice();
      p[i] = x;
      const e = caught(() => obbFromMatrix(p, UNIT));
      expect(e.kind).toBe('matrix');
      expect(e.message).toMatch(/^matrix: matrix is projective/);
    }
  });

  it('handles zero scale columns as flat boxes', () => {
    const oneZero = obbFromMatrix(matrix([0, 2, 0], [-1, 0, 0], [0, 0, 0], [0, 0, 0]), UNIT);
    expect(oneZero.halfExtents).toEqual([2, 1, 0]);
    expect(maxDiff(oneZero.axes[2], [0, 0, 1])).toBe(0);
    const middleZero = obbFromMatrix(matrix([3, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 0]), UNIT);
    expect(middleZero.halfExtents).toEqual([3, 0, 1]);
    expect(maxDiff(middleZero.axes[1], [0, 1, 0])).toBe(0);
    const twoZero = obbFromMatrix(matrix([0, 0, 0], [0, 0, 0], [1, 1, 0], [1, 2, 3]), UNIT);
    expect(twoZero.halfExtents[0]).toBe(0);
    expect(twoZero.halfExtents[1]).toBe(0);
    expect(twoZero.halfExtents[2]).toBeCloseTo(Math.SQRT2, 15);
    expect(Math.abs(twoZero.axes[2][0] * Math.SQRT1_2 + twoZero.axes[2][1] * Math.SQRT1_2)).toBeCloseTo(1, 15);
    const allZero = obbFromMatrix(matrix([0, 0, 0], [0, 0, 0], [0, 0, 0], [1, 2, 3]), UNIT);
    expect(allZero).toEqual({ center: [1, 2, 3], halfExtents: [0, 0, 0], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] });
    for (const b of [oneZero, middleZero, twoZero]) {
      const d = frameDefects(b);
      expect(Math.max(d.unit, d.ortho, d.handed)).toBeLessThan(1e-15);
    }
  });

  it('rejects bad matrices and local boxes, naming the field', () => {
    const m = matrix([1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]);
    const nan = m.slice();
    nan[5] = NaN;
    expect(caught(() => obbFromMatrix(nan, UNIT)).field).toBe('m[5]');
    expect(caught(() => obbFromMatrix(m.slice(0, 12), UNIT)).message).toBe('matrix: m must be 16 numbers (got length 12)');
    const e = caught(() => obbFromMatrix(m, { min: [0, 2, 0], max: [1, 1, 1] }));
    expect(e.message).toBe('argument: localAabb.min[1] is greater than localAabb.max[1] (2 > 1)');
    expect(caught(() => obbFromMatrix(m, { min: [0, 0], max: [1, 1, 1] } as unknown as Aabb)).field).toBe('localAabb.min');
  });
});

describe('obbFromPoints', () => {
  /** Boxes whose sorted half extents differ by ≥ 20 %, so the covariance diag(h²) has distinct eigenvalues. */
  const distinctBoxArb = fc
    .record({ center: vec3Arb(-1e3, 1e3), rotation: quatArb, h: finite(0.1, 10), r1: finite(1.2, 3), r2: finite(1.2, 3), order: fc.constantFrom([0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1]) })
    .map(({ center, rotation, h, r1, r2, order }) => {
      const sizes = [h * r1 * r2, h * r2, h];
      const halfExtents = order.map((k) => sizes[k] as number) as unknown as Vec3;
      return toObb({ center, halfExtents, rotation });
    });

  it("recovers a box from its own 8 corners (seed 203)", () => {
    fc.assert(
      fc.property(distinctBoxArb, (b) => {
        const got = obbFromPoints(obbCorners(b));
        const scale = 1e3;
        expect(maxDiff(got.center, b.center)).toBeLessThan(1e-12 * scale);
        // PCA orders axes by decreasing spread.
        const sorted = [...b.halfExtents].sort((x, y) => y - x);
        expect(maxDiff(got.halfExtents, sorted)).toBeLessThan(1e-12 * scale);
        expect(cornerSetDistance(got, b)).toBeLessThan(1e-12 * scale);
        const d = frameDefects(got);
        expect(Math.max(d.unit, d.ortho, d.handed)).toBeLessThan(1e-15);
      }),
      { seed: 203, numRuns: 300 },
    );
  });

  it('contains every point of a random cloud and touches each face (seed 204)', () => {
    fc.assert(
      fc.property(fc.array(vec3Arb(-100, 100), { minLength: 1, maxLength: 60 }), (pts) => {
        const b = obbFromPoints(pts);
        expect(containsAll(b, pts, 1e-12)).toBe(true);
        for (let k = 0; k < 3; k++) {
          const proj = pts.map((p) => toLocal(b, p)[k] as number);
          expect(Math.abs(Math.max(...proj) - (b.halfExtents[k] as number))).toBeLessThan(1e-12);
          expect(Math.abs(Math.min(...proj) + (b.halfExtents[k] as number))).toBeLessThan(1e-12);
        }
      }),
      { seed: 204, numRuns: 200 },
    );
  });

  it('centres the box on the projected interval, not on the mean', () => {
    const b = obbFromPoints([[0, 0, 0], [0, 0, 0], [0, 0, 0], [10, 0, 0]]);
    expect(maxDiff(b.center, [5, 0, 0])).toBeLessThan(1e-14);
    expect(maxDiff(b.halfExtents, [5, 0, 0])).toBeLessThan(1e-14);
  });

  it('accepts flat arrays and Float32Array with the same result', () => {
    const pts: Vec3[] = [[1, 2, 3], [4, 0, -1], [2, 2, 2], [0, 1, 5]];
    const a = obbFromPoints(pts);
    expect(obbFromPoints(pts.flat())).toEqual(a);
    expect(obbFromPoints(new Float64Array(pts.flat()))).toEqual(a);
    expect(cornerSetDistance(obbFromPoints(new Float32Array(pts.flat())), a)).toBeLessThan(1e-12);
  });

  describe('degenerate clouds', () => {
    it('a single point: zero extents, identity axes', () => {
      expect(obbFromPoints([[1e6, -2, 3.5]])).toEqual({ center: [1e6, -2, 3.5], halfExtents: [0, 0, 0], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] });
    });

    it('duplicate points: the same', () => {
      const p: Vec3 = [0.1, 0.2, 0.3];
      expect(obbFromPoints([p, p, p, p])).toEqual({ center: p, halfExtents: [0, 0, 0], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] });
    });

    it('collinear points: u along the line, zero extents across (seed 205)', () => {
      fc.assert(
        fc.property(vec3Arb(-1e3, 1e3), quatArb, fc.array(finite(-10, 10), { minLength: 2, maxLength: 20 }), (o, q, ts) => {
          const dir = toObb({ center: [0, 0, 0], halfExtents: [0, 0, 0], rotation: q }).axes[0];
          fc.pre(Math.max(...ts) - Math.min(...ts) > 1e-3);
          const pts = ts.map((t): Vec3 => [o[0] + t * dir[0], o[1] + t * dir[1], o[2] + t * dir[2]]);
          const b = obbFromPoints(pts);
          expect(Math.abs(Math.abs(b.axes[0][0] * dir[0] + b.axes[0][1] * dir[1] + b.axes[0][2] * dir[2]) - 1)).toBeLessThan(1e-12);
          expect(Math.abs(b.halfExtents[0] - (Math.max(...ts) - Math.min(...ts)) / 2)).toBeLessThan(1e-9);
          expect(b.halfExtents[1]).toBeLessThan(1e-9);
          expect(b.halfExtents[2]).toBeLessThan(1e-9);
          expect(containsAll(b, pts, 1e-9)).toBe(true);
          const d = frameDefects(b);
          expect(Math.max(d.unit, d.ortho, d.handed)).toBeLessThan(1e-15);
        }),
        { seed: 205, numRuns: 200 },
      );
    });

    it('coplanar points: one zero extent, w normal to the plane (seed 206)', () => {
      fc.assert(
        fc.property(vec3Arb(-1e3, 1e3), quatArb, fc.array(fc.tuple(finite(-10, 10), finite(-10, 10)), { minLength: 3, maxLength: 20 }), (o, q, st) => {
          const { axes } = toObb({ center: [0, 0, 0], halfExtents: [0, 0, 0], rotation: q });
          const [a, c, n] = axes;
          const pts = st.map(([s, t]): Vec3 => [o[0] + s * a[0] + t * c[0], o[1] + s * a[1] + t * c[1], o[2] + s * a[2] + t * c[2]]);
          const b = obbFromPoints(pts);
          expect(b.halfExtents[2]).toBeLessThan(1e-9);
          // Unless the cloud is itself collinear, w is the plane normal.
          if (b.halfExtents[1] > 1e-3) {
            expect(Math.abs(Math.abs(b.axes[2][0] * n[0] + b.axes[2][1] * n[1] + b.axes[2][2] * n[2]) - 1)).toBeLessThan(1e-9);
          }
          expect(containsAll(b, pts, 1e-9)).toBe(true);
        }),
        { seed: 206, numRuns: 200 },
      );
    });

    it('a cube\'s corners (covariance ∝ I): any axes, but a box containing all of them', () => {
      const cube = toObb({ center: [1, 2, 3], halfExtents: [2, 2, 2], rotation: [0.2, 0.1, 0.4, 0.9] });
      const b = obbFromPoints(obbCorners(cube));
      expect(containsAll(b, obbCorners(cube), 1e-12)).toBe(true);
      expect(maxDiff(b.center, cube.center)).toBeLessThan(1e-12);
      const d = frameDefects(b);
      expect(Math.max(d.unit, d.ortho, d.handed)).toBeLessThan(1e-15);
    });
  });

  it('rejects empty and non-finite input, naming the point', () => {
    const e = caught(() => obbFromPoints([]));
    expect(e.kind).toBe('point');
    expect(e.message).toBe('point: points is empty; a box needs at least one point');
    expect(caught(() => obbFromPoints([[0, 0, 0], [1, 1, 1], [0, NaN, 0]])).message).toBe('point 2: y is not a finite number (got NaN)');
    expect(caught(() => obbFromPoints([0, 0, 0, 1, 1, Infinity])).message).toBe('point 1: z is not a finite number (got Infinity)');
    expect(caught(() => obbFromPoints([0, 0, 0, 1])).message).toBe('argument: points flat length 4 is not a multiple of 3');
    expect(caught(() => obbFromPoints([[0, 0]] as unknown as Vec3[])).message).toBe('point 0: value must be an array of 3 numbers');
  });
});
