/**
 * Symmetric 3×3 eigen-decomposition by cyclic Jacobi rotations.
 *
 * Jacobi is the right tool at this size: it is short, unconditionally convergent (quadratically,
 * after the first sweep), always returns an orthonormal eigenvector basis even for repeated
 * eigenvalues (where "the" eigenvectors are any basis of the eigenspace), and computes small
 * eigenvalues to high relative accuracy. Reference: Golub & Van Loan, "Matrix Computations",
 * §8.5 (the symmetric Schur decomposition `sym.schur2` and the cyclic Jacobi method).
 */

import type { Vec3 } from './types.ts';

/**
 * Result of {@link symmetricEigen3}: `vectors[k]` is the unit eigenvector of `values[k]`.
 *
 * @example
 * const covariance = [2, 1, 0, 1, 2, 0, 0, 0, 5] // 3 × 3, row-major
 * const { values, vectors } = symmetricEigen3(covariance)
 * const mainAxis = vectors[0] // direction of the largest variance, values[0]
 */
export interface SymmetricEigen3 {
  /** Eigenvalues, sorted in descending order. */
  readonly values: readonly [number, number, number];
  /** Orthonormal eigenvectors, in the order of `values`. The basis may be of either handedness. */
  readonly vectors: readonly [Vec3, Vec3, Vec3];
}

/** Sweeps after which we stop regardless; 3×3 matrices converge in 4–8 in practice. */
const MAX_SWEEPS = 50;
/** Unit roundoff of float64. */
const EPS = 2 ** -53;

/**
 * Eigenvalues and eigenvectors of a real symmetric 3×3 matrix, given as 9 numbers (row- or
 * column-major: they agree for a symmetric matrix). Only the upper triangle (m[1], m[2], m[5])
 * and the diagonal are read, so a slightly asymmetric input is treated as its upper triangle.
 *
 * The reconstruction error ‖A − V Λ Vᵀ‖ is a few ulps of ‖A‖.
 *
 * @example
 * const { values, vectors } = symmetricEigen3([2, 1, 0, 1, 2, 0, 0, 0, 5])
 * values  // [5, 3, 1]
 * vectors // [[0, 0, 1], [0.707…, 0.707…, 0], [0.707…, -0.707…, 0]] (each up to sign)
 */
export function symmetricEigen3(m: ArrayLike<number>): SymmetricEigen3 {
  // a: the working matrix (full, kept symmetric); v: accumulated rotations, column k = vector k.
  const a = [
    [m[0] ?? NaN, m[1] ?? NaN, m[2] ?? NaN],
    [m[1] ?? NaN, m[4] ?? NaN, m[5] ?? NaN],
    [m[2] ?? NaN, m[5] ?? NaN, m[8] ?? NaN],
  ];
  const v = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  const get = (r: number, c: number): number => (a[r] as number[])[c] as number;
  const put = (r: number, c: number, x: number): void => {
    (a[r] as number[])[c] = x;
    (a[c] as number[])[r] = x;
  };

  let frob = 0;
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      frob += get(r, c) * get(r, c);
    }
  }
  frob = Math.sqrt(frob);

  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let rotated = false;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]] as const) {
      const apq = get(p, q);
      const app = get(p, p);
      const aqq = get(q, q);
      // Treat a_pq as zero when it is below rounding relative to its own diagonal (the
      // Demmel–Veselić criterion: keeps small eigenvalues accurate) or negligible against the
      // whole matrix (needed when a diagonal entry is 0, as in rank-deficient covariances).
      if (Math.abs(apq) <= EPS * Math.sqrt(Math.abs(app * aqq)) || Math.abs(apq) <= EPS * EPS * frob) {
        put(p, q, 0);
        continue;
      }
      rotated = true;
      // Rotation angle θ with tan 2θ = 2 a_pq / (a_qq − a_pp); t = tan θ, the smaller root, so
      // |θ| ≤ π/4 (Golub & Van Loan, Algorithm 8.5.1). For huge τ, 1/(2τ) avoids τ² overflow.
      const tau = (aqq - app) / (2 * apq);
      const t =
        Math.abs(tau) > 1e150
          ? 1 / (2 * tau)
          : (tau >= 0 ? 1 : -1) / (Math.abs(tau) + Math.sqrt(1 + tau * tau));
      const c = 1 / Math.sqrt(1 + t * t);
      const s = t * c;
      const r = 3 - p - q; // the third index
      const arp = get(r, p);
      const arq = get(r, q);
      put(p, p, app - t * apq);
      put(q, q, aqq + t * apq);
      put(p, q, 0);
      put(r, p, c * arp - s * arq);
      put(r, q, s * arp + c * arq);
      for (let k = 0; k < 3; k++) {
        const row = v[k] as number[];
        const vkp = row[p] as number;
        const vkq = row[q] as number;
        row[p] = c * vkp - s * vkq;
        row[q] = s * vkp + c * vkq;
      }
    }
    if (!rotated) {
      break;
    }
  }

  const col = (k: number): Vec3 => [
    (v[0] as number[])[k] as number,
    (v[1] as number[])[k] as number,
    (v[2] as number[])[k] as number,
  ];
  interface Pair {
    readonly value: number;
    readonly vector: Vec3;
  }
  const pairs: Pair[] = [0, 1, 2].map((k) => ({ value: get(k, k), vector: col(k) }));
  // Descending, stable: equal eigenvalues keep Jacobi's order, so the result is deterministic.
  pairs.sort((x, y) => y.value - x.value);
  const [p0, p1, p2] = pairs as [Pair, Pair, Pair];
  return {
    values: [p0.value, p1.value, p2.value],
    vectors: [p0.vector, p1.vector, p2.vector],
  };
}
