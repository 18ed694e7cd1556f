/**
 * Frustum culling, float64: the CPU twin of shaders/frustum/cull.wgsl.
 */
import { BOX_F64, type BoxArray } from '../core/types.ts';
import type { Plane } from '../core/frustum.ts';

export { frustumPlanes, rebasePlanes, type Plane } from '../core/frustum.ts';

/** Signed distance of box b from plane p beyond its projected radius (< 0: entirely outside). */
export function boxPlaneMargin(boxes: BoxArray, b: number, p: Plane): number {
  const o = b * BOX_F64.STRIDE;
  const d = boxes.data;
  const dot = (k: number): number => p[0] * d[k]! + p[1] * d[k + 1]! + p[2] * d[k + 2]!;
  const r = d[o + BOX_F64.HALF]! * Math.abs(dot(o + BOX_F64.U)) +
    d[o + BOX_F64.HALF + 1]! * Math.abs(dot(o + BOX_F64.V)) +
    d[o + BOX_F64.HALF + 2]! * Math.abs(dot(o + BOX_F64.W));
  return dot(o + BOX_F64.CENTER) + p[3] + r;
}

/**
 * Indices of the boxes not entirely outside any plane, ascending.
 *
 * @example
 * frustumCull(boxes, frustumPlanes(viewProj)) // Uint32Array [0, 3, 4, …]
 */
export function frustumCull(boxes: BoxArray, planes: readonly Plane[]): Uint32Array {
  const out: number[] = [];
  for (let b = 0; b < boxes.count; b++) {
    if (planes.every((p) => boxPlaneMargin(boxes, b, p) >= 0)) {
      out.push(b);
    }
  }
  return Uint32Array.from(out);
}
