// build.wgsl — linear BVH over the boxes of a set, built on the GPU (Karras 2012).
// Entry points, in order (each its own dispatch; the radix sort of sort.wgsl runs between
// bvhMorton and bvhHierarchy):
//   bvhBoundsPartial  bounds of the box centres, one partial per workgroup (parallel reduction)
//   bvhBoundsFinal    one workgroup reduces the partials into bounds[0] (min), bounds[1] (max)
//   bvhMorton         30-bit Morton code of each centre in those bounds; values = box indices
//   bvhHierarchy      one internal node per thread (Karras, "Maximizing Parallelism in the
//                     Construction of BVHs, Octrees, and k-d Trees", HPG 2012); equal codes are
//                     told apart by their sorted position, so every key is unique
//   bvhRefitLeaves    every leaf counts itself into its parent; a parent whose second child
//                     arrives goes on the frontier list
//   bvhRefitArgs      (one thread) indirect dispatch arguments for the current frontier, and an
//                     empty next frontier
//   bvhRefitNodes     computes each frontier node's AABB from its children, writes the wide
//                     records' entries it knows (below), and moves up
//
// The wide records (what every tree walk reads): per internal node n, the up-to-four nodes two
// levels below it — a child of n that is a leaf, or the children of n's internal child — each
// with its AABB, so a walk that starts at the root's record and steps from record to record
// visits every other level of the binary tree and tests four AABBs per step. Entry k of record n
// is two vec4f: (min xyz, pointer bits) and (max xyz, 0; entry 0's w: n's subtree area sum,
// below); entries 0 and 1 come from n's left
// child, 2 and 3 from its right (a leaf child: itself, then BVH_NONE). The refit of node m writes
// them from the AABBs it has just computed, the same floats the nodes hold: its leaf children
// into its own record, its two children into its parent's (the side m is on). Every entry is
// written by one invocation, every refit, and read only by later dispatches.
//
// The tree's SAH cost (unit costs: Σ of every node's and leaf's AABB area over the root's, as
// bvhSahCost in src/tree/quality.ts counts it) comes out of the same refit: node n's refit puts
// its subtree's area sum (its own AABB's area plus its children's sums, a leaf's being its AABB's
// area) in the free w of its record's first entry (wide[8n + 1].w, after that entry's own
// write: n's child wrote it in an earlier dispatch, or n just did); the root's refit divides its
// sum by its area into status[1] (f32 bits). ObbGpu rebuilds instead of refitting when it grew
// (BVH_REBUILD_SAH_RATIO).
//
// Why the refit needs no memory ordering between invocations: a node is put on the frontier
// by the atomicAdd that returns 1 on its counter (exactly one child sees that value; atomic
// read-modify-writes on one location are totally ordered even when relaxed), and it is
// processed in a LATER dispatch. Its children's AABBs were written in earlier dispatches, and
// WebGPU makes a dispatch's storage writes visible to the dispatches after it. No invocation
// ever reads data another invocation of the same dispatch wrote, so the relaxed atomics of WGSL
// are enough. The height bound (BVH_REFIT_STEPS in src/constants.ts) caps the dispatches.
//
// Bindings (group 0): 0 params: BvhParams; 1 boxes: array<Obb>; 2 bounds: array<vec4f>;
//   3 keys, 4 vals: array<u32>; 5 nodes: array<BvhNode>; 6 parents: array<u32> (internal nodes
//   first, then leaves by sorted position); 7 refitCount: array<atomic<u32>>; 8 listOut:
//   array<atomic<u32>> ([0] = count); 9 listIn: array<u32>; 10 args: array<u32>; 11 status:
//   array<atomic<u32>> ([0] = times the root was refitted, [1] = the SAH cost, f32 bits); 12 wide: array<vec4f> (BVH_WIDE_VEC4
//   vec4 per internal node: the wide records, above). Workgroup size BVH_WG (the bounds
//   reduction: override BOUNDS_WG).

@group(0) @binding(0) var<uniform> bvhParams: BvhParams;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read_write> bounds: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals: array<u32>;
@group(0) @binding(5) var<storage, read_write> nodes: array<BvhNode>;
@group(0) @binding(6) var<storage, read_write> parents: array<u32>;
@group(0) @binding(7) var<storage, read_write> refitCount: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> listOut: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read> listIn: array<u32>;
@group(0) @binding(10) var<storage, read_write> args: array<u32>;
@group(0) @binding(11) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read_write> wide: array<vec4f>;

// The bounds reduction's workgroup shape (WGSL overrides; narrow on CPU adapters, see RadixSort).
override BOUNDS_WG: u32 = 256u;
override BOUNDS_PER_THREAD: u32 = 4u;

var<workgroup> redMin: array<vec3f, BOUNDS_WG>;
var<workgroup> redMax: array<vec3f, BOUNDS_WG>;

