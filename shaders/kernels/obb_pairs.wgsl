// obb_pairs.wgsl — box–box SAT over pairs and sets.
// Entry points:
//   bvhPairs     one invocation per box i of A: walks the tree over B with i's AABB and lists
//                every leaf whose AABB overlaps as a candidate (j > i with PAIR_OPT_SELF). A stack
//                overflow is counted, and the host then answers by brute force.
//   gridCount, gridScatter, gridPairs: the same candidates within one set through a uniform grid.
//   pairsNarrowArgs, pairsNarrow: the SAT on every candidate; appends like obbCross. The SAT
//                runs over the compacted list, not inside the broad phases' loops: there, an
//                invocation that needs the SAT holds up the others of its SIMD group or warp for
//                the whole test (measured on SwiftShader: 15x slower than the same tests listed).
//   obbPairs     one invocation per listed pair (i in A, j in B) → results[k]
//   obbOneVsMany one invocation per box j of B against box 0 of A → results[j]
//   obbCross     one invocation per box i of A against every box of B (tiled in workgroup
//                memory); appends overlapping (i, j) to pairsOut with an atomic counter. With
//                PAIR_OPT_SELF (A and B the same set) only j > i is tested.
// Bindings (group 0): 0 params: PairParams (uniform); 1 boxesA, 2 boxesB: array<Obb>; 3 pairs:
//   array<vec2u>; 4 results: array<PairResult>; 5 pairsOut: array<vec2u>; 6 counter: atomic<u32>.
// Workgroup size: override WG (default 64); 2D dispatch grid as in ray_obb_batch.wgsl.
// CPU twins: obbPairs, obbOneVsMany, obbCross / allPairs in src/reference/pairs.ts; the broad
// phases with pairsNarrow as a whole: allPairs / allPairsSweep (src/reference/accel.ts);
// pairsNarrowArgs: dispatchGrid (src/gpu/pipelines.ts).

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
// The broad phases (bvhPairs, gridPairs) list candidates: pairs whose AABBs overlap, at most
// params.pairCount of them, counted past that so the host can re-run with the exact size.
// pairsNarrowArgs turns the count into indirect dispatch arguments for pairsNarrow.
@group(0) @binding(15) var<storage, read_write> candidates: array<vec2u>;
@group(0) @binding(16) var<storage, read_write> candidateCount: atomic<u32>;
@group(0) @binding(17) var<storage, read_write> narrowArgs: array<u32, 3>;

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

// Lists (i, j) as a candidate.
fn appendCandidate(i: u32, j: u32) {
  let slot = atomicAdd(&candidateCount, 1u);
  if (slot < params.pairCount) {
    candidates[slot] = vec2u(i, j);
  }
}

// Lists (i, j) when B's box j has an AABB that meets aBox (A's box i, in B's frame, grown).
fn testLeaf(i: u32, aBox: Aabb, j: u32) {
  let bBox = obbAabb(boxesB[j]);
  if (aabbOverlap(aBox, bBox.min, bBox.max)) {
    appendCandidate(i, j);
  }
}

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
    let node = nodes[stack[sp]];
    if (!aabbOverlap(aBox, node.min, node.max)) {
      continue;
    }
    for (var side = 0u; side < 2u; side++) {
      let c = select(node.right, node.left, side == 0u);
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

// ---------------------------------------------------------------------------------------------
// All pairs within one set through a uniform grid (PairQueries, `grid`). gridCount bins each box by its centre, the host scans the counts into cell starts, and
// gridScatter writes each box's index and AABB into cellItems cell by cell (cells in x-fastest
// order, so a row of cells along x is one contiguous range of items). gridPairs runs item k
// against the items m > k whose centres can lie within its AABB: a box whose AABB meets box A's
// (grown by the tolerance) has its centre within A's grown AABB widened by the box's own half
// extent, which `reach` bounds (the host sets it from the widest padded AABB, with a margin for
// the float32 rounding of centres and bounds). The cells of that widened AABB are a block of
// rows, each a contiguous range of items; cell coordinates are monotone in position, so clamping
// and flooring never lose a box. Each pair is met once (by its item of lower position); pairs
// whose AABBs overlap become candidates (min, max) of the two indices, for pairsNarrow.
//
// Bindings: 11 grid: GridParams; 12 cellOf: array<u32>; 13 cellCounters: array<atomic<u32>>
// (counts scanned into starts in [0, cells), fill counters in [cells, 2 cells)); 14 cellItems:
// array<GridItem>.

struct GridItem {
  lo: vec3f,
  index: u32,
  hi: vec3f,
  pad: u32,
}

@group(0) @binding(11) var<uniform> grid: GridParams;
@group(0) @binding(12) var<storage, read_write> cellOf: array<u32>;
@group(0) @binding(13) var<storage, read_write> cellCounters: array<atomic<u32>>;
@group(0) @binding(14) var<storage, read_write> cellItems: array<GridItem>;

fn gridCoords(p: vec3f) -> vec3i {
  let q = floor((p - grid.lo) * grid.invCell);
  return vec3i(clamp(q, vec3f(0.0), vec3f(grid.dims) - vec3f(1.0)));
}

fn gridCell(c: vec3i) -> u32 {
  return u32(c.x) + grid.dims.x * (u32(c.y) + grid.dims.y * u32(c.z));
}

@compute @workgroup_size(WG)
fn gridCount(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = invocationIndex(lid, wid, nwg);
  if (i >= params.countA) {
    return;
  }
  let cell = gridCell(gridCoords(boxesA[i].center));
  cellOf[i] = cell;
  atomicAdd(&cellCounters[cell], 1u);
}

@compute @workgroup_size(WG)
fn gridScatter(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = invocationIndex(lid, wid, nwg);
  if (i >= params.countA) {
    return;
  }
  let cell = cellOf[i];
  let box = obbAabb(boxesA[i]);
  cellItems[atomicLoad(&cellCounters[cell]) + atomicAdd(&cellCounters[grid.cells + cell], 1u)] = GridItem(box.min, i, box.max, 0u);
}

@compute @workgroup_size(WG)
fn gridPairs(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = invocationIndex(lid, wid, nwg);
  if (k >= params.countA) {
    return;
  }
  let me = cellItems[k];
  let grow = vec3f(max(params.tolerance, 0.0));
  let aBox = Aabb(me.lo - grow, me.hi + grow);
  let c0 = gridCoords(aBox.min - vec3f(grid.reach));
  let c1 = gridCoords(aBox.max + vec3f(grid.reach));
  for (var z = c0.z; z <= c1.z; z++) {
    for (var y = c0.y; y <= c1.y; y++) {
      let last = gridCell(vec3i(c1.x, y, z));
      let end = atomicLoad(&cellCounters[last]) + atomicLoad(&cellCounters[grid.cells + last]);
      for (var m = max(atomicLoad(&cellCounters[gridCell(vec3i(c0.x, y, z))]), k + 1u); m < end; m++) {
        let other = cellItems[m];
        if (aabbOverlap(aBox, other.lo, other.hi)) {
          appendCandidate(min(me.index, other.index), max(me.index, other.index));
        }
      }
    }
  }
}
