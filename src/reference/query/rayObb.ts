/**
 * Ray–OBB slab test, float64. CPU twin of `shaders/query/ray_obb.wgsl` (`rayObbLocal`, `rayObb`):
 * same statement order, same epsilons, same face ids; the comparator reads the diagnostics
 * (tNear, tFar, entering and exiting faces, local direction) to tell a grazing ray from a bug.
 *
 * Semantics (docs/design.md, "Semantics"): unit direction, so t is a world distance; a hit at exactly maxDistance
 * counts; origin inside → t = 0, inside, no face (solid) or the exit point and exit face
 * (`solid: false`); a near-zero local direction component never divides: the ray hits only if
 * its origin lies within that slab. Ties between slabs keep the first axis (u, then v, then w).
 */
import { EPS_DIR, F32_MAX, FACE_NONE, HIT_FLAG_HIT, HIT_FLAG_INSIDE } from '../../constants.ts';
import { BOX_F64, RAY_F64, type Obb, type RayN, type Vec3 } from '../../core/types.ts';

/** Reusable result of one ray–box test, with the diagnostics the comparator needs. */
export interface RayObbScratch {
  /** HIT_FLAG_HIT | HIT_FLAG_INSIDE bits. */
  flags: number;
  /** Hit distance (valid when flags has HIT_FLAG_HIT). */
  t: number;
  /** Face id of the hit (entered face, exit face for `solid: false` inside), or FACE_NONE. */
  face: number;
  /** Largest slab entry distance, and the face it enters (FACE_NONE when every slab is parallel). */
  tNear: number;
  nearFace: number;
  /** Smallest slab exit distance, and the face it leaves through. */
  tFar: number;
  farFace: number;
  /** Smallest `h − |p|` over parallel slabs (how far inside its slab the origin is); F32_MAX if none. */
  parallelSlack: number;
  /** Local origin and unit direction (box frame). */
  px: number;
  py: number;
  pz: number;
  dx: number;
  dy: number;
  dz: number;
}

/** A fresh scratch record for {@link rayObbLocal} / {@link rayObbAt}. */
export function makeRayObbScratch(): RayObbScratch {
  return {
    flags: 0, t: 0, face: FACE_NONE, tNear: 0, nearFace: FACE_NONE, tFar: 0, farFace: FACE_NONE,
    parallelSlack: F32_MAX, px: 0, py: 0, pz: 0, dx: 0, dy: 0, dz: 0,
  };
}

function component(x: number, y: number, z: number, k: number): number {
  return k === 0 ? x : k === 1 ? y : z;
}

/**
 * Slab test in the box's own frame: local origin p, local unit direction d, half extents h.
 * Writes the result into `out` and returns whether the ray hits. `epsDir` is the parallel
 * threshold (EPS_DIR, as the kernels use; the comparator tries others, since an implementation
 * may choose its own).
 *
 * @example
 * const s = makeRayObbScratch();
 * rayObbLocal(-5, 0, 0, 1, 0, 0, 1, 1, 1, Infinity, true, s); // true, s.t === 4, s.face === FACE_NEG_U
 */
