/**
 * An independent check of SAT gaps: project the 8 corners of each box on an axis and measure the
 * gap between the two intervals. It shares no code with `obbObbSat` (no support-radius formula),
 * so agreement between the two is evidence that both are right.
 */
import type { Obb, Vec3 } from '../core/types.ts';

function projectCorners(box: Obb, axis: Vec3): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let c = 0; c < 8; c++) {
    let x = box.center[0], y = box.center[1], z = box.center[2];
    for (let k = 0; k < 3; k++) {
      const s = (c >> k) & 1 ? box.halfExtents[k]! : -box.halfExtents[k]!;
      const a = box.axes[k]!;
      x += s * a[0];
      y += s * a[1];
      z += s * a[2];
    }
    const p = x * axis[0] + y * axis[1] + z * axis[2];
    lo = Math.min(lo, p);
    hi = Math.max(hi, p);
  }
  return [lo, hi];
}

/**
 * Gap between the projections of two boxes' corners on `axis`, in world units (axis normalised
 * here): positive when the intervals are apart, negative by the overlap length otherwise.
 *
 * @example
 * declare const a: Obb, b: Obb;
 * cornerProjectionGap(a, b, satAxis(a, b, 11)) // ≈ obbObbSat(a, b).gap when A1xB2 separates
 */
export function cornerProjectionGap(a: Obb, b: Obb, axis: Vec3): number {
  const len = Math.hypot(axis[0], axis[1], axis[2]);
  const n: Vec3 = [axis[0] / len, axis[1] / len, axis[2] / len];
  const [aLo, aHi] = projectCorners(a, n);
  const [bLo, bHi] = projectCorners(b, n);
  return Math.max(bLo - aHi, aLo - bHi);
}
