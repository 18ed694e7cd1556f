// pairs/candidates.wgsl — the list the broad phases (pairs/tree.wgsl, pairs/grid.wgsl) fill and
// the narrow phase (pairs/narrow.wgsl) reads: pairs whose AABBs overlap, at most
// params.pairCount of them, counted past that so the host can re-run with the exact size.
// Bindings: candidates: array<vec2u>; candidateCount: atomic<u32>.

@group(0) @binding(15) var<storage, read_write> candidates: array<vec2u>;
@group(0) @binding(16) var<storage, read_write> candidateCount: atomic<u32>;

// Lists (i, j) as a candidate.
fn appendCandidate(i: u32, j: u32) {
  let slot = atomicAdd(&candidateCount, 1u);
  if (slot < params.pairCount) {
    candidates[slot] = vec2u(i, j);
  }
}
