// aabb.wgsl — axis-aligned bounds of an oriented box, padded; pure functions, no bindings.
// The pad (BVH_AABB_PAD relative to the box's extent and position) makes the float32 AABB
// contain every point the float32 slab test or SAT could count as inside the box, so the BVH
// never culls what the brute-force path would find. CPU twin: obbToAabb in src/core/helpers.ts
// (unpadded); the padding is checked by the BVH tests against the brute-force results.

struct Aabb {
  min: vec3f,
  max: vec3f,
}

fn obbAabb(b: Obb) -> Aabb {
  let w = cross(b.u, b.v);
  let e = abs(b.u) * b.hx + abs(b.v) * b.hy + abs(w) * b.hz;
  let pad = BVH_AABB_PAD * (e + abs(b.center)) + vec3f(1e-30);
  return Aabb(b.center - e - pad, b.center + e + pad);
}

fn aabbOverlap(a: Aabb, bMin: vec3f, bMax: vec3f) -> bool {
  return all(a.min <= bMax) && all(bMin <= a.max);
}
