// ray_obb.wgsl — ray–OBB slab test; pure functions, no bindings.
// Entry points: none. Functions: rayObbLocal (box frame) and rayObbLocalT over slabs, rayObb (world), raySphereCull,
// obbFaceNormal.
// CPU twin: src/reference/query/rayObb.ts (same statement order, epsilons and face ids).
// Near-zero local direction components take the parallel branch (abs(d) < EPS_DIR) instead of
// dividing: WGSL implementations may assume no infinities (the WebGPU CTS fp_primer).

struct RayBoxHit {
  t: f32,
  face: u32,
  flags: u32,
}

// Whether a slab the ray runs parallel to (|d| < EPS_DIR on its axis) excludes the origin: such a
// slab is never crossed, so the origin must already lie within it.
fn slabParallelMiss(p: vec3f, d: vec3f, h: vec3f) -> bool {
  return any((abs(d) < vec3f(EPS_DIR)) & (h - abs(p) < vec3f(0.0)));
}

// Where the ray enters (tIn) and leaves (tOut) each slab; a parallel slab gets tIn = -F32_MAX and
// tOut = F32_MAX (divided by 1 there: no infinity, which WGSL does not guarantee). The -face plane
// is at -h, the +face plane at +h; moving along +d enters through the -face.
struct Slabs {
  tIn: vec3f,
  tOut: vec3f,
}

fn slabs(p: vec3f, d: vec3f, h: vec3f) -> Slabs {
  let parallel = abs(d) < vec3f(EPS_DIR);
  let dSafe = select(d, vec3f(1.0), parallel);
  let tNeg = (-h - p) / dSafe;
  let tPos = (h - p) / dSafe;
  let entersNeg = d > vec3f(0.0);
  return Slabs(
    select(select(tPos, tNeg, entersNeg), vec3f(-F32_MAX), parallel),
    select(select(tNeg, tPos, entersNeg), vec3f(F32_MAX), parallel),
  );
}

// The slab loop of the reference (k = 0, 1, 2), written with vector operations: a parallel
// slab gets tIn = -F32_MAX and tOut = F32_MAX, so the strict comparisons below skip it exactly
// as the reference's `continue` does, and the first axis attaining the extreme wins ties. The
// reference's early returns become one `miss` and selects, with the same comparisons: on a CPU
// adapter (SwiftShader) both sides of every branch run anyway, and each costs more than a select.
fn rayObbLocal(p: vec3f, d: vec3f, h: vec3f, tMax: f32, solid: bool) -> RayBoxHit {
  let s = slabs(p, d, h);
  let tIn = s.tIn;
  let tOut = s.tOut;
  let entersNeg = d > vec3f(0.0);
  let inFace = vec3u(0u, 2u, 4u) + select(vec3u(0u), vec3u(1u), entersNeg);
  let outFace = vec3u(0u, 2u, 4u) + select(vec3u(1u), vec3u(0u), entersNeg);
  var tNear = -F32_MAX;
  var nearFace = FACE_NONE;
  var tFar = F32_MAX;
  var farFace = FACE_NONE;
  var b = tIn.x > tNear;
  tNear = select(tNear, tIn.x, b);
  nearFace = select(nearFace, inFace.x, b);
  b = tIn.y > tNear;
  tNear = select(tNear, tIn.y, b);
  nearFace = select(nearFace, inFace.y, b);
  b = tIn.z > tNear;
  tNear = select(tNear, tIn.z, b);
  nearFace = select(nearFace, inFace.z, b);
  b = tOut.x < tFar;
  tFar = select(tFar, tOut.x, b);
  farFace = select(farFace, outFace.x, b);
  b = tOut.y < tFar;
  tFar = select(tFar, tOut.y, b);
  farFace = select(farFace, outFace.y, b);
  b = tOut.z < tFar;
  tFar = select(tFar, tOut.z, b);
  farFace = select(farFace, outFace.z, b);
  let front = tNear >= 0.0;
  let miss = slabParallelMiss(p, d, h) | (tNear > tFar) | (tFar < 0.0) | (front & (tNear > tMax)) | (!front & !solid & (tFar > tMax));
  let t = select(select(tFar, 0.0, solid), tNear, front);
  let face = select(select(farFace, FACE_NONE, solid), nearFace, front);
  let flags = select(HIT_FLAG_HIT | HIT_FLAG_INSIDE, HIT_FLAG_HIT, front);
  return RayBoxHit(select(t, 0.0, miss), select(face, FACE_NONE, miss), select(flags, 0u, miss));
}

