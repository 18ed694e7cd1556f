// pairs/common.wgsl — what every box–box kernel shares: the parameters, the two box sets, the
// SAT of one pair (boxes of B moved into A's frame by params.offsetB) and its result, and the
// AABB the broad phases use. Linked before pairs/listed.wgsl, pairs/tree.wgsl, pairs/grid.wgsl
// and pairs/narrow.wgsl.
// Bindings (group 0, by name): params: PairParams (uniform); boxesA, boxesB: array<Obb>.
// Workgroup size: override WG (default 64); 2D dispatch grid, invocations numbered
// (wid.x + wid.y × nwg.x) × WG + lid.
// CPU twin: obbObbSat (src/reference/query/obbObbSat.ts) through src/reference/pairs.ts.

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> params: PairParams;
@group(0) @binding(1) var<storage, read> boxesA: array<Obb>;
@group(0) @binding(2) var<storage, read> boxesB: array<Obb>;

fn invocationIndex(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + lid;
}

fn satOf(a: Obb, bIn: Obb) -> SatResult {
  var b = bIn;
  b.center += params.offsetB;
  if ((params.flags & PAIR_OPT_FACE_ONLY) != 0u) {
    return obbObbSatFaces(a, b);
  }
  return obbObbSat(a, b);
}

fn pairResult(s: SatResult) -> PairResult {
  return PairResult(s.gap, s.axis, select(0u, 1u, s.gap <= params.tolerance));
}

// A box's AABB for the pair broad phases (bvhPairs, gridPairs), grown by the SAT tolerance: two
// boxes the SAT calls overlapping (gap <= tolerance) have AABBs no farther apart than that, so
// the grown AABB of one meets the AABB of the other. (Face-only lists are never culled by AABBs:
// the host runs them by brute force, since six axes can call boxes with disjoint AABBs
// overlapping.)
fn broadPhaseAabb(b: Obb) -> Aabb {
  let box = obbAabb(b);
  let grow = vec3f(max(params.tolerance, 0.0));
  return Aabb(box.min - grow, box.max + grow);
}
