/**
 * Outside implementations, written as an engineer would write them from the semantics alone
 * (docs/design.md, "Semantics"): float32 arithmetic throughout (Math.fround after every
 * operation), reading a scene file's JSON and writing a result file's JSON, sharing no code with
 * the library. One is correct; some make other valid choices (another parallel threshold, slab
 * planes in world space, no skipping of near-parallel edge axes, the last of equal gaps); the
 * mutants each carry one classic bug.
 * test/cpu/mutants.test.ts hands them all to the judge.
 */

const f = Math.fround;
type V = [number, number, number];

/** The scene file's JSON, as an outside implementation reads it. */
export interface SceneJson {
  readonly boxes: readonly { center: number[]; halfExtents: number[]; axes?: number[][]; rotation?: number[] }[];
  readonly rays?: readonly { origin: number[]; direction: number[]; maxDistance?: number | null }[];
  readonly pairs?: readonly (readonly [number, number])[];
  readonly allPairs?: boolean;
}

/** How an implementation casts rays (default: correct). */
export interface RayImpl {
  /** Parallel threshold on |local direction| (default 1e-9); 0: exact zero only; 'none': no parallel branch at all (divides by zero). */
  readonly parallel?: number | 'none';
  /** Slab planes in world space: o·a against c·a ± h (another order of the same operations). */
  readonly worldPlanes?: boolean;
  /** Bug: ties broken to the larger index. */
  readonly tieToLarger?: boolean;
  /** Bug: a flat box always reports its −axis face. */
  readonly flatFaceNegative?: boolean;
  /** Bug: the direction used as given, not normalised (t in units of |direction|). */
  readonly unnormalised?: boolean;
  /** Bug: the face id off by one. */
  readonly faceOffByOne?: boolean;
  /**
   * Bug: t left in the box's own frame: the ray taken into the unit-box frame (local coordinates
   * divided by the half extents, as an inverse instance matrix does), its direction normalised
   * there, and that frame's t reported.
   */
  readonly boxFrameT?: boolean;
}

/** How an implementation tests box pairs (default: correct). */
export interface SatImpl {
  /** Edge-cross axes with |L|² below this are skipped (default 1e-6; 0: only exact zeros). */
  readonly edgeSkip?: number;
  /** The last of equal gaps instead of the first. */
  readonly lastTie?: boolean;
  /** Bug: the six face axes only. */
  readonly sixAxis?: boolean;
  /** Bug: T·L of an edge axis with the wrong sign in one term (Gottschalk's formula mistyped). */
  readonly reversedEdgeSign?: boolean;
  /** Bug: every 1,000th overlapping pair dropped from the all-pairs list. */
  readonly dropEvery?: number;
}

interface Box {
  readonly c: V;
  readonly h: V;
  readonly a: [V, V, V];
}

const sub = (x: V, y: V): V => [f(x[0] - y[0]), f(x[1] - y[1]), f(x[2] - y[2])];
const dot = (x: V, y: V): number => f(f(f(x[0] * y[0]) + f(x[1] * y[1])) + f(x[2] * y[2]));
const cross = (x: V, y: V): V => [f(f(x[1] * y[2]) - f(x[2] * y[1])), f(f(x[2] * y[0]) - f(x[0] * y[2])), f(f(x[0] * y[1]) - f(x[1] * y[0]))];
const v32 = (x: readonly number[]): V => [f(x[0]!), f(x[1]!), f(x[2]!)];

