import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { symmetricEigen3 } from '../../../src/core/jacobi.ts';
import type { Vec3 } from '../../../src/core/types.ts';
import { finite, maxDiff, quatArb } from './fixtures.ts';
import { toObb } from '../../../src/core/canonical.ts';

/** V diag(λ) Vᵀ as 9 numbers (row-major). */
function reconstruct(values: readonly number[], vectors: readonly Vec3[]): number[] {
  const out: number[] = [];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      let s = 0;
      for (let k = 0; k < 3; k++) {
        const v = vectors[k] as Vec3;
        s += (values[k] as number) * (v[r] as number) * (v[c] as number);
      }
      out.push(s);
    }
  }
  return out;
}

/** Largest |VᵀV − I| entry. */
function orthoDefect(vectors: readonly Vec3[]): number {
  let m = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const a = vectors[i] as Vec3, b = vectors[j] as Vec3;
      m = Math.max(m, Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] - (i === j ? 1 : 0)));
    }
  }
  return m;
}

const frob = (m: readonly number[]): number => Math.hypot(...m);

function checkDecomposition(m: readonly number[]): void {
  const { values, vectors } = symmetricEigen3(m);
  // Relative to ‖A‖, plus an absolute floor for the subnormal matrices fast-check shrinks towards
  // (products of subnormals round to a few multiples of 5e-324 whatever the algorithm).
  expect(maxDiff(reconstruct(values, vectors), m)).toBeLessThanOrEqual(1e-12 * frob(m) + 1e-300);
  expect(orthoDefect(vectors)).toBeLessThan(1e-14);
  expect(values[0]).toBeGreaterThanOrEqual(values[1]);
  expect(values[1]).toBeGreaterThanOrEqual(values[2]);
}

describe('symmetricEigen3', () => {
  it('decomposes a hand-checked matrix', () => {
    const { values, vectors } = symmetricEigen3([2, 1, 0, 1, 2, 0, 0, 0, 5]);
    expect(maxDiff(values, [5, 3, 1])).toBeLessThan(1e-15);
    const s = Math.SQRT1_2;
    expect(Math.abs(vectors[0][2])).toBeCloseTo(1, 15);
    expect(Math.abs(vectors[1][0] * s + vectors[1][1] * s)).toBeCloseTo(1, 15);
    expect(Math.abs(vectors[2][0] * s - vectors[2][1] * s)).toBeCloseTo(1, 15);
  });

  it('reconstructs random symmetric matrices: A = V Λ Vᵀ to 1e-12, V orthonormal (seed 101)', () => {
    const x = finite(-10, 10);
    const sym = fc.tuple(x, x, x, x, x, x).map(([a, b, c, d, e, f]) => [a, b, c, b, d, e, c, e, f]);
    fc.assert(fc.property(sym, (m) => checkDecomposition(m)), { seed: 101, numRuns: 1000 });
  });

  it('reconstructs R diag(λ) Rᵀ with chosen, possibly repeated, eigenvalues (seed 102)', () => {
    const lambda = fc.constantFrom(-3, 0, 1e-9, 1, 2, 1e6);
    fc.assert(
      fc.property(quatArb, lambda, lambda, lambda, (q, l0, l1, l2) => {
        const { axes } = toObb({ center: [0, 0, 0], halfExtents: [0, 0, 0], rotation: q });
        const m = reconstruct([l0, l1, l2], axes);
        checkDecomposition(m);
        const got = [...symmetricEigen3(m).values];
        expect(maxDiff(got, [l0, l1, l2].sort((a, b) => b - a))).toBeLessThan(1e-9 * Math.max(1, Math.abs(l0), Math.abs(l1), Math.abs(l2)));
      }),
      { seed: 102, numRuns: 500 },
    );
  });

  it('handles diagonal, zero, scalar and rank-1 matrices', () => {
    expect(symmetricEigen3([0, 0, 0, 0, 0, 0, 0, 0, 0])).toEqual({ values: [0, 0, 0], vectors: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] });
    expect(symmetricEigen3([4, 0, 0, 0, 4, 0, 0, 0, 4]).values).toEqual([4, 4, 4]);
    const d = symmetricEigen3([1, 0, 0, 0, 3, 0, 0, 0, 2]);
    expect(d.values).toEqual([3, 2, 1]);
    expect(d.vectors).toEqual([[0, 1, 0], [0, 0, 1], [1, 0, 0]]);
    const a: Vec3 = [1, 2, 3]; // a aᵀ: eigenvalue |a|² along a, 0 twice
    const m = [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => (a[r] as number) * (a[c] as number)));
    checkDecomposition(m);
    expect(symmetricEigen3(m).values[0]).toBeCloseTo(14, 13);
  });

  it('keeps relative accuracy at extreme scales', () => {
    for (const k of [1e-150, 1e150]) {
      const m = [2, 1, 0, 1, 2, 0, 0, 0, 5].map((x) => x * k);
      const { values } = symmetricEigen3(m);
      expect(maxDiff(values.map((x) => x / k), [5, 3, 1])).toBeLessThan(1e-14);
    }
  });
});
