// obb_pairs.wgsl — box–box SAT over pairs and sets.
// Entry points:
//   bvhPairs     one invocation per box i of A: walks the tree over B with i's AABB and runs
//                the SAT on every leaf whose AABB overlaps (j > i with PAIR_OPT_SELF); appends
//                like obbCross. A stack overflow is counted, and the host then answers by brute force.
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
// BVH path: the tree over boxesB, the overflow counter, and optional contacts (gap and axis of
// each appended pair, PAIR_OPT_CONTACTS).
@group(0) @binding(7) var<storage, read> nodes: array<BvhNode>;
@group(0) @binding(8) var<storage, read_write> overflowCount: atomic<u32>;
@group(0) @binding(9) var<storage, read_write> contacts: array<PairResult>;
// bvhPairs with PAIR_OPT_LEAF_ORDER: the tree's boxes in Morton order (its sort's values).
@group(0) @binding(10) var<storage, read> leafOrder: array<u32>;

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

// Appends (i, j) when the SAT says they overlap (with their contact when asked).
fn testLeafPair(i: u32, a: Obb, aBox: Aabb, j: u32) {
  let b = boxesB[j];
  let bBox = obbAabb(b);
  if (!aabbOverlap(aBox, bBox.min, bBox.max)) {
    return;
  }
  let res = pairResult(satOf(a, b));
  if (res.overlap == 1u) {
    let slot = atomicAdd(&counter, 1u);
    if (slot < params.capacity) {
      pairsOut[slot] = vec2u(i, j);
      if ((params.flags & PAIR_OPT_CONTACTS) != 0u) {
        contacts[slot] = res;
      }
    }
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
  let aBox = obbAabb(aInB);
  let selfPairs = (params.flags & PAIR_OPT_SELF) != 0u;
  if (params.countB == 1u) {
    if (!selfPairs) {
      testLeafPair(i, a, aBox, 0u);
    }
    return;
  }
  var stack: array<u32, BVH_STACK>;
  stack[0] = 0u;
  var sp = 1u;
  while (sp > 0u) {
    sp -= 1u;
    let node = nodes[stack[sp]];
    if (!aabbOverlap(aBox, node.min, node.max)) {
      continue;
    }
    for (var side = 0u; side < 2u; side++) {
      let c = select(node.right, node.left, side == 0u);
      if ((c & BVH_LEAF) != 0u) {
        let j = c & ~BVH_LEAF;
        if (!(selfPairs && j <= i)) {
          testLeafPair(i, a, aBox, j);
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
