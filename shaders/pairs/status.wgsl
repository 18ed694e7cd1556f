// pairs/status.wgsl — the state of a pair list recorded into the caller's encoder
// (PairQueries.encodeAllPairs), written on the GPU after the narrow phase so that the caller's
// next pass reads how many pairs are valid and whether any were lost, with no readback.
// Entry point: pairsListStatus (one invocation): listStatus from the narrow phase's counter, the
//   broad phase's candidate count and the tree walk's stack overflows, against the capacities in
//   params (capacity: the list; pairCount: the candidate list).
// Bindings: pairs/common.wgsl (params), pairs/candidates.wgsl (candidateCount), and counter:
//   atomic<u32> (as pairs/narrow.wgsl); overflowCount: atomic<u32> (as pairs/tree.wgsl);
//   listStatus: PairListStatus. Workgroup size 1.
// CPU twin: pairListStatus (src/reference/pairs.ts).

@group(0) @binding(6) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(8) var<storage, read_write> overflowCount: atomic<u32>;
@group(0) @binding(18) var<storage, read_write> listStatus: PairListStatus;

@compute @workgroup_size(1)
fn pairsListStatus() {
  let found = atomicLoad(&counter);
  let candidates = atomicLoad(&candidateCount);
  // The kernels never write past either capacity (narrow.wgsl, candidates.wgsl): the list holds
  // the first `capacity` pairs appended, and a candidate past the list was never tested.
  let count = min(found, params.capacity);
  var overflow = 0u;
  if (found > params.capacity) {
    overflow |= PAIR_LIST_OVERFLOW_LIST;
  }
  if (candidates > params.pairCount) {
    overflow |= PAIR_LIST_OVERFLOW_CANDIDATES;
  }
  if (atomicLoad(&overflowCount) > 0u) {
    overflow |= PAIR_LIST_OVERFLOW_STACK;
  }
  // Workgroups for `count` invocations, x at most 65,535 (as dispatchGrid).
  let groups = (count + PAIR_LIST_DISPATCH_WG - 1u) / PAIR_LIST_DISPATCH_WG;
  let x = min(groups, 65535u);
  let y = select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u);
  listStatus = PairListStatus(count, found, candidates, overflow, vec3u(x, y, 1u));
}
