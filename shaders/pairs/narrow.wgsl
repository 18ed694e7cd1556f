// pairs/narrow.wgsl — the SAT on every candidate a broad phase listed (pairs/candidates.wgsl).
// The SAT runs over the compacted list, not inside the broad phases' loops: there, an invocation
// that needs the SAT holds up the others of its SIMD group or warp for the whole test (measured on
// SwiftShader: 15x slower than the same tests listed).
// Entry points: pairsNarrowArgs (one invocation: the indirect dispatch arguments for
//   min(count, list length) candidates), pairsNarrow (one invocation per candidate; appends the
//   overlapping ones to pairsOut as obbCross does, with their contacts under PAIR_OPT_CONTACTS).
// Bindings: pairs/common.wgsl, pairs/candidates.wgsl, and pairsOut: array<vec2u>; counter:
//   atomic<u32>; contacts: array<PairResult>; narrowArgs: array<u32, 3>. Workgroup size WG.
// CPU twins: with a broad phase, allPairs / allPairsSweep (src/reference/accel.ts);
//   pairsNarrowArgs: dispatchGrid (src/runtime/pipelines.ts).

@group(0) @binding(5) var<storage, read_write> pairsOut: array<vec2u>;
@group(0) @binding(6) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(9) var<storage, read_write> contacts: array<PairResult>;
@group(0) @binding(17) var<storage, read_write> narrowArgs: array<u32, 3>;

@compute @workgroup_size(WG)
fn pairsNarrowArgs(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x != 0u) {
    return;
  }
  // Workgroups for min(count, list length) invocations, x at most 65,535 (as dispatchGrid).
  let groups = (min(atomicLoad(&candidateCount), params.pairCount) + WG - 1u) / WG;
  let x = min(groups, 65535u);
  narrowArgs[0] = x;
  narrowArgs[1] = select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u);
  narrowArgs[2] = 1u;
}

// The 15-axis SAT on each candidate (i in A, j in B); appends the overlapping ones to pairsOut
// (with their contacts when asked) as obbCross does.
@compute @workgroup_size(WG)
fn pairsNarrow(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = invocationIndex(lid, wid, nwg);
  if (k >= min(atomicLoad(&candidateCount), params.pairCount)) {
    return;
  }
  let p = candidates[k];
  let res = pairResult(satOf(boxesA[p.x], boxesB[p.y]));
  if (res.overlap == 1u) {
    let slot = atomicAdd(&counter, 1u);
    if (slot < params.capacity) {
      pairsOut[slot] = p;
      if ((params.flags & PAIR_OPT_CONTACTS) != 0u) {
        contacts[slot] = res;
      }
    }
  }
}