function loadBox(b: SceneJson['boxes'][number]): Box {
  if (b.axes) {
    return { c: v32(b.center), h: v32(b.halfExtents), a: [v32(b.axes[0]!), v32(b.axes[1]!), v32(b.axes[2]!)] };
  }
  const [x, y, z, w] = (b.rotation ?? [0, 0, 0, 1]).map(f) as [number, number, number, number];
  const n = f(Math.sqrt(f(f(f(x * x) + f(y * y)) + f(f(z * z) + f(w * w)))));
  const [qx, qy, qz, qw] = [f(x / n), f(y / n), f(z / n), f(w / n)];
  const m = (p: number, q: number): number => f(2 * f(p * q));
  return {
    c: v32(b.center), h: v32(b.halfExtents),
    a: [
      [f(1 - f(m(qy, qy) + m(qz, qz))), f(m(qx, qy) + m(qz, qw)), f(m(qx, qz) - m(qy, qw))],
      [f(m(qx, qy) - m(qz, qw)), f(1 - f(m(qx, qx) + m(qz, qz))), f(m(qy, qz) + m(qx, qw))],
      [f(m(qx, qz) + m(qy, qw)), f(m(qy, qz) - m(qx, qw)), f(1 - f(m(qx, qx) + m(qy, qy)))],
    ],
  };
}

interface Hit {
  readonly t: number;
  readonly face: number;
  readonly inside: boolean;
}

function slab(o: V, d: V, tMax: number, box: Box, impl: RayImpl): Hit | undefined {
  const p: number[] = [];
  const dl: number[] = [];
  for (let k = 0; k < 3; k++) {
    const a = box.a[k]!;
    p.push(impl.worldPlanes ? f(dot(o, a) - dot(box.c, a)) : dot(sub(o, box.c), a));
    dl.push(dot(d, a));
  }
  const h = [...box.h];
  if (impl.boxFrameT && h.every((x) => x > 0)) {
    for (let k = 0; k < 3; k++) {
      p[k] = f(p[k]! / h[k]!);
      dl[k] = f(dl[k]! / h[k]!);
      h[k] = 1;
    }
    const len = f(Math.sqrt(dot(dl as V, dl as V)));
    for (let k = 0; k < 3; k++) {
      dl[k] = f(dl[k]! / len);
    }
  }
  const eps = impl.parallel ?? 1e-9;
  let tNear = -Infinity, tFar = Infinity, nearFace = -1, farFace = -1;
  for (let k = 0; k < 3; k++) {
    const dk = dl[k]!, pk = p[k]!, hk = h[k]!;
    if (eps === 'none') {
      // The classic branch-free test: 1/0 = ±Infinity, and 0 · Infinity = NaN in a face plane.
      const inv = f(1 / dk);
      const t1 = f(f(-hk - pk) * inv), t2 = f(f(hk - pk) * inv);
      const tin = Math.min(t1, t2), tout = Math.max(t1, t2);
      if (tin > tNear) {
        nearFace = 2 * k + (inv > 0 ? 1 : 0);
      }
      if (tout < tFar) {
        farFace = 2 * k + (inv > 0 ? 0 : 1);
      }
      tNear = Math.max(tNear, tin);
      tFar = Math.min(tFar, tout);
      continue;
    }
    if (eps === 0 ? dk === 0 : Math.abs(dk) < eps) {
      if (Math.abs(pk) > hk) {
        return undefined;
      }
      continue;
    }
    const t1 = f(f(-hk - pk) / dk), t2 = f(f(hk - pk) / dk);
    const entersNeg = dk > 0;
    const tin = entersNeg ? t1 : t2, tout = entersNeg ? t2 : t1;
    if (tin > tNear) {
      tNear = tin;
      nearFace = 2 * k + (entersNeg ? 1 : 0);
    }
    if (tout < tFar) {
      tFar = tout;
      farFace = 2 * k + (entersNeg ? 0 : 1);
    }
  }
  if (!(tNear <= tFar) || tFar < 0) {
    return undefined;
  }
  void farFace;
  if (tNear >= 0) {
    if (tNear > tMax) {
      return undefined;
    }
    let face = nearFace;
    if (impl.flatFaceNegative && box.h[face >> 1] === 0) {
      face = 2 * (face >> 1) + 1;
    }
    if (impl.faceOffByOne) {
      face = (face + 1) % 6;
    }
    return { t: tNear, face, inside: false };
  }
  return { t: 0, face: -1, inside: true };
}

