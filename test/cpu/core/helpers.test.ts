import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toObb } from '../../../src/core/canonical.ts';
import { obbCorners, obbEdges, obbFromAabb, obbToAabb, rayFromScreen } from '../../../src/core/helpers.ts';
import { frustumPlanes } from '../../../src/core/frustum.ts';
import type { Aabb, Vec3 } from '../../../src/core/types.ts';
import { ValidationError } from '../../../src/errors.ts';
import { apply4, finite, invert4, lookAt, maxDiff, mul4, obbArb, ortho, perspective, vec3Arb } from './fixtures.ts';

function caught(f: () => unknown): ValidationError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const norm = (a: Vec3): number => Math.hypot(a[0], a[1], a[2]);
const unit = (a: Vec3): Vec3 => [a[0] / norm(a), a[1] / norm(a), a[2] / norm(a)];

describe('obbToAabb', () => {
  it('contains every corner and is tight: a corner touches each face (seed 301)', () => {
    fc.assert(
      fc.property(obbArb, (b) => {
        const { min, max } = obbToAabb(b);
        const cs = obbCorners(b);
        for (let i = 0; i < 3; i++) {
          const xs = cs.map((c) => c[i] as number);
          expect(Math.abs(Math.min(...xs) - (min[i] as number))).toBeLessThan(1e-12);
          expect(Math.abs(Math.max(...xs) - (max[i] as number))).toBeLessThan(1e-12);
        }
      }),
      { seed: 301, numRuns: 300 },
    );
  });

  it('is the identity for an axis-aligned box', () => {
    const a: Aabb = { min: [-1, 2, 3], max: [4, 5, 6.5] };
    expect(obbToAabb(obbFromAabb(a))).toEqual(a);
  });

  it('gives ±√2 for a unit cube turned 45° about z', () => {
    const b = toObb({ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)] });
    const { min, max } = obbToAabb(b);
    expect(maxDiff(max, [Math.SQRT2, Math.SQRT2, 1])).toBeLessThan(1e-15);
    expect(maxDiff(min, [-Math.SQRT2, -Math.SQRT2, -1])).toBeLessThan(1e-15);
  });
});

