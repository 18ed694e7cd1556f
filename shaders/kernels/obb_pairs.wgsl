// obb_pairs.wgsl — box–box SAT over pairs and sets.
// Entry points:
//   obbPairs     one invocation per listed pair (i in A, j in B) → results[k]
//   obbOneVsMany one invocation per box j of B against box 0 of A → results[j]
//   obbCross     one invocation per box i of A against every box of B (tiled in workgroup
//                memory); appends overlapping (i, j) to pairsOut with an atomic counter. With
//                PAIR_OPT_SELF (A and B the same set) only j > i is tested.
// Bindings (group 0): 0 params: PairParams (uniform); 1 boxesA, 2 boxesB: array<Obb>; 3 pairs:
//   array<vec2u>; 4 results: array<PairResult>; 5 pairsOut: array<vec2u>; 6 counter: atomic<u32>.
// Workgroup size: override WG (default 64); 2D dispatch grid as in ray_obb_batch.wgsl.
// CPU twins: obbPairs, obbOneVsMany, obbCross / allPairs in src/reference/pairs.ts.

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> params: PairParams;
@group(0) @binding(1) var<storage, read> boxesA: array<Obb>;
@group(0) @binding(2) var<storage, read> boxesB: array<Obb>;
@group(0) @binding(3) var<storage, read> pairs: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> results: array<PairResult>;
@group(0) @binding(5) var<storage, read_write> pairsOut: array<vec2u>;
@group(0) @binding(6) var<storage, read_write> counter: atomic<u32>;

var<workgroup> tileB: array<Obb, BOX_TILE>;

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

@compute @workgroup_size(WG)
fn obbPairs(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = invocationIndex(lid, wid, nwg);
  if (k >= params.pairCount) {
    return;
  }
  let p = pairs[k];
  results[k] = pairResult(satOf(boxesA[p.x], boxesB[p.y]));
}

@compute @workgroup_size(WG)
fn obbOneVsMany(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let j = invocationIndex(lid, wid, nwg);
  if (j >= params.countB) {
    return;
  }
  results[j] = pairResult(satOf(boxesA[0], boxesB[j]));
}

@compute @workgroup_size(WG)
fn obbCross(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = invocationIndex(lid, wid, nwg);
  let live = i < params.countA;
  var a: Obb;
  if (live) {
    a = boxesA[i];
  }
  let selfPairs = (params.flags & PAIR_OPT_SELF) != 0u;
  for (var base = 0u; base < params.countB; base += BOX_TILE) {
    workgroupBarrier();
    for (var k = lid; k < BOX_TILE; k += WG) {
      if (base + k < params.countB) {
        tileB[k] = boxesB[base + k];
      }
    }
    workgroupBarrier();
    if (live) {
      let n = min(BOX_TILE, params.countB - base);
      for (var k = 0u; k < n; k++) {
        let j = base + k;
        if (selfPairs && j <= i) {
          continue;
        }
        if (pairResult(satOf(a, tileB[k])).overlap == 1u) {
          let slot = atomicAdd(&counter, 1u);
          if (slot < params.capacity) {
            pairsOut[slot] = vec2u(i, j);
          }
        }
      }
    }
  }
}