/**
 * Closest hits of every ray of `scene`, as a result file's `rays`, by brute force over the boxes
 * (a float64 bounding-sphere test skips boxes a ray passes far from: conservative by a wide margin).
 */
export function castRays(scene: SceneJson, impl: RayImpl = {}): unknown[] {
  const boxes = scene.boxes.map(loadBox);
  const radius = boxes.map((b) => Math.hypot(...b.h) * 1.01 + 1e-6);
  return (scene.rays ?? []).map((ray) => {
    const o = v32(ray.origin);
    let d = v32(ray.direction);
    if (!impl.unnormalised) {
      const len = f(Math.sqrt(dot(d, d)));
      d = [f(d[0] / len), f(d[1] / len), f(d[2] / len)];
    }
    const tMax = ray.maxDistance === null || ray.maxDistance === undefined ? Infinity : f(ray.maxDistance);
    const dn = Math.hypot(...d);
    let best: (Hit & { box: number }) | undefined;
    boxes.forEach((box, b) => {
      const rel = [box.c[0] - o[0], box.c[1] - o[1], box.c[2] - o[2]];
      const along = (rel[0]! * d[0] + rel[1]! * d[1] + rel[2]! * d[2]) / dn;
      const perp = Math.hypot(rel[0]! - along * d[0] / dn, rel[1]! - along * d[1] / dn, rel[2]! - along * d[2] / dn);
      if (perp > radius[b]! + 1e-4 * Math.hypot(rel[0]!, rel[1]!, rel[2]!) || along < -radius[b]! - 1) {
        return;
      }
      const hit = slab(o, d, tMax, box, impl);
      if (hit && (!best || hit.t < best.t || (impl.tieToLarger && hit.t === best.t))) {
        best = { ...hit, box: b };
      }
    });
    if (!best) {
      return { hit: false };
    }
    const box = boxes[best.box]!;
    const point = [o[0] + best.t * d[0], o[1] + best.t * d[1], o[2] + best.t * d[2]];
    if (best.face < 0) {
      return { hit: true, box: best.box, t: best.t, point, inside: best.inside };
    }
    const a = box.a[best.face >> 1]!;
    const s = best.face & 1 ? -1 : 1;
    return { hit: true, box: best.box, t: best.t, point, normal: [s * a[0], s * a[1], s * a[2]], inside: best.inside };
  });
}

const AXIS_NAMES = ['A0', 'A1', 'A2', 'B0', 'B1', 'B2', 'A0xB0', 'A0xB1', 'A0xB2', 'A1xB0', 'A1xB1', 'A1xB2', 'A2xB0', 'A2xB1', 'A2xB2'];

/** SAT of two boxes: the largest gap over the tested axes and its axis id. */
function sat(A: Box, B: Box, impl: SatImpl): { gap: number; axis: number } {
  const T = sub(B.c, A.c);
  const ta: V = [dot(T, A.a[0]), dot(T, A.a[1]), dot(T, A.a[2])];
  const R = A.a.map((ai) => B.a.map((bj) => dot(ai, bj)));
  let best = -Infinity, axis = 0;
  const skip = impl.edgeSkip ?? 1e-6;
  for (let id = 0; id < (impl.sixAxis ? 6 : 15); id++) {
    let L: V;
    if (id < 3) {
      L = A.a[id]!;
    } else if (id < 6) {
      L = B.a[id - 3]!;
    } else {
      const i = Math.floor((id - 6) / 3), j = (id - 6) % 3;
      L = cross(A.a[i]!, B.a[j]!);
    }
    const lenSq = dot(L, L);
    if (id >= 6 && (skip === 0 ? lenSq === 0 : lenSq < skip)) {
      continue;
    }
    let dist = Math.abs(dot(T, L));
    if (impl.reversedEdgeSign && id >= 6) {
      const i = Math.floor((id - 6) / 3), j = (id - 6) % 3;
      const i1 = (i + 1) % 3, i2 = (i + 2) % 3;
      dist = Math.abs(f(f(ta[i2]! * R[i1]![j]!) + f(ta[i1]! * R[i2]![j]!)));
    }
    const rA = f(f(f(A.h[0] * Math.abs(dot(A.a[0], L))) + f(A.h[1] * Math.abs(dot(A.a[1], L)))) + f(A.h[2] * Math.abs(dot(A.a[2], L))));
    const rB = f(f(f(B.h[0] * Math.abs(dot(B.a[0], L))) + f(B.h[1] * Math.abs(dot(B.a[1], L)))) + f(B.h[2] * Math.abs(dot(B.a[2], L))));
    const gap = f(f(f(dist - rA) - rB) / f(Math.sqrt(lenSq)));
    if (gap > best || (impl.lastTie && gap === best)) {
      best = gap;
      axis = id;
    }
  }
  return { gap: best, axis };
}