export function rayObbLocal(
  px: number, py: number, pz: number,
  dx: number, dy: number, dz: number,
  hx: number, hy: number, hz: number,
  tMax: number, solid: boolean, out: RayObbScratch, epsDir = EPS_DIR,
): boolean {
  out.px = px; out.py = py; out.pz = pz;
  out.dx = dx; out.dy = dy; out.dz = dz;
  out.flags = 0;
  out.t = 0;
  out.face = FACE_NONE;
  out.parallelSlack = F32_MAX;
  let tNear = -F32_MAX;
  let tFar = F32_MAX;
  let nearFace = FACE_NONE;
  let farFace = FACE_NONE;
  let parallelMiss = false;
  for (let k = 0; k < 3; k++) {
    const p = component(px, py, pz, k);
    const d = component(dx, dy, dz, k);
    const h = component(hx, hy, hz, k);
    if (Math.abs(d) < epsDir) {
      // Parallel to this slab: no crossing; the origin must already lie within it.
      const slack = h - Math.abs(p);
      if (slack < out.parallelSlack) {
        out.parallelSlack = slack;
      }
      if (slack < 0) {
        parallelMiss = true;
      }
      continue;
    }
    // The -face plane is at -h, the +face plane at +h. Moving along +d enters through -face.
    const tNeg = (-h - p) / d;
    const tPos = (h - p) / d;
    const entersNeg = d > 0;
    const tIn = entersNeg ? tNeg : tPos;
    const tOut = entersNeg ? tPos : tNeg;
    if (tIn > tNear) {
      tNear = tIn;
      nearFace = 2 * k + (entersNeg ? 1 : 0);
    }
    if (tOut < tFar) {
      tFar = tOut;
      farFace = 2 * k + (entersNeg ? 0 : 1);
    }
  }
  out.tNear = tNear;
  out.nearFace = nearFace;
  out.tFar = tFar;
  out.farFace = farFace;
  if (parallelMiss || tNear > tFar || tFar < 0) {
    return false;
  }
  if (tNear >= 0) {
    if (tNear > tMax) {
      return false;
    }
    out.flags = HIT_FLAG_HIT;
    out.t = tNear;
    out.face = nearFace;
    return true;
  }
  // Origin inside the box (tNear < 0 <= tFar).
  if (solid) {
    out.flags = HIT_FLAG_HIT | HIT_FLAG_INSIDE;
    out.t = 0;
    out.face = FACE_NONE;
    return true;
  }
  if (tFar > tMax) {
    return false;
  }
  out.flags = HIT_FLAG_HIT | HIT_FLAG_INSIDE;
  out.t = tFar;
  out.face = farFace;
  return true;
}

/**
 * Ray `ri` of `rays` (RAY_F64 records) against box `bi` of `boxes` (BOX_F64 records): moves the
 * ray into the box frame and runs {@link rayObbLocal}. No allocation.
 */
export function rayObbAt(
  boxes: Float64Array, bi: number, rays: Float64Array, ri: number,
  solid: boolean, out: RayObbScratch, epsDir = EPS_DIR,
): boolean {
  const b = bi * BOX_F64.STRIDE;
  const r = ri * RAY_F64.STRIDE;
  const rx = rays[r + RAY_F64.ORIGIN]! - boxes[b + BOX_F64.CENTER]!;
  const ry = rays[r + RAY_F64.ORIGIN + 1]! - boxes[b + BOX_F64.CENTER + 1]!;
  const rz = rays[r + RAY_F64.ORIGIN + 2]! - boxes[b + BOX_F64.CENTER + 2]!;
  const dx = rays[r + RAY_F64.DIR]!;
  const dy = rays[r + RAY_F64.DIR + 1]!;
  const dz = rays[r + RAY_F64.DIR + 2]!;
  const u = b + BOX_F64.U;
  const v = b + BOX_F64.V;
  const w = b + BOX_F64.W;
  const ux = boxes[u]!, uy = boxes[u + 1]!, uz = boxes[u + 2]!;
  const vx = boxes[v]!, vy = boxes[v + 1]!, vz = boxes[v + 2]!;
  const wx = boxes[w]!, wy = boxes[w + 1]!, wz = boxes[w + 2]!;
  return rayObbLocal(
    rx * ux + ry * uy + rz * uz,
    rx * vx + ry * vy + rz * vz,
    rx * wx + ry * wy + rz * wz,
    dx * ux + dy * uy + dz * uz,
    dx * vx + dy * vy + dz * vz,
    dx * wx + dy * wy + dz * wz,
    boxes[b + BOX_F64.HALF]!, boxes[b + BOX_F64.HALF + 1]!, boxes[b + BOX_F64.HALF + 2]!,
    rays[r + RAY_F64.MAX]!, solid, out, epsDir,
  );
}