// The t of rayObbLocal(p, d, h, tMax, true), by the same operations in the same order, without
// the faces: the hit's distance, or -1 for none. For the LiDAR raster method, which reports no
// faces and runs the test once per ray and box (equal to the BVH method's answer bit for bit).
fn rayObbLocalT(p: vec3f, d: vec3f, h: vec3f, tMax: f32) -> f32 {
  if (slabParallelMiss(p, d, h)) {
    return -1.0;
  }
  let s = slabs(p, d, h);
  let tIn = s.tIn;
  let tOut = s.tOut;
  // rayObbLocal's strict comparisons (not max/min, which may pick either zero of ±0).
  var tNear = select(-F32_MAX, tIn.x, tIn.x > -F32_MAX);
  tNear = select(tNear, tIn.y, tIn.y > tNear);
  tNear = select(tNear, tIn.z, tIn.z > tNear);
  var tFar = select(F32_MAX, tOut.x, tOut.x < F32_MAX);
  tFar = select(tFar, tOut.y, tOut.y < tFar);
  tFar = select(tFar, tOut.z, tOut.z < tFar);
  if (tNear > tFar || tFar < 0.0) {
    return -1.0;
  }
  if (tNear >= 0.0) {
    return select(tNear, -1.0, tNear > tMax);
  }
  // Origin inside the box: solid, t = 0.
  return 0.0;
}

// Conservative early-out before the slab test: true when the ray certainly misses the box's
// bounding sphere (centre c, radius r), or meets it only beyond tLimit. The margins (1e-3 of the
// radius, 1e-6 of |c − o|², 1e-5 of the distance) exceed the float32 error of these few
// operations many times over, so a box the slab test could hit is never skipped; the results
// are those of the slab test alone. CPU twin: raySphereCull in src/reference/query/rayObb.ts.
fn raySphereCull(origin: vec3f, direction: vec3f, c: vec3f, r: f32, tLimit: f32) -> bool {
  let rel = c - origin;
  let tc = dot(rel, direction);
  let perp = rel - tc * direction;
  let rr = r * 1.001;
  if (dot(perp, perp) > rr * rr + 1e-6 * dot(rel, rel)) {
    return true;
  }
  let slack = rr + 1e-5 * abs(tc);
  return tc + slack < 0.0 || tc - slack > tLimit;
}

fn obbW(box: Obb) -> vec3f {
  return cross(box.u, box.v);
}

fn rayObb(origin: vec3f, direction: vec3f, tMax: f32, box: Obb, solid: bool) -> RayBoxHit {
  return rayObbAxes(origin, direction, tMax, box.center, box.u, box.v, obbW(box), vec3f(box.hx, box.hy, box.hz), solid);
}

// rayObb with the third axis already known (kernels precompute w = u × v once per box).
fn rayObbAxes(origin: vec3f, direction: vec3f, tMax: f32, c: vec3f, u: vec3f, v: vec3f, w: vec3f, h: vec3f, solid: bool) -> RayBoxHit {
  let rel = origin - c;
  let p = vec3f(dot(rel, u), dot(rel, v), dot(rel, w));
  let d = vec3f(dot(direction, u), dot(direction, v), dot(direction, w));
  return rayObbLocal(p, d, h, tMax, solid);
}

// Outward world normal of a face id (zero for FACE_NONE).
fn obbFaceNormal(box: Obb, face: u32) -> vec3f {
  if (face >= 6u) {
    return vec3f(0.0);
  }
  let axis = face >> 1u;
  var n = box.u;
  if (axis == 1u) {
    n = box.v;
  } else if (axis == 2u) {
    n = obbW(box);
  }
  return select(n, -n, (face & 1u) == 1u);
}
