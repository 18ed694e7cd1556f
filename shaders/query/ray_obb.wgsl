// ray_obb.wgsl — ray–OBB slab test; pure functions, no bindings.
// Entry points: none. Functions: rayObbLocal (box frame), rayObb (world).
// CPU twin: src/reference/query/rayObb.ts (same statement order, epsilons and face ids).
// Near-zero local direction components take the parallel branch (abs(d) < EPS_DIR) instead of
// dividing: WGSL implementations may assume no infinities (WebGPU CTS docs/fp_primer.md).

struct RayBoxHit {
  t: f32,
  face: u32,
  flags: u32,
}

fn rayObbLocal(p: vec3f, d: vec3f, h: vec3f, tMax: f32, solid: bool) -> RayBoxHit {
  var tNear = -F32_MAX;
  var tFar = F32_MAX;
  var nearFace = FACE_NONE;
  var farFace = FACE_NONE;
  var parallelMiss = false;
  for (var k = 0u; k < 3u; k++) {
    let pk = p[k];
    let dk = d[k];
    let hk = h[k];
    if (abs(dk) < EPS_DIR) {
      // Parallel to this slab: no crossing; the origin must already lie within it.
      if (hk - abs(pk) < 0.0) {
        parallelMiss = true;
      }
      continue;
    }
    // The -face plane is at -h, the +face plane at +h. Moving along +d enters through -face.
    let tNeg = (-hk - pk) / dk;
    let tPos = (hk - pk) / dk;
    let entersNeg = dk > 0.0;
    let tIn = select(tPos, tNeg, entersNeg);
    let tOut = select(tNeg, tPos, entersNeg);
    if (tIn > tNear) {
      tNear = tIn;
      nearFace = 2u * k + select(0u, 1u, entersNeg);
    }
    if (tOut < tFar) {
      tFar = tOut;
      farFace = 2u * k + select(1u, 0u, entersNeg);
    }
  }
  if (parallelMiss || tNear > tFar || tFar < 0.0) {
    return RayBoxHit(0.0, FACE_NONE, 0u);
  }
  if (tNear >= 0.0) {
    if (tNear > tMax) {
      return RayBoxHit(0.0, FACE_NONE, 0u);
    }
    return RayBoxHit(tNear, nearFace, HIT_FLAG_HIT);
  }
  // Origin inside the box (tNear < 0 <= tFar).
  if (solid) {
    return RayBoxHit(0.0, FACE_NONE, HIT_FLAG_HIT | HIT_FLAG_INSIDE);
  }
  if (tFar > tMax) {
    return RayBoxHit(0.0, FACE_NONE, 0u);
  }
  return RayBoxHit(tFar, farFace, HIT_FLAG_HIT | HIT_FLAG_INSIDE);
}

fn obbW(box: Obb) -> vec3f {
  return cross(box.u, box.v);
}

fn rayObb(origin: vec3f, direction: vec3f, tMax: f32, box: Obb, solid: bool) -> RayBoxHit {
  let w = obbW(box);
  let rel = origin - box.center;
  let p = vec3f(dot(rel, box.u), dot(rel, box.v), dot(rel, w));
  let d = vec3f(dot(direction, box.u), dot(direction, box.v), dot(direction, w));
  return rayObbLocal(p, d, vec3f(box.hx, box.hy, box.hz), tMax, solid);
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