/** Result of {@link rayObb} for one ray and one box. */
export interface RayHit {
  readonly hit: boolean;
  readonly t: number;
  readonly inside: boolean;
  /** Face id (2 × axis + 1 if the outward normal is −axis), or FACE_NONE. */
  readonly face: number;
  /** World hit point (present on a hit). */
  readonly point?: Vec3;
  /** Outward unit normal of the face, world space (absent for a miss or a solid inside hit). */
  readonly normal?: Vec3;
}

/** Outward world normal of face `face` of `box` (FACE_NONE → undefined). */
export function faceNormal(box: Obb, face: number): Vec3 | undefined {
  if (face === FACE_NONE || face < 0 || face > 5) {
    return undefined;
  }
  const a = box.axes[face >> 1]!;
  const s = face & 1 ? -1 : 1;
  return [s * a[0], s * a[1], s * a[2]];
}

/**
 * One ray against one box, float64. `ray` must be canonical (unit direction; see `toRay`), `box`
 * canonical (see `toObb`).
 *
 * @example
 * const unitBox = { center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] } as const;
 * const h = rayObb(toRay({ origin: [-10, 0, 0], direction: [1, 0, 0] }), toObb(unitBox));
 * // { hit: true, t: 9, inside: false, face: FACE_NEG_U, point: [-1, 0, 0], normal: [-1, 0, 0] }
 */
export function rayObb(ray: RayN, box: Obb, options: { solid?: boolean } = {}): RayHit {
  const [u, v, w] = box.axes;
  const rx = ray.origin[0] - box.center[0];
  const ry = ray.origin[1] - box.center[1];
  const rz = ray.origin[2] - box.center[2];
  const [dx, dy, dz] = ray.direction;
  const s = makeRayObbScratch();
  const hit = rayObbLocal(
    rx * u[0] + ry * u[1] + rz * u[2],
    rx * v[0] + ry * v[1] + rz * v[2],
    rx * w[0] + ry * w[1] + rz * w[2],
    dx * u[0] + dy * u[1] + dz * u[2],
    dx * v[0] + dy * v[1] + dz * v[2],
    dx * w[0] + dy * w[1] + dz * w[2],
    box.halfExtents[0], box.halfExtents[1], box.halfExtents[2],
    ray.maxDistance, options.solid ?? true, s,
  );
  if (!hit) {
    return { hit: false, t: Infinity, inside: false, face: FACE_NONE };
  }
  const point: Vec3 = [
    ray.origin[0] + s.t * dx, ray.origin[1] + s.t * dy, ray.origin[2] + s.t * dz,
  ];
  const normal = faceNormal(box, s.face);
  const inside = (s.flags & HIT_FLAG_INSIDE) !== 0;
  return normal
    ? { hit: true, t: s.t, inside, face: s.face, point, normal }
    : { hit: true, t: s.t, inside, face: s.face, point };
}

/**
 * Conservative early-out before the slab test: true when the ray certainly misses the bounding
 * sphere (centre c, radius r) of a box, or meets it only beyond `tLimit`. CPU twin of
 * `raySphereCull` in shaders/query/ray_obb.wgsl, which the batch kernels run before each slab
 * test; its margins exceed float32 error many times over, so it never skips a box the slab test
 * could hit (test/cpu/sphereCull.test.ts checks exactly that).
 *
 * @example
 * raySphereCull([0, 0, 0], [1, 0, 0], [5, 3, 0], 1, Infinity) // true: passes 3 from the centre
 */
export function raySphereCull(origin: Vec3, direction: Vec3, c: Vec3, r: number, tLimit: number): boolean {
  const rx = c[0] - origin[0], ry = c[1] - origin[1], rz = c[2] - origin[2];
  const tc = rx * direction[0] + ry * direction[1] + rz * direction[2];
  const px = rx - tc * direction[0], py = ry - tc * direction[1], pz = rz - tc * direction[2];
  const rr = r * 1.001;
  if (px * px + py * py + pz * pz > rr * rr + 1e-6 * (rx * rx + ry * ry + rz * rz)) {
    return true;
  }
  const slack = rr + 1e-5 * Math.abs(tc);
  return tc + slack < 0 || tc - slack > tLimit;
}