const TOLERANCE = f(1e-6);

/** A result file's `pairs` for the scene's listed pairs. */
export function testPairs(scene: SceneJson, impl: SatImpl = {}): unknown[] {
  const boxes = scene.boxes.map(loadBox);
  return (scene.pairs ?? []).map(([i, j]) => {
    const r = sat(boxes[i]!, boxes[j]!, impl);
    return { overlap: r.gap <= TOLERANCE, gap: r.gap, axis: AXIS_NAMES[r.axis] };
  });
}

/** A result file's `allPairs`: a sweep over padded float64 bounds, then the float32 SAT. */
export function listAllPairs(scene: SceneJson, impl: SatImpl = {}): [number, number][] {
  const boxes = scene.boxes.map(loadBox);
  const lo = boxes.map((b) => {
    const e = [0, 1, 2].map((k) => b.h[0] * Math.abs(b.a[0][k]!) + b.h[1] * Math.abs(b.a[1][k]!) + b.h[2] * Math.abs(b.a[2][k]!));
    return [0, 1, 2].map((k) => [b.c[k]! - e[k]! * 1.001 - 1e-3, b.c[k]! + e[k]! * 1.001 + 1e-3] as [number, number]);
  });
  const order = boxes.map((_, k) => k).sort((x, y) => lo[x]![0]![0] - lo[y]![0]![0]);
  const out: [number, number][] = [];
  for (let a = 0; a < order.length; a++) {
    const i = order[a]!;
    for (let b = a + 1; b < order.length && lo[order[b]!]![0]![0] <= lo[i]![0]![1]; b++) {
      const j = order[b]!;
      if (lo[i]![1]![1] < lo[j]![1]![0] || lo[j]![1]![1] < lo[i]![1]![0] || lo[i]![2]![1] < lo[j]![2]![0] || lo[j]![2]![1] < lo[i]![2]![0]) {
        continue;
      }
      const [p, q] = i < j ? [i, j] : [j, i];
      if (sat(boxes[p]!, boxes[q]!, impl).gap <= TOLERANCE) {
        out.push([p, q]);
      }
    }
  }
  out.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const every = impl.dropEvery;
  return every ? out.filter((_, k) => k % every !== every - 1) : out;
}

/** A whole result file for `scene` (its rays, pairs and all pairs, whichever it asks for). */
export function resultFile(scene: SceneJson, rays: RayImpl = {}, pairs: SatImpl = {}): Record<string, unknown> {
  return {
    backend: 'outsider', adapter: 'float32 in JavaScript',
    ...(scene.rays ? { rays: castRays(scene, rays) } : {}),
    ...(scene.pairs ? { pairs: testPairs(scene, pairs) } : {}),
    ...(scene.allPairs ? { allPairs: listAllPairs(scene, pairs) } : {}),
  };
}