fn bvhThread(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * BVH_WG + lid;
}

// Tree reduction of redMin/redMax into element 0. Uniform control flow.
fn reduceBounds(lid: u32) {
  for (var s = BOUNDS_WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) {
      redMin[lid] = min(redMin[lid], redMin[lid + s]);
      redMax[lid] = max(redMax[lid], redMax[lid + s]);
    }
  }
  workgroupBarrier();
}

@compute @workgroup_size(BOUNDS_WG)
fn bvhBoundsPartial(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let group = wid.x + wid.y * nwg.x;
  if (group >= bvhParams.partials) {
    return;
  }
  var lo = vec3f(F32_MAX);
  var hi = vec3f(-F32_MAX);
  let base = group * BOUNDS_WG * BOUNDS_PER_THREAD;
  for (var q = 0u; q < BOUNDS_PER_THREAD; q++) {
    let i = base + q * BOUNDS_WG + lid;
    if (i < bvhParams.count) {
      let c = boxes[i].center;
      lo = min(lo, c);
      hi = max(hi, c);
    }
  }
  redMin[lid] = lo;
  redMax[lid] = hi;
  reduceBounds(lid);
  if (lid == 0u) {
    bounds[2u + 2u * group] = vec4f(redMin[0], 0.0);
    bounds[3u + 2u * group] = vec4f(redMax[0], 0.0);
  }
}

@compute @workgroup_size(BOUNDS_WG)
fn bvhBoundsFinal(@builtin(local_invocation_index) lid: u32) {
  var lo = vec3f(F32_MAX);
  var hi = vec3f(-F32_MAX);
  for (var k = lid; k < bvhParams.partials; k += BOUNDS_WG) {
    lo = min(lo, bounds[2u + 2u * k].xyz);
    hi = max(hi, bounds[3u + 2u * k].xyz);
  }
  redMin[lid] = lo;
  redMax[lid] = hi;
  reduceBounds(lid);
  if (lid == 0u) {
    bounds[0] = vec4f(redMin[0], 0.0);
    bounds[1] = vec4f(redMax[0], 0.0);
  }
}

// Spreads the low 10 bits of x to every third bit.
fn expandBits(v: u32) -> u32 {
  var x = v & 0x3ffu;
  x = (x | (x << 16u)) & 0x030000ffu;
  x = (x | (x << 8u)) & 0x0300f00fu;
  x = (x | (x << 4u)) & 0x030c30c3u;
  x = (x | (x << 2u)) & 0x09249249u;
  return x;
}

@compute @workgroup_size(BVH_WG)
fn bvhMorton(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = bvhThread(lid, wid, nwg);
  if (i >= bvhParams.count) {
    return;
  }
  // One scale for all three axes (the bounds' largest side): a flat scene (a city, a road)
  // then spends few code bits on its thin axis, and the tree splits along the long ones first,
  // where rays travel. Per-axis scaling would split the thin axis as early as the others.
  let lo = bounds[0].xyz;
  let ext = bounds[1].xyz - lo;
  let side = max(max(ext.x, ext.y), ext.z);
  let scale = select(vec3f(0.0), vec3f(1023.0 / max(side, 1e-30)), side > 0.0);
  let q = vec3u(clamp((boxes[i].center - lo) * scale, vec3f(0.0), vec3f(1023.0)));
  keys[i] = (expandBits(q.x) << 2u) | (expandBits(q.y) << 1u) | expandBits(q.z);
  vals[i] = i;
}

// Length of the common prefix of sorted keys i and j (position-tie-broken), -1 out of range.
fn keyDelta(i: i32, j: i32) -> i32 {
  if (j < 0 || j >= i32(bvhParams.count)) {
    return -1;
  }
  let a = keys[u32(i)];
  let b = keys[u32(j)];
  if (a == b) {
    return 32 + i32(countLeadingZeros(u32(i) ^ u32(j)));
  }
  return i32(countLeadingZeros(a ^ b));
}

fn childPointer(index: i32, isLeaf: bool, parent: u32) -> u32 {
  if (isLeaf) {
    parents[bvhParams.count - 1u + u32(index)] = parent;
    return BVH_LEAF | vals[u32(index)];
  }
  parents[u32(index)] = parent;
  return u32(index);
}

