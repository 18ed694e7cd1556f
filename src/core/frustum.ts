/**
 * Frustum planes: the six planes of a WebGPU view-projection matrix, and planes moved into a
 * set's floating-origin frame. The cull itself: frustumCull (src/reference/frustum.ts) on the CPU,
 * shaders/frustum/cull.wgsl on the GPU.
 */
import type { Mat4, Vec3 } from './types.ts';
import { ValidationError } from '../errors.ts';

/** A plane n·p + d = 0 with n pointing into the frustum (inside: n·p + d >= 0). */
export type Plane = readonly [nx: number, ny: number, nz: number, d: number];

/**
 * The six planes (left, right, bottom, top, near, far) of a column-major view-projection matrix,
 * normalised (unit normals, so d is a distance). Gribb & Hartmann, "Fast Extraction of Viewing
 * Frustum Planes" (2001): in WebGPU clip space (x, y in [−w, w], z in [0, w]; the default) the
 * near plane is z ≥ 0, in WebGL's (`clipSpace: 'webgl'`, z in [−w, w]) it is z ≥ −w.
 *
 * @example
 * import { WebGLCoordinateSystem } from 'three';
 * const planes = frustumPlanes(viewProj);
 * const fromThree = frustumPlanes(viewProj, { clipSpace: camera.coordinateSystem === WebGLCoordinateSystem ? 'webgl' : 'webgpu' });
 */
export function frustumPlanes(m: Mat4, options: { readonly clipSpace?: 'webgpu' | 'webgl' } = {}): Plane[] {
  const clipSpace = options.clipSpace ?? 'webgpu';
  if (clipSpace !== 'webgpu' && clipSpace !== 'webgl') {
    throw new ValidationError('argument', undefined, 'clipSpace', `must be 'webgpu' or 'webgl' (got ${String(clipSpace)})`);
  }
  if (m.length !== 16 || !Array.from(m).every(Number.isFinite)) {
    throw new ValidationError('matrix', undefined, 'viewProj', 'must be 16 finite numbers (column-major)');
  }
  const row = (r: number): [number, number, number, number] => [m[r]!, m[4 + r]!, m[8 + r]!, m[12 + r]!];
  const [r0, r1, r2, r3] = [row(0), row(1), row(2), row(3)];
  const add = (a: number[], b: number[], s: number): number[] => a.map((x, i) => x + s * b[i]!);
  const raw = [add(r3, r0, 1), add(r3, r0, -1), add(r3, r1, 1), add(r3, r1, -1), clipSpace === 'webgl' ? add(r3, r2, 1) : r2, add(r3, r2, -1)];
  return raw.map((p, k) => {
    const len = Math.hypot(p[0]!, p[1]!, p[2]!);
    if (!(len > 0)) {
      throw new ValidationError('matrix', undefined, 'viewProj', `gives a degenerate frustum plane ${k}`);
    }
    return [p[0]! / len, p[1]! / len, p[2]! / len, p[3]! / len] as const;
  });
}

/** Planes moved into a frame whose origin is `origin` (float64): d' = d + n·origin. */
export function rebasePlanes(planes: readonly Plane[], origin: Vec3): Plane[] {
  return planes.map((p) => [p[0], p[1], p[2], p[3] + p[0] * origin[0] + p[1] * origin[1] + p[2] * origin[2]] as const);
}
