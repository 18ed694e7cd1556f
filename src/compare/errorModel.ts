/**
 * The float32 error model: how far a GPU result may lie from the float64 reference, and when a
 * decision is too close to call.
 *
 * Notation: u = 2⁻²⁴ (float32 unit roundoff). Positions reach the GPU re-based to the set's
 * floating origin, so "scale" below is measured from that origin.
 *
 * Ray–box (slab distance through axis k, local direction component d_k):
 *   the GPU rounds origin, centre and axes (≤ u each), forms rel = o − c, p = rel·axis and
 *   d = dir·axis (each ≲ 10u·|rel| and 8u), then t_k = (±h − p)/d_k with a division good to
 *   2.5 ulp. To first order |δt_k| ≤ u·(12·(|o| + |c|) + 2h + 13|t|)/|d_k|. We use
 *     bound_t(k) = K_RAY · u · (scale + |t|) / |d_k|,   scale = |o| + |c| + |h|,  K_RAY = 32,
 *   twice the first-order constant, to cover second-order terms and fused multiply-adds.
 *   The 1/|d_k| factor is real: a ray that meets a face at a grazing angle has an
 *   ill-conditioned crossing point.
 *
 * Box–box SAT (axis L, unnormalised, |L| = 1 for face axes):
 *   the GPU computes the separation along a slightly rotated axis L' (|L' − L| ≲ 4u), and the
 *   projections with ≲ 14u·S absolute error; dividing by |L| turns both into
 *     bound_gap(L) = K_SAT · u · S / |L|,   S = |cA| + |cB| + ΣhA + ΣhB,  K_SAT = 32
 *   (first-order constant 18, doubled).
 *
 * OBB–frustum separating axes (exact culling; axis L = a_i × e_m, or a box axis with |L| = 1):
 *   the GPU rounds the frustum's corners q_j, the box's centre c and half extents (≤ u each), its
 *   axes (≤ u; w = u × v ≤ 4u) and the unit edge directions (≤ u); it forms q_j − c (≤ 2u·S),
 *   the corners in the box's frame Q_j (≲ 9u·S) and the edge there, E (≲ 8u), so L is turned by
 *   ≲ 11u/|L| and a projection Q_j·L is off by ≲ 11u·S·|L| + 11u·S, the box's radius h·|L|
 *   (componentwise) by ≲ 15u·Σh; near the decision (gap ≈ 0) the subtraction and the division by
 *   |L| add only second-order terms. First order ≈ 23u·S/|L| (a box axis ≈ 12u·S), so
 *     bound_frustum(L) = K_FRUSTUM · u · S / |L|,   S = |c| + Σh + max_j |q_j|,  K_FRUSTUM = 48,
 *   all measured from the set's floating origin. The frustum's plane axes are the plane test's,
 *   bounded by positionBound(|c| + Σh + |d|).
 *
 * Every bound takes the unit roundoff u as its last argument (default float32's): the derivation
 * counts roundings, so the same constants judge float16 or float64 arithmetic with their own u
 * ({@link UNIT_ROUNDOFF}).
 *
 * A decision (hit/miss, inside/outside, overlap/separate, which box is closest, which axis gives
 * the largest gap) is **ambiguous** when the float64 reference shows it within these bounds of
 * flipping; only then may the GPU differ. Anything else that differs is a **mismatch**.
 */

/** float32 unit roundoff, 2⁻²⁴. */
export const F32_UNIT_ROUNDOFF = 2 ** -24;
/** Safety factor of the ray-distance bound (first-order constant ≈ 13–16, doubled). */
export const K_RAY = 32;
/** Safety factor of the SAT gap bound (first-order constant ≈ 18, doubled). */
export const K_SAT = 32;

/** Smallest |d_k| the bound divides by (the kernels never divide below EPS_DIR either). */
const MIN_SLOPE = 1e-12;

/**
 * Bound on |t_gpu − t_ref| for a slab crossing at distance `t` through an axis whose local
 * direction component is `dk`, at world `scale` (|origin| + |centre| + |half extents|).
 *
 * @example
 * rayDistanceBound(100, 42, 0.5) // ≈ 5.3e-4
 */
export function rayDistanceBound(scale: number, t: number, dk: number, u = F32_UNIT_ROUNDOFF): number {
  return (K_RAY * u * (scale + Math.abs(t))) / Math.max(Math.abs(dk), MIN_SLOPE);
}

/** Bound on a position-only quantity at `scale` (e.g. a parallel slab's `h − |p|`). */
export function positionBound(scale: number, u = F32_UNIT_ROUNDOFF): number {
  return K_RAY * u * scale;
}

/**
 * Bound on |gap_gpu − gap_ref| along a SAT axis of squared length `lenSq`, at scale S.
 *
 * @example
 * satGapBound(10, 1) // ≈ 1.9e-5 (a face axis)
 */
export function satGapBound(scale: number, lenSq: number, u = F32_UNIT_ROUNDOFF): number {
  return (K_SAT * u * scale) / Math.sqrt(Math.max(lenSq, 1e-30));
}

/** Safety factor of the OBB–frustum gap bound (first-order constant ≈ 23, doubled). */
export const K_FRUSTUM = 48;

/**
 * Bound on |gap_gpu − gap_ref| near a separating decision of the exact OBB–frustum test, along an
 * axis of squared length `lenSq` (1 for a box axis), at scale S = |c| + Σh + max_j |q_j| (box
 * centre, half extents and the frustum's farthest corner, from the floating origin).
 *
 * @example
 * frustumGapBound(500, 1) // ≈ 1.4e-3 (a box axis, a frustum reaching 500 units out)
 */
export function frustumGapBound(scale: number, lenSq: number, u = F32_UNIT_ROUNDOFF): number {
  return (K_FRUSTUM * u * scale) / Math.sqrt(Math.max(lenSq, 1e-30));
}

/**
 * Band around SAT_EDGE_EPS_SQ within which float32 may skip an edge-cross axis that float64
 * keeps, or the reverse (|L|² is computed with ≲ 8u·|L| absolute error).
 */
export function edgeSkipBand(lenSq: number, u = F32_UNIT_ROUNDOFF): number {
  return 8 * u * (Math.sqrt(lenSq) + u);
}

/**
 * Unit roundoff of the arithmetic an implementation uses: every bound above is first order in u
 * (the constants count roundings, not bits), so an implementation in another precision is judged
 * by the same model with its own u — float16 2⁻¹¹, float32 2⁻²⁴, float64 2⁻⁵³.
 */
export const UNIT_ROUNDOFF = { f16: 2 ** -11, f32: F32_UNIT_ROUNDOFF, f64: 2 ** -53 } as const;

/** A precision name of {@link UNIT_ROUNDOFF}. */
export type Precision = keyof typeof UNIT_ROUNDOFF;