@compute @workgroup_size(BVH_WG)
fn bvhHierarchy(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let node = bvhThread(lid, wid, nwg);
  if (node + 1u >= bvhParams.count) {
    return;
  }
  let i = i32(node);
  // Direction of the node's range, and its other end j.
  let d = select(-1, 1, keyDelta(i, i + 1) - keyDelta(i, i - 1) > 0);
  let deltaMin = keyDelta(i, i - d);
  var lMax = 2;
  while (keyDelta(i, i + lMax * d) > deltaMin) {
    lMax *= 2;
  }
  var l = 0;
  for (var t = lMax / 2; t >= 1; t /= 2) {
    if (keyDelta(i, i + (l + t) * d) > deltaMin) {
      l += t;
    }
  }
  let j = i + l * d;
  // The split: the last position sharing more than the node's common prefix with i.
  let deltaNode = keyDelta(i, j);
  var s = 0;
  var t = l;
  loop {
    t = (t + 1) / 2;
    if (keyDelta(i, i + (s + t) * d) > deltaNode) {
      s += t;
    }
    if (t <= 1) {
      break;
    }
  }
  let gamma = i + s * d + min(d, 0);
  let left = childPointer(gamma, min(i, j) == gamma, node);
  let right = childPointer(gamma + 1, max(i, j) == gamma + 1, node);
  nodes[node] = BvhNode(vec3f(0.0), left, vec3f(0.0), right);
  if (node == 0u) {
    parents[0] = BVH_NONE;
  }
}

// A node's parent is queued by the child whose increment finds the counter at 1.
fn arrive(parent: u32) {
  if (atomicAdd(&refitCount[parent], 1u) == 1u) {
    let slot = atomicAdd(&listOut[0], 1u);
    atomicStore(&listOut[1u + slot], parent);
  }
}

@compute @workgroup_size(BVH_WG)
fn bvhRefitLeaves(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let p = bvhThread(lid, wid, nwg);
  if (p >= bvhParams.count || bvhParams.count < 2u) {
    return;
  }
  arrive(parents[bvhParams.count - 1u + p]);
}

@compute @workgroup_size(1)
fn bvhRefitArgs() {
  let groups = (listIn[0] + BVH_WG - 1u) / BVH_WG;
  let x = min(groups, 65535u);
  args[0] = x;
  args[1] = select(1u, (groups + x - 1u) / max(x, 1u), x > 0u);
  args[2] = 1u;
  atomicStore(&listOut[0], 0u);
}

fn childBounds(c: u32) -> Aabb {
  if ((c & BVH_LEAF) != 0u) {
    return obbAabb(boxes[c & ~BVH_LEAF]);
  }
  let n = nodes[c];
  return Aabb(n.min, n.max);
}

@compute @workgroup_size(BVH_WG)
fn bvhRefitNodes(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = bvhThread(lid, wid, nwg);
  if (k >= listIn[0]) {
    return;
  }
  let n = listIn[1u + k];
  let node = nodes[n];
  let a = childBounds(node.left);
  let b = childBounds(node.right);
  let lo = min(a.min, b.min);
  let hi = max(a.max, b.max);
  nodes[n].min = lo;
  nodes[n].max = hi;
  // The wide records: this node's leaf children into its own, its children into its parent's.
  if ((node.left & BVH_LEAF) != 0u) {
    writeEntry(n, 0u, node.left, a);
    writeEntry(n, 1u, BVH_NONE, Aabb(vec3f(0.0), vec3f(0.0)));
  }
  if ((node.right & BVH_LEAF) != 0u) {
    writeEntry(n, 2u, node.right, b);
    writeEntry(n, 3u, BVH_NONE, Aabb(vec3f(0.0), vec3f(0.0)));
  }
  // The subtree's area sum (the SAH's numerator, below), after this node's own entries.
  let cost = halfArea(lo, hi) + subtreeCost(node.left, a) + subtreeCost(node.right, b);
  wide[BVH_WIDE_VEC4 * n + 1u].w = cost;
  let parent = parents[n];
  if (parent == BVH_NONE) {
    let area = halfArea(lo, hi);
    atomicStore(&status[1], bitcast<u32>(select(0.0, cost / area, area > 0.0)));
    atomicAdd(&status[0], 1u);
    return;
  }
  let side = select(2u, 0u, nodes[parent].left == n);
  writeEntry(parent, side, node.left, a);
  writeEntry(parent, side + 1u, node.right, b);
  arrive(parent);
}

// Half the surface area of an AABB.
fn halfArea(lo: vec3f, hi: vec3f) -> f32 {
  let e = hi - lo;
  return e.x * e.y + e.y * e.z + e.z * e.x;
}

// The area sum of child c's subtree: a leaf's AABB area, or what c's refit left in its record.
fn subtreeCost(c: u32, box: Aabb) -> f32 {
  if ((c & BVH_LEAF) != 0u) {
    return halfArea(box.min, box.max);
  }
  return wide[BVH_WIDE_VEC4 * c + 1u].w;
}

// Entry k of node n's wide record: (min, pointer) and (max, 0).
fn writeEntry(n: u32, k: u32, pointer: u32, box: Aabb) {
  let at = BVH_WIDE_VEC4 * n + 2u * k;
  wide[at] = vec4f(box.min, bitcast<f32>(pointer));
  wide[at + 1u] = vec4f(box.max, 0.0);
}

