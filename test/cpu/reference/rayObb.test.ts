/**
 * The float64 ray–OBB slab test (src/reference/query/rayObb.ts): hand-checked cases, then
 * seeded properties against an independent slab test, rigid motions, surface nudges, rays in a
 * face plane and origins on the surface. Cases within 1e-9 (relative) of a decision boundary are
 * skipped by the properties that compare two computations; the exact-arithmetic properties
 * (d, e) build their inputs so that the boundary itself is hit exactly.
 */
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EPS_DIR, FACE_NEG_U, FACE_NEG_V, FACE_NEG_W, FACE_NONE, FACE_POS_U, FACE_POS_V,
} from '../../../src/constants.ts';
import { toObb, toRay } from '../../../src/core/canonical.ts';
import type { Obb, RayN, Vec3 } from '../../../src/core/types.ts';
import { rayObb } from '../../../src/reference/query/rayObb.ts';

// ---------------------------------------------------------------------------------------------
// Helpers written for this test (independent of the reference)

const I3: readonly [Vec3, Vec3, Vec3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
const unitBox = toObb({ center: [0, 0, 0], halfExtents: [1, 1, 1], axes: I3 });

const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const mul = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
const len = (a: Vec3): number => Math.hypot(a[0], a[1], a[2]);
const maxAbs = (a: readonly number[]): number => Math.max(...a.map(Math.abs));

function expectVec(actual: Vec3 | undefined, expected: Vec3, tol = 1e-12): void {
  expect(actual).toBeDefined();
  const a = actual as Vec3;
  for (let k = 0; k < 3; k++) {
    expect(Math.abs(a[k]! - expected[k]!), `component ${k}: ${a[k]} vs ${expected[k]}`).toBeLessThanOrEqual(tol);
  }
}

/** Point-in-OBB: every local coordinate within its half extent plus `slack`. */
function pointInObb(box: Obb, q: Vec3, slack: number): boolean {
  const r = sub(q, box.center);
  return box.axes.every((a, k) => Math.abs(dot(r, a)) <= box.halfExtents[k]! + slack);
}

/** Local coordinates of a world point and a world direction in a box frame. */
function toLocal(box: Obb, o: Vec3, d: Vec3): { p: Vec3; d: Vec3 } {
  const r = sub(o, box.center);
  const [u, v, w] = box.axes;
  return { p: [dot(r, u), dot(r, v), dot(r, w)], d: [dot(d, u), dot(d, v), dot(d, w)] };
}

interface Slab {
  readonly hit: boolean;
  readonly t: number;
  /** Entering axis (-1 when every slab is parallel). */
  readonly enterAxis: number;
  /** Largest and second-largest entry distance, smallest exit distance. */
  readonly tEnter: number;
  readonly tEnter2: number;
  readonly tExit: number;
  /** Smallest |o_k − plane| over parallel slabs (Infinity if none). */
  readonly parallelMargin: number;
  readonly originInside: boolean;
}

/**
 * An axis-aligned slab test written from the textbook (Kay–Kajiya): box [lo, hi], origin o,
 * direction d with every component either exactly 0 or well away from it.
 */
function slabAabb(o: Vec3, d: Vec3, lo: Vec3, hi: Vec3, tMax: number): Slab {
  let tEnter = -Infinity, tEnter2 = -Infinity, tExit = Infinity, enterAxis = -1;
  let parallelMargin = Infinity;
  let parallelOut = false;
  for (let k = 0; k < 3; k++) {
    if (d[k] === 0) {
      parallelMargin = Math.min(parallelMargin, Math.abs(o[k]! - lo[k]!), Math.abs(hi[k]! - o[k]!));
      if (o[k]! < lo[k]! || o[k]! > hi[k]!) {
        parallelOut = true;
      }
      continue;
    }
    const t1 = (lo[k]! - o[k]!) / d[k]!;
    const t2 = (hi[k]! - o[k]!) / d[k]!;
    const near = Math.min(t1, t2), far = Math.max(t1, t2);
    if (near > tEnter) {
      tEnter2 = tEnter;
      tEnter = near;
      enterAxis = k;
    } else if (near > tEnter2) {
      tEnter2 = near;
    }
    tExit = Math.min(tExit, far);
  }
  const crosses = !parallelOut && tEnter <= tExit && tExit >= 0;
  const originInside = crosses && tEnter < 0;
  const hit = crosses && (originInside || tEnter <= tMax);
  return { hit, t: hit ? Math.max(tEnter, 0) : Infinity, enterAxis, tEnter, tEnter2, tExit, parallelMargin, originInside };
}

/** The slab test in a box's local frame. */
function slabLocal(box: Obb, ray: RayN): Slab & { d: Vec3 } {
  const { p, d } = toLocal(box, ray.origin, ray.direction);
  const h = box.halfExtents;
  // Components the reference treats as parallel are exactly parallel here.
  const dd: Vec3 = [Math.abs(d[0]) < EPS_DIR ? 0 : d[0], Math.abs(d[1]) < EPS_DIR ? 0 : d[1], Math.abs(d[2]) < EPS_DIR ? 0 : d[2]];
  return { ...slabAabb(p, dd, [-h[0], -h[1], -h[2]], h, ray.maxDistance), d };
}

/** True when a slab result is at least `eps` (t units) away from every decision boundary. */
function robust(s: Slab, tMax: number, eps: number, parallelEps: number): boolean {
  if (s.parallelMargin < parallelEps) {
    return false;
  }
  if (s.enterAxis < 0) {
    return true;
  }
  const away = (x: number): boolean => !(Math.abs(x) < eps);
  return away(s.tExit - s.tEnter) && away(s.tExit) && away(s.tEnter) && (tMax === Infinity || away(s.tEnter - tMax));
}

/**
 * A real uniform in [min, max] (fc.double is uniform over float encodings, so most of its
 * values are denormal-tiny: useless for geometry), with the end points now and then.
 */
const finite = (min: number, max: number): Arbitrary<number> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    { weight: 15, arbitrary: fc.integer({ min: 0, max: 2 ** 30 }).map((i) => min + ((max - min) * i) / 2 ** 30) },
  );