describe('obbFromAabb', () => {
  it('round-trips random AABBs (seed 302)', () => {
    fc.assert(
      fc.property(vec3Arb(-1e3, 1e3), vec3Arb(0, 1e3), (min, size) => {
        const a: Aabb = { min, max: [min[0] + size[0], min[1] + size[1], min[2] + size[2]] };
        const b = obbFromAabb(a);
        expect(b.axes).toEqual([[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
        const back = obbToAabb(b);
        expect(maxDiff(back.min, a.min)).toBeLessThan(1e-12);
        expect(maxDiff(back.max, a.max)).toBeLessThan(1e-12);
      }),
      { seed: 302, numRuns: 200 },
    );
  });

  it('accepts flat AABBs and rejects min > max and non-finite values', () => {
    expect(obbFromAabb({ min: [0, 1, 0], max: [2, 1, 2] }).halfExtents).toEqual([1, 0, 1]);
    expect(caught(() => obbFromAabb({ min: [0, 0, 3], max: [1, 1, 2] })).message).toBe('argument: min[2] is greater than max[2] (3 > 2)');
    expect(caught(() => obbFromAabb({ min: [0, 0, 0], max: [1, NaN, 1] })).field).toBe('max[1]');
  });

  it('does not overflow at the edge of the float64 range', () => {
    const b = obbFromAabb({ min: [-1.7e308, 0, 0], max: [1.7e308, 0, 0] });
    expect(b.center).toEqual([0, 0, 0]);
    expect(b.halfExtents[0]).toBe(1.7e308);
  });
});

describe('obbCorners / obbEdges', () => {
  it('orders corners by bits: bit k set → +h_k along axis k', () => {
    const cs = obbCorners(obbFromAabb({ min: [0, 0, 0], max: [1, 2, 3] }));
    expect(cs).toEqual([
      [0, 0, 0], [1, 0, 0], [0, 2, 0], [1, 2, 0],
      [0, 0, 3], [1, 0, 3], [0, 2, 3], [1, 2, 3],
    ]);
  });

  it('has 12 edges of length 2h_k along axis k, joining corners, 3 per corner (seed 303)', () => {
    fc.assert(
      fc.property(obbArb, (b) => {
        const edges = obbEdges(b);
        const cs = obbCorners(b);
        expect(edges).toHaveLength(12);
        const uses = new Array<number>(8).fill(0);
        // Documented order: axis k = 0, 1, 2; within it, corners i with bit k clear, ascending.
        const pairs = [0, 1, 2].flatMap((k) => [0, 1, 2, 3, 4, 5, 6, 7].filter((i) => !((i >> k) & 1)).map((i) => [i, i | (1 << k)] as const));
        edges.forEach(([p, q], e) => {
          const k = Math.floor(e / 4);
          const [i, j] = pairs[e] as readonly [number, number];
          expect(p).toEqual(cs[i]);
          expect(q).toEqual(cs[j]);
          uses[i] = (uses[i] as number) + 1;
          uses[j] = (uses[j] as number) + 1;
          const d = sub(q, p);
          expect(Math.abs(norm(d) - 2 * (b.halfExtents[k] as number))).toBeLessThan(1e-12);
          // Along axis k: the difference is 2 h_k axis_k up to rounding.
          const axis = b.axes[k] as Vec3;
          expect(maxDiff(d, axis.map((x) => 2 * (b.halfExtents[k] as number) * x))).toBeLessThan(1e-12);
        });
        expect(uses).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
      }),
      { seed: 303, numRuns: 100 },
    );
  });
});

describe('rayFromScreen', () => {
  const W = 800;
  const H = 600;
  const eye: Vec3 = [3, 4, 10];
  const target: Vec3 = [0, 1, 0];
  const view = lookAt(eye, target, [0, 1, 0]);
  const near = 0.1;
  const far = 100;
  const proj = perspective(Math.PI / 3, W / H, near, far);
  const viewProj = mul4(proj, view);
  const inv = invert4(viewProj);

  /** World point → pixel (x right, y down, origin top-left), written independently of the code under test. */
  function toPixel(vp: readonly number[], p: Vec3): [number, number] {
    const [X, Y, , Wc] = apply4(vp, [p[0], p[1], p[2], 1]);
    return [((X / Wc + 1) / 2) * W, ((1 - Y / Wc) / 2) * H];
  }

  it('a WebGL clip-space projection (z in [−1, 1]) with clipSpace: \'webgl\' gives the WebGPU projection\'s rays', () => {
    // The OpenGL perspective of the same frustum (gluPerspective), column-major.
    const f = 1 / Math.tan(Math.PI / 6);
    const gl = [f / (W / H), 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, (2 * far * near) / (near - far), 0];
    const invGl = invert4(mul4(gl, view));
    for (const [px, py] of [[W / 2, H / 2], [0, 0], [W, H], [123.5, 456.25]] as const) {
      const a = rayFromScreen(px, py, W, H, inv);
      const b = rayFromScreen(px, py, W, H, invGl, { clipSpace: 'webgl' });
      expect(maxDiff(a.origin, b.origin)).toBeLessThan(1e-9);
      expect(maxDiff(a.direction, b.direction)).toBeLessThan(1e-12);
      expect(Math.abs(a.maxDistance - b.maxDistance)).toBeLessThan(1e-7);
      // Read as WebGPU clip space, the same matrix starts the ray elsewhere (behind the near plane).
      expect(maxDiff(rayFromScreen(px, py, W, H, invGl).origin, a.origin)).toBeGreaterThan(1e-3);
    }
    const planesGpu = frustumPlanes(viewProj);
    const planesGl = frustumPlanes(mul4(gl, view), { clipSpace: 'webgl' });
    planesGpu.forEach((p, k) => expect(maxDiff(p, planesGl[k]!)).toBeLessThan(1e-9));
    expect(() => rayFromScreen(1, 1, W, H, inv, { clipSpace: 'vulkan' as never })).toThrow(/clipSpace/);
  });

  it('the centre pixel looks along the view direction, from the near plane to the far plane', () => {
    const r = rayFromScreen(W / 2, H / 2, W, H, inv);
    const forward = unit(sub(target, eye));
    expect(maxDiff(r.direction, forward)).toBeLessThan(1e-12);
    expect(Math.abs(norm(sub(r.origin, eye)) - near)).toBeLessThan(1e-9);
    expect(Math.abs(r.maxDistance - (far - near))).toBeLessThan(1e-7);
  });

  it('y points down: the top row of pixels looks above the view direction', () => {
    const top = rayFromScreen(W / 2, 0, W, H, inv);
    const centre = rayFromScreen(W / 2, H / 2, W, H, inv);
    expect(top.direction[1]).toBeGreaterThan(centre.direction[1]);
    const right = rayFromScreen(W, H / 2, W, H, inv);
    // Camera right is (up × back) = +x-ish for this camera.
    expect(right.direction[0]).toBeGreaterThan(centre.direction[0]);
  });

  it('a world point projected to the screen lies on the ray back through that pixel (seed 304)', () => {
    fc.assert(
      fc.property(finite(-0.9, 0.9), finite(-0.9, 0.9), finite(0.5, 90), (sx, sy, depth) => {
        // A point in the frustum: along the view direction at `depth`, offset within the view.
        const forward = unit(sub(target, eye));
        // The camera's right and up axes are the first two rows of the view matrix.
        const right: Vec3 = [view[0] as number, view[4] as number, view[8] as number];
        const up: Vec3 = [view[1] as number, view[5] as number, view[9] as number];
        const halfH = depth * Math.tan(Math.PI / 6);
        const halfW = halfH * (W / H);
        const p: Vec3 = [0, 1, 2].map((i) => (eye[i] as number) + depth * (forward[i] as number) + sx * halfW * (right[i] as number) + sy * halfH * (up[i] as number)) as unknown as Vec3;
        const [px, py] = toPixel(viewProj, p);
        const r = rayFromScreen(px, py, W, H, inv);
        const t = dot(sub(p, r.origin), r.direction);
        const closest: Vec3 = [0, 1, 2].map((i) => (r.origin[i] as number) + t * (r.direction[i] as number)) as unknown as Vec3;
        expect(norm(sub(p, closest))).toBeLessThan(1e-9 * depth);
        expect(t).toBeGreaterThan(0);
        expect(t).toBeLessThanOrEqual(r.maxDistance);
      }),
      { seed: 304, numRuns: 300 },
    );
  });

  it('works for orthographic projections: parallel rays, origins spread on the near plane', () => {
    const vp = mul4(ortho(-4, 4, -3, 3, 1, 50), view);
    const oinv = invert4(vp);
    const a = rayFromScreen(0, 0, W, H, oinv);
    const b = rayFromScreen(W, H, W, H, oinv);
    const forward = unit(sub(target, eye));
    expect(maxDiff(a.direction, forward)).toBeLessThan(1e-12);
    expect(maxDiff(b.direction, forward)).toBeLessThan(1e-12);
    expect(Math.abs(norm(sub(a.origin, b.origin)) - 10)).toBeLessThan(1e-9); // diagonal of 8 × 6
    expect(Math.abs(a.maxDistance - 49)).toBeLessThan(1e-9);
    const p: Vec3 = [1, 2, -3];
    const [px, py] = toPixel(vp, p);
    const r = rayFromScreen(px, py, W, H, oinv);
    const t = dot(sub(p, r.origin), r.direction);
    expect(norm(sub(p, [0, 1, 2].map((i) => (r.origin[i] as number) + t * (r.direction[i] as number)) as unknown as Vec3))).toBeLessThan(1e-9);
  });

  it('supports reversed Z', () => {
    // Reversed Z: z' = 1 − z, i.e. P_rev = [1 0 0 0; 0 1 0 0; 0 0 −1 1; 0 0 0 1] · P.
    const flip = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 1, 1];
    const rinv = invert4(mul4(flip, viewProj));
    const a = rayFromScreen(123, 456, W, H, rinv, { reversedZ: true });
    const b = rayFromScreen(123, 456, W, H, inv);
    expect(maxDiff(a.direction, b.direction)).toBeLessThan(1e-12);
    expect(maxDiff(a.origin, b.origin)).toBeLessThan(1e-9);
    // Without the option the ray would point backwards.
    expect(dot(rayFromScreen(123, 456, W, H, rinv).direction, b.direction)).toBeLessThan(0);
  });

  it('handles an infinite far plane: maxDistance +∞ or astronomically far, direction right', () => {
    // Infinite perspective, WebGPU z ∈ [0, 1]: z_clip = −z_eye − near, w = −z_eye.
    const f = 1 / Math.tan(Math.PI / 6);
    const pinf = [f / (W / H), 0, 0, 0, 0, f, 0, 0, 0, 0, -1, -1, 0, 0, -near, 0];
    // Inverse written out: exact, so the far point has w = 0 exactly.
    const pinv = [(W / H) / f, 0, 0, 0, 0, 1 / f, 0, 0, 0, 0, 0, -1 / near, 0, 0, -1, 1 / near];
    expect(maxDiff(mul4(pinf, pinv), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])).toBeLessThan(1e-15);
    const r = rayFromScreen(W / 2, H / 2, W, H, mul4(invert4(view), pinv));
    expect(r.maxDistance).toBe(Infinity);
    expect(maxDiff(r.direction, unit(sub(target, eye)))).toBeLessThan(1e-12);
  });

  it('validates its inputs', () => {
    expect(caught(() => rayFromScreen(0, 0, 0, H, inv)).field).toBe('width');
    expect(caught(() => rayFromScreen(0, 0, W, -1, inv)).field).toBe('height');
    expect(caught(() => rayFromScreen(NaN, 0, W, H, inv)).field).toBe('x');
    const bad = inv.slice();
    bad[7] = Infinity;
    expect(caught(() => rayFromScreen(0, 0, W, H, bad)).field).toBe('invViewProj[7]');
    expect(caught(() => rayFromScreen(0, 0, W, H, inv.slice(0, 15))).field).toBe('invViewProj');
    expect(caught(() => rayFromScreen(0, 0, W, H, new Array<number>(16).fill(0))).message).toMatch(/w = 0/);
  });
});
