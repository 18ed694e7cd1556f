// pairs/grid.wgsl — the broad phase of all pairs within one set through a uniform grid
// (src/pairs/grid.ts builds it per query). gridCount bins each box by its centre, the host scans
// the counts into cell starts, and
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
// Entry points: gridCount, gridScatter (one invocation per box), gridPairs (one per item).
// Bindings: pairs/common.wgsl, pairs/candidates.wgsl, and grid: GridParams (uniform); cellOf:
// array<u32>; cellCounters: array<atomic<u32>> (counts scanned into starts in [0, cells), fill
// counters in [cells, 2 cells)); cellItems: array<GridItem>. Workgroup size WG.
// CPU twin, with pairs/narrow.wgsl: allPairs / allPairsSweep (src/reference/accel.ts); the
// grid's layout: gridOf (src/pairs/gridLayout.ts).

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
