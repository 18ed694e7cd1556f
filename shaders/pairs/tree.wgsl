// pairs/tree.wgsl — the broad phase through the BVH over B.
// Entry point: bvhPairs, one invocation per box i of A: walks the tree over B with i's AABB
//   (grown by the tolerance), a wide record per step (its four AABBs tested together, see
//   tree/build.wgsl), and lists every leaf whose box's AABB overlaps as a candidate
//   (j > i with PAIR_OPT_SELF); pairs/narrow.wgsl then runs the SAT. A stack overflow is
//   counted, and the host then answers by brute force.
// Bindings: pairs/common.wgsl, pairs/candidates.wgsl, and wide: array<vec4f> (the wide records
//   of the tree over boxesB); overflowCount: atomic<u32>; leafOrder: array<u32> (with
//   PAIR_OPT_LEAF_ORDER: the tree's boxes in Morton order, its sort's values). Workgroup size WG.
// CPU twin, with pairs/narrow.wgsl: allPairs / allPairsSweep (src/reference/accel.ts).

@group(0) @binding(7) var<storage, read> wide: array<vec4f>;
@group(0) @binding(8) var<storage, read_write> overflowCount: atomic<u32>;
@group(0) @binding(10) var<storage, read> leafOrder: array<u32>;

// Lists (i, j) when B's box j has an AABB that meets aBox (A's box i, in B's frame, grown).
fn testLeaf(i: u32, aBox: Aabb, j: u32) {
  let bBox = obbAabb(boxesB[j]);
  if (aabbOverlap(aBox, bBox.min, bBox.max)) {
    appendCandidate(i, j);
  }
}

@compute @workgroup_size(WG)
fn bvhPairs(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = invocationIndex(lid, wid, nwg);
  if (k >= params.countA) {
    return;
  }
  // Within one set, invocations take boxes in the tree's Morton order: neighbours in a SIMD group
  // or warp are neighbours in space and walk nearly the same nodes.
  let i = select(k, leafOrder[k], (params.flags & PAIR_OPT_LEAF_ORDER) != 0u);
  let a = boxesA[i];
  // A's box in B's frame (B's boxes and tree are relative to B's floating origin).
  var aInB = a;
  aInB.center -= params.offsetB;
  let aBox = broadPhaseAabb(aInB);
  let selfPairs = (params.flags & PAIR_OPT_SELF) != 0u;
  if (params.countB == 1u) {
    if (!selfPairs) {
      testLeaf(i, aBox, 0u);
    }
    return;
  }
  var stack: array<u32, BVH_STACK>;
  stack[0] = 0u;
  var sp = 1u;
  while (sp > 0u) {
    sp -= 1u;
    let at = BVH_WIDE_VEC4 * stack[sp];
    // Entry k: (min, pointer) at 2k, (max, 0) at 2k + 1 (tree/build.wgsl).
    let a0 = wide[at];
    let a1 = wide[at + 2u];
    let a2 = wide[at + 4u];
    let a3 = wide[at + 6u];
    let p = bitcast<vec4u>(vec4f(a0.w, a1.w, a2.w, a3.w));
    let lo = array<vec3f, 4>(a0.xyz, a1.xyz, a2.xyz, a3.xyz);
    let hi = array<vec3f, 4>(wide[at + 1u].xyz, wide[at + 3u].xyz, wide[at + 5u].xyz, wide[at + 7u].xyz);
    // aabbOverlap against each of the record's four AABBs (unused entries point at BVH_NONE).
    let meets = (p != vec4u(BVH_NONE)) & vec4<bool>(
      aabbOverlap(aBox, lo[0], hi[0]), aabbOverlap(aBox, lo[1], hi[1]), aabbOverlap(aBox, lo[2], hi[2]), aabbOverlap(aBox, lo[3], hi[3]));
    for (var k = 0u; k < 4u; k++) {
      if (!meets[k]) {
        continue;
      }
      let c = p[k];
      if ((c & BVH_LEAF) != 0u) {
        let j = c & ~BVH_LEAF;
        if (!(selfPairs && j <= i)) {
          testLeaf(i, aBox, j);
        }
      } else {
        if (sp >= BVH_STACK) {
          atomicAdd(&overflowCount, 1u);
          return;
        }
        stack[sp] = c;
        sp += 1u;
      }
    }
  }
}