const vec3 = (min: number, max: number): Arbitrary<Vec3> => fc.tuple(finite(min, max), finite(min, max), finite(min, max));
const quat = fc
  .tuple(finite(-1, 1), finite(-1, 1), finite(-1, 1), finite(-1, 1))
  .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 1e-2);

function rotate(q: readonly [number, number, number, number], v: Vec3): Vec3 {
  const n = Math.hypot(...q);
  const [x, y, z, w] = [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
  // v' = v + 2w (q × v) + 2 q × (q × v)
  const c1: Vec3 = [y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]];
  const c2: Vec3 = [y * c1[2] - z * c1[1], z * c1[0] - x * c1[2], x * c1[1] - y * c1[0]];
  return [v[0] + 2 * (w * c1[0] + c2[0]), v[1] + 2 * (w * c1[1] + c2[1]), v[2] + 2 * (w * c1[2] + c2[2])];
}

/** A ray from `origin` aimed at `target` (a random point near the box) — hits are common. */
const aimedRay = (box: Obb, origin: Vec3, s: Vec3, maxDistance: number): RayN | undefined => {
  const target = box.axes.reduce<Vec3>((acc, a, k) => add(acc, mul(a, s[k]! * box.halfExtents[k]!)), box.center);
  const d = sub(target, origin);
  return len(d) > 1e-6 ? toRay({ origin, direction: d, maxDistance }) : undefined;
};

// ---------------------------------------------------------------------------------------------
// Hand-checked cases

