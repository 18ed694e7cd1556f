// pairs/listed.wgsl — box–box SAT without a broad phase.
// Entry points:
//   obbPairs     one invocation per listed pair (i in A, j in B) → results[k]
//   obbOneVsMany one invocation per box j of B against box 0 of A → results[j]
//   obbCross     one invocation per box i of A against every box of B (tiled in workgroup
//                memory); appends overlapping (i, j) to pairsOut with an atomic counter that
//                keeps counting past params.capacity. With PAIR_OPT_SELF (A and B the same set)
//                only j > i is tested.
// Bindings: pairs/common.wgsl, and pairs: array<vec2u>; results: array<PairResult>; pairsOut:
//   array<vec2u>; counter: atomic<u32>. Workgroup size WG.
// CPU twins: obbPairs, obbOneVsMany, obbCross / allPairs in src/reference/pairs.ts.

@group(0) @binding(3) var<storage, read> pairs: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> results: array<PairResult>;
@group(0) @binding(5) var<storage, read_write> pairsOut: array<vec2u>;
@group(0) @binding(6) var<storage, read_write> counter: atomic<u32>;

var<workgroup> tileB: array<Obb, BOX_TILE>;

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
