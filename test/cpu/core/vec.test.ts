import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { add, addScaled, cross, distance, dot, length, negate, normalize, perpendicular, scale, sub } from '../../../src/core/vec.ts';
import { maxDiff, vec3Arb } from './fixtures.ts';

describe('vec', () => {
  it('does the arithmetic', () => {
    expect(add([1, 2, 3], [1, 1, 1])).toEqual([2, 3, 4]);
    expect(sub([1, 2, 3], [1, 1, 1])).toEqual([0, 1, 2]);
    expect(scale([1, 2, 3], 2)).toEqual([2, 4, 6]);
    expect(addScaled([1, 0, 0], [0, 1, 0], 3)).toEqual([1, 3, 0]);
    expect(negate([1, -2, 3])).toEqual([-1, 2, -3]);
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
    expect(cross([1, 0, 0], [0, 1, 0])).toEqual([0, 0, 1]);
    expect(cross([0, 1, 0], [0, 0, 1])).toEqual([1, 0, 0]);
    expect(length([3, 4, 0])).toBe(5);
    expect(distance([1, 1, 1], [1, 1, 3])).toBe(2);
    expect(normalize([0, 3, 4])).toEqual([0, 0.6, 0.8]);
  });

  it('measures and normalises tiny and huge vectors without under/overflow', () => {
    expect(length([3e-200, 4e-200, 0])).toBeCloseTo(5e-200, 214);
    expect(length([3e200, 4e200, 0]) / 5e200).toBeCloseTo(1, 15);
    expect(normalize([0, 3e-320, 0])).toEqual([0, 1, 0]);
    expect(normalize([0, 0, 0])).toEqual([0, 0, 0]);
  });

  it('perpendicular(n) completes n to a right-handed orthonormal basis (seed 401)', () => {
    fc.assert(
      fc.property(vec3Arb(-1, 1).filter((v) => length(v) > 1e-3), (v) => {
        const n = normalize(v);
        const p = perpendicular(n);
        expect(Math.abs(dot(n, p))).toBeLessThan(1e-15);
        expect(Math.abs(length(p) - 1)).toBeLessThan(1e-15);
        const q = cross(n, p);
        expect(Math.abs(length(q) - 1)).toBeLessThan(1e-15);
        expect(maxDiff(cross(p, q), n)).toBeLessThan(1e-15);
      }),
      { seed: 401, numRuns: 300 },
    );
    expect(perpendicular([0, 0, -1])).toEqual([1, -0, 0]);
  });
});