describe('rayObb, hand-checked', () => {
  it('unit box, ray from -x: t = 9 through FACE_NEG_U at (-1, 0, 0), normal (-1, 0, 0)', () => {
    const h = rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0, 0] }), unitBox);
    expect(h.hit).toBe(true);
    expect(h.t).toBe(9);
    expect(h.inside).toBe(false);
    expect(h.face).toBe(FACE_NEG_U);
    expectVec(h.point, [-1, 0, 0], 0);
    expectVec(h.normal, [-1, 0, 0], 0);
  });

  it('a ray pointing away from the box, or passing beside it, misses', () => {
    const away = rayObb(toRay({ origin: [-10, 0, 0], direction: [-1, 0, 0] }), unitBox);
    expect(away.hit).toBe(false);
    expect(away.face).toBe(FACE_NONE);
    expect(away.normal).toBeUndefined();
    expect(rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0.2, 0] }), unitBox).hit).toBe(false);
  });

  it('direction is normalised: t is a world distance', () => {
    const h = rayObb(toRay({ origin: [-10, 0, 0], direction: [1e-3, 0, 0] }), unitBox);
    expect(h.t).toBe(9);
  });

  describe('box rotated 45° about z (a diamond in xy)', () => {
    const s = Math.sin(Math.PI / 8), c = Math.cos(Math.PI / 8);
    const box = toObb({ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, s, c] });
    const r2 = Math.SQRT1_2;

    it('axes are u = (√½, √½, 0), v = (−√½, √½, 0)', () => {
      expectVec(box.axes[0], [r2, r2, 0]);
      expectVec(box.axes[1], [-r2, r2, 0]);
    });

    it('a ray along u enters the centre of the −u face at t = 9', () => {
      const h = rayObb(toRay({ origin: [-10 * r2, -10 * r2, 0], direction: [1, 1, 0] }), box);
      expect(h.hit).toBe(true);
      expect(h.t).toBeCloseTo(9, 12);
      expect(h.face).toBe(FACE_NEG_U);
      expectVec(h.point, [-r2, -r2, 0]);
      expectVec(h.normal, [-r2, -r2, 0]);
    });

    it('a ray along +x at y = 0.5 enters the +v face at x = 0.5 − √2', () => {
      const h = rayObb(toRay({ origin: [-10, 0.5, 0], direction: [1, 0, 0] }), box);
      expect(h.hit).toBe(true);
      expect(h.t).toBeCloseTo(10 + 0.5 - Math.SQRT2, 12);
      expect(h.face).toBe(FACE_POS_V);
      expectVec(h.point, [0.5 - Math.SQRT2, 0.5, 0]);
      expectVec(h.normal, [-r2, r2, 0]);
    });

    it('a ray along +x at y = 1.5 passes above the diamond (|y| > √2 is outside, 1.5 > √2)', () => {
      expect(rayObb(toRay({ origin: [-10, 1.5, 0], direction: [1, 0, 0] }), box).hit).toBe(false);
    });
  });

  it('maxDistance exactly t counts as a hit; slightly less misses', () => {
    const at = rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 9 }), unitBox);
    expect(at.hit).toBe(true);
    expect(at.t).toBe(9);
    const below = 9 - 2 ** -49; // the float64 just below 9
    expect(below).toBeLessThan(9);
    expect(rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: below }), unitBox).hit).toBe(false);
    expect(rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 8.999 }), unitBox).hit).toBe(false);
    expect(rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 0 }), unitBox).hit).toBe(false);
  });

  it('origin inside a solid box: t = 0, inside, no face and no normal', () => {
    const h = rayObb(toRay({ origin: [0.25, -0.5, 0.1], direction: [1, 0, 0], maxDistance: 0 }), unitBox);
    expect(h.hit).toBe(true);
    expect(h.t).toBe(0);
    expect(h.inside).toBe(true);
    expect(h.face).toBe(FACE_NONE);
    expect(h.normal).toBeUndefined();
    expectVec(h.point, [0.25, -0.5, 0.1], 0);
  });

  it('solid: false returns the exit point and exit face of an inside origin', () => {
    const ray = toRay({ origin: [0.25, 0, 0], direction: [1, 0, 0] });
    const h = rayObb(ray, unitBox, { solid: false });
    expect(h.hit).toBe(true);
    expect(h.inside).toBe(true);
    expect(h.t).toBe(0.75);
    expect(h.face).toBe(FACE_POS_U);
    expectVec(h.point, [1, 0, 0], 0);
    expectVec(h.normal, [1, 0, 0], 0);
    // Exit along −y through the −v face.
    const down = rayObb(toRay({ origin: [0.25, 0.5, 0], direction: [0, -1, 0] }), unitBox, { solid: false });
    expect(down.t).toBe(1.5);
    expect(down.face).toBe(FACE_NEG_V);
    expectVec(down.normal, [0, -1, 0], 0);
    // The exit lies beyond maxDistance: no hit.
    expect(rayObb(toRay({ origin: [0.25, 0, 0], direction: [1, 0, 0], maxDistance: 0.5 }), unitBox, { solid: false }).hit).toBe(false);
    // Outside origins are unaffected by solid: false.
    const outside = rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0, 0] }), unitBox, { solid: false });
    expect(outside.t).toBe(9);
    expect(outside.inside).toBe(false);
    expect(outside.face).toBe(FACE_NEG_U);
  });

  it('ties between slabs keep the first axis (u, then v, then w), entering and exiting', () => {
    // Through the edge x = -1, y = -1 into the box: both slabs are entered at the same t.
    const edge = rayObb(toRay({ origin: [-2, -2, 0], direction: [1, 1, 0] }), unitBox);
    expect(edge.hit).toBe(true);
    expect(edge.t).toBeCloseTo(Math.SQRT2, 14);
    expect(edge.face).toBe(FACE_NEG_U);
    // The same edge entered along −x, −y… from the other side: +u, not +v.
    expect(rayObb(toRay({ origin: [2, 2, 0], direction: [-1, -1, 0] }), unitBox).face).toBe(FACE_POS_U);
    // A corner: u wins over v and w.
    expect(rayObb(toRay({ origin: [2, 2, 2], direction: [-1, -1, -1] }), unitBox).face).toBe(FACE_POS_U);
    // v before w.
    expect(rayObb(toRay({ origin: [0, -2, -2], direction: [0, 1, 1] }), unitBox).face).toBe(FACE_NEG_V);
    // Leaving through an edge from the centre (solid: false): the exit face is +u, not +v.
    const exit = rayObb(toRay({ origin: [0, 0, 0], direction: [1, 1, 0] }), unitBox, { solid: false });
    expect(exit.t).toBeCloseTo(Math.SQRT2, 14);
    expect(exit.face).toBe(FACE_POS_U);
    expect(rayObb(toRay({ origin: [0, 0, 0], direction: [0, -1, -1] }), unitBox, { solid: false }).face).toBe(FACE_NEG_V);
  });

  it('solid: false with the exit exactly at maxDistance counts; just below misses', () => {
    const ray = (maxDistance: number): RayN => toRay({ origin: [0.25, 0, 0], direction: [1, 0, 0], maxDistance });
    const at = rayObb(ray(0.75), unitBox, { solid: false });
    expect(at.hit).toBe(true);
    expect(at.t).toBe(0.75);
    expect(rayObb(ray(0.75 - 2 ** -53), unitBox, { solid: false }).hit).toBe(false);
  });

  it('parallel ray inside the slab hits, outside misses, exactly on the plane |p| = h hits', () => {
    const cast = (y: number): ReturnType<typeof rayObb> =>
      rayObb(toRay({ origin: [-10, y, 0], direction: [1, 0, 0] }), unitBox);
    expect(cast(0.5).hit).toBe(true);
    expect(cast(0.5).t).toBe(9);
    expect(cast(1.5).hit).toBe(false);
    expect(cast(-1.5).hit).toBe(false);
    for (const y of [1, -1]) {
      const h = cast(y);
      expect(h.hit, `y = ${y}`).toBe(true);
      expect(h.t).toBe(9);
      expect(h.face).toBe(FACE_NEG_U);
    }
    // Just outside the plane (next float64 above 1) misses.
    expect(cast(1 + 2 ** -52).hit).toBe(false);
    expect(cast(-1 - 2 ** -52).hit).toBe(false);
    // Parallel in two slabs at once: along the edge y = 1, z = -1 still hits (closed box).
    expect(rayObb(toRay({ origin: [-10, 1, -1], direction: [1, 0, 0] }), unitBox).hit).toBe(true);
    // A tiny but non-zero component below EPS_DIR is treated as parallel, without dividing.
    const tiny = rayObb(toRay({ origin: [-10, 1, 0], direction: [1, 1e-12, 0] }), unitBox);
    expect(tiny.hit).toBe(true);
    expect(tiny.t).toBeCloseTo(9, 12);
    expect(Number.isFinite(tiny.t)).toBe(true);
  });

  it('a flat box (zero extent) is hit from the front and from behind', () => {
    const flat = toObb({ center: [2, 0, 0], halfExtents: [0, 1, 1], axes: I3 });
    const front = rayObb(toRay({ origin: [-10, 0.5, 0.5], direction: [1, 0, 0] }), flat);
    expect(front.hit).toBe(true);
    expect(front.t).toBe(12);
    expect(front.inside).toBe(false);
    expect(front.face).toBe(FACE_NEG_U);
    expectVec(front.normal, [-1, 0, 0], 0);
    expectVec(front.point, [2, 0.5, 0.5], 0);
    const back = rayObb(toRay({ origin: [10, 0.5, 0.5], direction: [-1, 0, 0] }), flat);
    expect(back.t).toBe(8);
    expect(back.face).toBe(FACE_POS_U);
    // A flat box hit obliquely, and missed beside it.
    const oblique = rayObb(toRay({ origin: [0, 0, -5], direction: [2, 0, 5] }), flat);
    expect(oblique.hit).toBe(true);
    expect(oblique.face).toBe(FACE_NEG_U);
    expectVec(oblique.point, [2, 0, 0], 1e-12);
    expect(rayObb(toRay({ origin: [-10, 1.5, 0], direction: [1, 0, 0] }), flat).hit).toBe(false);
    // Flat along z, hit from below through the −w plane.
    const sheet = toObb({ center: [0, 0, 3], halfExtents: [1, 1, 0], axes: I3 });
    const up = rayObb(toRay({ origin: [0.5, 0.5, 0], direction: [0, 0, 1] }), sheet);
    expect(up.t).toBe(3);
    expect(up.face).toBe(FACE_NEG_W);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

/** Direction with each component exactly 0 or at least 1e-6 in magnitude (after `zero`). */
const directionArb = (zero: number): Arbitrary<Vec3> =>
  vec3(-1, 1).map((d): Vec3 => [zero === 0 ? 0 : d[0], zero === 1 ? 0 : d[1], zero === 2 ? 0 : d[2]]);

describe('rayObb properties', () => {
  it('(a) identity axes: equals an independent AABB slab test (seed 301)', () => {
    let hits = 0, misses = 0, parallel = 0;
    fc.assert(
      fc.property(
        vec3(-100, 100), vec3(0, 10), vec3(-100, 100), vec3(-1.5, 1.5),
        fc.oneof({ weight: 3, arbitrary: fc.constantFrom(0, 1, 2) }, { weight: 6, arbitrary: fc.constant(3) }, { weight: 1, arbitrary: fc.constant(4) }),
        fc.oneof({ weight: 2, arbitrary: fc.constant(Infinity) }, { weight: 1, arbitrary: finite(0, 300) }), directionArb(3),
        (c, h, oRaw, s, zero, maxDistance, free) => {
          const box = toObb({ center: c, halfExtents: h, axes: I3 });
          // Aimed rays most of the time; a free direction otherwise. `zero` < 3 zeroes a component
          // and puts the origin in or near that slab, so parallel rays hit as often as they miss.
          const target = add(c, [s[0] * h[0], s[1] * h[1], s[2] * h[2]]);
          const o: Vec3 = [zero === 0 ? target[0] : oRaw[0], zero === 1 ? target[1] : oRaw[1], zero === 2 ? target[2] : oRaw[2]];
          const aimed = sub(target, o);
          const raw = zero === 4 ? free : aimed;
          const dir: Vec3 = [zero === 0 ? 0 : raw[0], zero === 1 ? 0 : raw[1], zero === 2 ? 0 : raw[2]];
          fc.pre(len(dir) > 1e-6);
          const ray = toRay({ origin: o, direction: dir, maxDistance });
          const d = ray.direction;
          fc.pre(d.every((x) => x === 0 || Math.abs(x) >= 1e-6));
          const lo = sub(c, h), hi = add(c, h);
          const ind = slabAabb(o, d, lo, hi, maxDistance);
          const dmin = Math.min(...d.filter((x) => x !== 0).map(Math.abs));
          const scale = (1 + maxAbs([...o]) + maxAbs([...c]) + maxAbs([...h])) / dmin;
          fc.pre(robust(ind, maxDistance, 1e-9 * scale, 1e-9 * scale * dmin));
          const ref = rayObb(ray, box);
          expect(ref.hit).toBe(ind.hit);
          if (!ind.hit) {
            misses++;
            return;
          }
          hits++;
          if (d.some((x) => x === 0)) {
            parallel++;
          }
          expect(ref.inside).toBe(ind.originInside);
          expect(Math.abs(ref.t - ind.t)).toBeLessThanOrEqual(1e-12 * (scale + Math.abs(ind.t)));
          if (!ind.originInside && ind.tEnter - ind.tEnter2 > 1e-9 * scale) {
            const k = ind.enterAxis;
            expect(ref.face).toBe(2 * k + (d[k]! > 0 ? 1 : 0));
          }
        },
      ),
      // endOnFailure: report the first counterexample; shrinking through the many
      // preconditions of this property can take minutes.
      { seed: 301, endOnFailure: true, numRuns: 3000 },
    );
    // The generator exercises both outcomes and the parallel branch.
    console.log(`rayObb (a): ${hits} hits (${parallel} with a parallel slab), ${misses} misses`);
    expect(hits).toBeGreaterThan(300);
    expect(misses).toBeGreaterThan(300);
    expect(parallel).toBeGreaterThan(30);
  });

  it('(b) a rigid motion of ray and box together leaves hit and t unchanged (seed 302)', () => {
    let hits = 0;
    fc.assert(
      fc.property(
        vec3(-100, 100), vec3(0, 10), quat, vec3(-100, 100), vec3(-1.5, 1.5),
        fc.oneof(fc.constant(Infinity), finite(0, 300)), fc.boolean(), quat, vec3(-1000, 1000),
        (c, h, q, o, s, maxDistance, solid, qm, tr) => {
          const box = toObb({ center: c, halfExtents: h, rotation: q });
          const ray = aimedRay(box, o, s, maxDistance);
          fc.pre(ray !== undefined);
          const r = ray as RayN;
          const local = slabLocal(box, r);
          fc.pre(local.d.every((x) => Math.abs(x) >= 1e-6));
          const S = 1 + len(o) + len(c) + len(h) + len(tr);
          fc.pre(robust(local, maxDistance, 1e-9 * S / 1e-3, 1e-9 * S));
          // Grazing entries (|d_k| < 1e-3) have an ill-conditioned crossing point: skip them.
          fc.pre(local.enterAxis < 0 || Math.abs(local.d[local.enterAxis]!) >= 1e-3);
          const moved = toObb({
            center: add(rotate(qm, box.center), tr), halfExtents: box.halfExtents,
            axes: [rotate(qm, box.axes[0]), rotate(qm, box.axes[1]), rotate(qm, box.axes[2])],
          });
          const movedRay = toRay({ origin: add(rotate(qm, r.origin), tr), direction: rotate(qm, r.direction), maxDistance });
          const a = rayObb(r, box, { solid });
          const b = rayObb(movedRay, moved, { solid });
          expect(b.hit).toBe(a.hit);
          if (!a.hit) {
            return;
          }
          hits++;
          expect(b.inside).toBe(a.inside);
          expect(Math.abs(b.t - a.t)).toBeLessThanOrEqual(1e-9 * (S + a.t));
          if (!a.inside && local.tEnter - local.tEnter2 > 1e-9 * S / 1e-3) {
            expect(b.face).toBe(a.face);
            if (a.normal) {
              expectVec(b.normal, rotate(qm, a.normal), 1e-9);
            }
          }
        },
      ),
      // endOnFailure: report the first counterexample; shrinking through the many
      // preconditions of this property can take minutes.
      { seed: 302, endOnFailure: true, numRuns: 2000 },
    );
    expect(hits).toBeGreaterThan(200);
  });

  it('(c) a hit point nudged 1e-6 along the outward normal is outside, −1e-6 inside (seed 303)', () => {
    let checked = 0;
    fc.assert(
      fc.property(
        vec3(-100, 100), vec3(0.01, 10), quat, vec3(-100, 100), vec3(-1.2, 1.2),
        (c, h, q, o, s) => {
          const box = toObb({ center: c, halfExtents: h, rotation: q });
          const ray = aimedRay(box, o, s, Infinity);
          fc.pre(ray !== undefined);
          const r = ray as RayN;
          const hit = rayObb(r, box);
          fc.pre(hit.hit && !hit.inside);
          const local = slabLocal(box, r);
          // Grazing entries have an ill-conditioned hit point: skip them.
          fc.pre(local.enterAxis >= 0 && Math.abs(local.d[local.enterAxis]!) >= 1e-3);
          const p = hit.point as Vec3;
          const n = hit.normal as Vec3;
          expect(len(n)).toBeCloseTo(1, 12);
          // The normal is one of the box's outward face normals and faces the incoming ray.
          expect(dot(n, r.direction)).toBeLessThan(0);
          // The hit point lies on the surface…
          expect(pointInObb(box, p, 1e-9)).toBe(true);
          // …and the outward normal leaves it.
          expect(pointInObb(box, add(p, mul(n, 1e-6)), 1e-9)).toBe(false);
          expect(pointInObb(box, add(p, mul(n, -1e-6)), 1e-9)).toBe(true);
          checked++;
        },
      ),
      { seed: 303, numRuns: 2000 },
    );
    expect(checked).toBeGreaterThan(500);
  });

  /** Dyadic numbers (multiples of 1/64 below 2^10): sums and differences are exact. */
  const dyadic = (min: number, max: number): Arbitrary<number> => fc.integer({ min: min * 64, max: max * 64 }).map((x) => x / 64);
  /** Signed permutations of the identity: exact zeros in every frame change. */
  const signedPermutation: Arbitrary<[Vec3, Vec3, Vec3]> = fc
    .tuple(fc.constantFrom([0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]), fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()))
    .map(([perm, signs]) => perm.map((m, k) => {
      const a: [number, number, number] = [0, 0, 0];
      a[m] = signs[k] ? -1 : 1;
      return a as Vec3;
    }) as [Vec3, Vec3, Vec3]);
  const localToWorld = (box: Obb, x: Vec3): Vec3 =>
    box.axes.reduce<Vec3>((acc, a, k) => add(acc, mul(a, x[k]!)), box.center);

  it('(d) rays in a face plane (local d_k exactly 0) hit iff |p_k| ≤ h_k (seed 304)', () => {
    let hits = 0, misses = 0, onPlane = 0;
    fc.assert(
      fc.property(
        vec3(-50, 50).map((v) => v.map((x) => Math.round(x * 64) / 64) as unknown as Vec3), dyadic(0, 10), dyadic(1 / 64, 10), dyadic(1 / 64, 10),
        signedPermutation, fc.integer({ min: 0, max: 2 }),
        fc.oneof(fc.constantFrom('+h', '-h', '+h+', '-h-'), dyadic(-25, 25)),
        fc.oneof(fc.constantFrom(0, Math.PI / 2, Math.PI, 0.25), finite(0, 2 * Math.PI)),
        vec3(-0.9, 0.9), finite(30, 100), fc.boolean(),
        (c, hk, hi, hj, axes, k, pkChoice, angle, frac, dist, solid) => {
          const i = (k + 1) % 3, j = (k + 2) % 3;
          const h: [number, number, number] = [0, 0, 0];
          h[k] = hk; h[i] = hi; h[j] = hj;
          const box = toObb({ center: c, halfExtents: h, axes });
          const pk = pkChoice === '+h' ? hk : pkChoice === '-h' ? -hk : pkChoice === '+h+' ? hk + 1 / 64 : pkChoice === '-h-' ? -hk - 1 / 64 : pkChoice;
          // In-plane direction (local components i, j) and a target well inside the face's 2D extent.
          const dl: [number, number, number] = [0, 0, 0];
          dl[i] = Math.cos(angle); dl[j] = Math.sin(angle);
          const target: [number, number, number] = [0, 0, 0];
          target[k] = pk; target[i] = frac[0] * hi; target[j] = frac[1] * hj;
          const originLocal = sub(target, mul(dl, dist));
          const origin = localToWorld(box, originLocal);
          const direction = box.axes.reduce<Vec3>((acc, a, m) => add(acc, mul(a, dl[m]!)), [0, 0, 0]);
          const ray = toRay({ origin, direction });
          // The construction is exact: local d_k is zero and local p_k is pk.
          const loc = toLocal(box, ray.origin, ray.direction);
          expect(loc.d[k] === 0).toBe(true); // ±0
          expect(loc.p[k] === pk, `local p_k ${loc.p[k]} vs ${pk}`).toBe(true);
          const res = rayObb(ray, box, { solid });
          const expected = Math.abs(pk) <= hk;
          expect(res.hit, `p_k = ${pk}, h_k = ${hk}`).toBe(expected);
          if (Math.abs(pk) === hk) {
            onPlane++;
          }
          if (!expected) {
            misses++;
            expect(res.face).toBe(FACE_NONE);
            return;
          }
          hits++;
          expect(res.inside).toBe(false);
          expect(res.t).toBeGreaterThan(0);
          // The hit stays in the plane and enters through an in-plane face (never face k).
          expect(toLocal(box, res.point as Vec3, ray.direction).p[k] === pk).toBe(true);
          expect(res.face >> 1).not.toBe(k);
        },
      ),
      { seed: 304, numRuns: 3000 },
    );
    expect(hits).toBeGreaterThan(300);
    expect(misses).toBeGreaterThan(300);
    expect(onPlane).toBeGreaterThan(100);
  });

  it('(e) origins on the surface: t = 0, entering or inside by the sign of d·n (seed 305)', () => {
    const seen = { inward: 0, outward: 0, tangent: 0 };
    fc.assert(
      fc.property(
        vec3(-50, 50).map((v) => v.map((x) => Math.round(x * 64) / 64) as unknown as Vec3),
        fc.tuple(dyadic(1 / 32, 10), dyadic(1 / 32, 10), dyadic(1 / 32, 10)), signedPermutation,
        fc.integer({ min: 0, max: 2 }), fc.boolean(), vec3(-0.99, 0.99), vec3(-1, 1), fc.boolean(), fc.boolean(),
        (c, h, axes, k, positive, frac, dRaw, tangent, solid) => {
          const box = toObb({ center: c, halfExtents: h, axes });
          // Local origin on face k (exactly ±h_k), strictly inside the other two slabs (dyadic).
          const pl = [0, 1, 2].map((m) => (m === k ? (positive ? h[k]! : -h[k]!) : Math.trunc(frac[m]! * h[m]! * 64) / 64)) as unknown as Vec3;
          const dl: Vec3 = [tangent && k === 0 ? 0 : dRaw[0], tangent && k === 1 ? 0 : dRaw[1], tangent && k === 2 ? 0 : dRaw[2]];
          fc.pre(len(dl) > 1e-3 && (dl[k] === 0 || Math.abs(dl[k]!) / len(dl) >= EPS_DIR * 10));
          const origin = localToWorld(box, pl);
          const ray = toRay({ origin, direction: box.axes.reduce<Vec3>((acc, a, m) => add(acc, mul(a, dl[m]!)), [0, 0, 0]) });
          const loc = toLocal(box, ray.origin, ray.direction);
          expect(loc.p[k] === pl[k]).toBe(true);
          const face = 2 * k + (positive ? 0 : 1);
          const outwardness = positive ? loc.d[k]! : -loc.d[k]!;
          const res = rayObb(ray, box, { solid });
          expect(res.hit).toBe(true);
          if (outwardness === 0) {
            seen.tangent++;
            expect(res.inside).toBe(true);
            if (solid) {
              expect(res.t).toBe(0);
            } else {
              // Slides along the face plane to an exit through another face.
              expect(res.t).toBeGreaterThan(0);
              expect(res.face >> 1).not.toBe(k);
            }
            return;
          }
          expect(res.t === 0).toBe(true); // ±0
          expectVec(res.point, ray.origin, 0);
          if (outwardness < 0) {
            seen.inward++;
            // Entering through the face it sits on, at t = 0.
            expect(res.inside).toBe(false);
            expect(res.face).toBe(face);
            const axis = box.axes[k] as Vec3;
            expectVec(res.normal, positive ? axis : mul(axis, -1), 0);
          } else {
            seen.outward++;
            expect(res.inside).toBe(true);
            if (solid) {
              expect(res.face).toBe(FACE_NONE);
              expect(res.normal).toBeUndefined();
            } else {
              // Leaving through that same face at t = 0.
              expect(res.face).toBe(face);
            }
          }
        },
      ),
      { seed: 305, numRuns: 3000 },
    );
    expect(seen.inward).toBeGreaterThan(300);
    expect(seen.outward).toBeGreaterThan(300);
    expect(seen.tangent).toBeGreaterThan(100);
  });
});
