// build.wgsl — linear BVH over the boxes of a set, built on the GPU.
// Entry points, in order (each its own dispatch; the radix sort of sort.wgsl runs between
// bvhMorton and bvhRoot):
//   bvhBoundsPartial  bounds of the box centres, one partial per workgroup (parallel reduction)
//   bvhBoundsFinal    one workgroup reduces the partials into bounds[0] (min), bounds[1] (max)
//   bvhMorton         30-bit Morton code of each centre in those bounds; values = box indices
//   bvhRoot           (one thread) the root's split, found by Karras's split search
//   bvhRefitLeaves    level 0 of the up-sweep: every leaf writes its entry into its parent's
//                     wide record and counts itself there; a parent whose second child arrives
//                     goes on the frontier list
//   bvhRefitArgs      (one thread) indirect dispatch arguments for the current frontier, and an
//                     empty next frontier
//   bvhRefitNodes     each frontier node's AABB from its children, its entries into its
//                     parent's record (below), and on up
//
// The tree is the binary radix tree of the sorted 30-bit codes, equal codes told apart by their
// sorted position so that every key is unique: the tree of Karras ("Maximizing Parallelism in
// the Construction of BVHs, Octrees, and k-d Trees", HPG 2012), built bottom-up as Apetrei
// ("Fast and Simple Agglomerative LBVH Construction", CGVC 2014) does: a node covering sorted
// positions [first, last] is the right child of the split at first − 1 when its keys share more
// with the key before the range than with the key after it, else the left child of the split at
// last. So the same up-sweep that computes the AABBs also links the tree (override LINK, a
// build); a refit (boxes moved, LINK off) follows the links the build recorded. One sweep, no
// per-node binary searches. Internal nodes are numbered by their split (nodeOfSplit), the root 0.
//
// The wide records (what every tree walk reads): per internal node n, the up-to-four nodes two
// levels below it — a child of n that is a leaf, or the children of n's internal child — each
// with its AABB, so a walk that starts at the root's record and steps from record to record
// visits every other level of the binary tree and tests four AABBs per step. Entry k of record n
// is two vec4f: (min xyz, pointer bits) and (max xyz, w); entries 0 and 1 come from n's left
// child, 2 and 3 from its right (a leaf child: itself, then BVH_NONE). Each child writes them
// when it is done, from the AABBs it has just computed (the same floats its node holds), with
// the part of its range its parent needs in entry 0's or 2's w; the parent reads its children
// from there (a BVH_NONE second entry marks a leaf child), then puts its subtree's area sum in
// entry 0's w and 0 in entry 2's. Every entry is written by one invocation, every build and
// refit (a refit leaves the leaves' pointers and BVH_NONE entries as the build wrote them), and
// read only by later dispatches.
//
// The tree's SAH cost (unit costs: Σ of every node's and leaf's AABB area over the root's, as
// bvhSahCost in src/tree/quality.ts counts it) comes out of the same sweep: node n's subtree
// area sum (its own AABB's area plus its children's sums, a leaf's being its AABB's area) in
// its record's wide[8n + 1].w; the root divides its sum by its area into status[1] (f32 bits).
// ObbGpu rebuilds instead of refitting when it grew (BVH_REBUILD_SAH_RATIO).
//
// Why the sweep needs no memory ordering between invocations: a node is put on the frontier by
// the atomicAdd that returns 1 on its counter (exactly one child sees that value; atomic
// read-modify-writes on one location are totally ordered even when relaxed), and it is
// processed in a LATER dispatch. What its children wrote (their entries, links and AABBs) was
// written in earlier dispatches, and WebGPU makes a dispatch's storage writes visible to the
// dispatches after it. No invocation ever reads data another invocation of the same dispatch
// wrote, so the relaxed atomics of WGSL are enough. The height bound (BVH_REFIT_STEPS in
// src/constants.ts) caps the dispatches.
//
// Bindings (group 0): 0 params: BvhParams; 1 boxes: array<Obb>; 2 bounds: array<vec4f>;
//   3 keys, 4 vals: array<u32>; 5 nodes: array<BvhNode>; 6 parents: array<u32> (internal nodes
//   first, then leaves by sorted position); 7 refitCount: array<atomic<u32>>; 8 listOut:
//   array<atomic<u32>> ([0] = count); 9 listIn: array<u32>; 10 args: array<u32>; 11 status:
//   array<atomic<u32>> ([0] = times the root was refitted, [1] = the SAH cost, f32 bits,
//   [2] = the root's split); 12 wide: array<vec4f> (BVH_WIDE_VEC4 vec4 per internal node: the
//   wide records, above). Workgroup size BVH_WG (the bounds
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

// Length of the common prefix of sorted keys i and j (position-tie-broken); -1 when j is out of
// range (i must be in range; the prefix is symmetric).
// Branch-free (selects; an out-of-range j reads key i and is answered -1): on a CPU adapter every
// branch costs both sides.
fn keyDelta(i: i32, j: i32) -> i32 {
  let inRange = (j >= 0) & (j < i32(bvhParams.count));
  let a = keys[u32(i)];
  let b = keys[u32(select(i, j, inRange))];
  let same = a == b;
  let d = i32(countLeadingZeros(select(a ^ b, u32(i) ^ u32(j), same))) + select(0, 32, same);
  return select(-1, d, inRange);
}

// Whether the up-sweep also links the tree (a build: each node finds its parent from the sorted
// keys) or follows the links the last build left (a refit). Set per pipeline by the host.
override LINK: bool = false;

// The root's split (the last sorted position on the left of the whole range), into status[2].
// One thread, before a build's up-sweep: Karras's split search over [0, n − 1].
@compute @workgroup_size(1)
fn bvhRoot() {
  let last = i32(bvhParams.count) - 1;
  let deltaNode = keyDelta(0, last);
  var s = 0;
  var t = last;
  loop {
    t = (t + 1) / 2;
    if (keyDelta(0, s + t) > deltaNode) {
      s += t;
    }
    if (t <= 1) {
      break;
    }
  }
  atomicStore(&status[2], u32(s));
}

// The node of split p (the internal node whose children meet between sorted positions p and
// p + 1): the root is node 0 and split n − 2 takes the root split's number, so the n − 1 nodes
// are numbered 0 .. n − 2 as the walks expect.
fn nodeOfSplit(p: u32) -> u32 {
  let root = atomicLoad(&status[2]);
  if (p == root) {
    return 0u;
  }
  if (p == bvhParams.count - 2u) {
    return root + 1u;
  }
  return p + 1u;
}

// Where a node covering sorted positions [first, last] hangs (a build, Apetrei 2014): under the
// split at first − 1 as its right child when its keys share more with the key before the range
// than with the key after it, else under the split at last as its left child. Strict: for a
// node of the radix tree the two sides never tie. `bound` is what the parent needs of this
// child's range (a left child's first position, a right child's last).
struct Hang {
  parent: u32,
  side: u32,
  bound: u32,
}

fn hangOf(first: u32, last: u32) -> Hang {
  if (first == 0u && last == bvhParams.count - 1u) {
    return Hang(BVH_NONE, 0u, 0u);
  }
  // keyDelta's first position must be in range (its second may not be): first, then first − 1.
  if (keyDelta(i32(first), i32(first) - 1) > keyDelta(i32(last), i32(last) + 1)) {
    return Hang(nodeOfSplit(first - 1u), 2u, last);
  }
  return Hang(nodeOfSplit(last), 0u, first);
}

// A node's parent is queued by the child whose increment finds the counter at 1.
fn arrive(parent: u32) {
  if (atomicAdd(&refitCount[parent], 1u) == 1u) {
    let slot = atomicAdd(&listOut[0], 1u);
    atomicStore(&listOut[1u + slot], parent);
  }
}

// Level 0 of the up-sweep, one invocation per leaf (sorted position i): the leaf's entry (its
// box's AABB) and a BVH_NONE entry into its parent's wide record, on its side; then it arrives.
// Linking, it finds its parent (hangOf) and records it; refitting, it reads the parent the build
// recorded and finds its side from the record's first pointer, which the build wrote.
@compute @workgroup_size(BVH_WG)
fn bvhRefitLeaves(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = bvhThread(lid, wid, nwg);
  let n = bvhParams.count;
  if (i >= n || n < 2u) {
    return;
  }
  let box = vals[i];
  let leaf = BVH_LEAF | box;
  let aabb = obbAabb(boxes[box]);
  var hang: Hang;
  if (LINK) {
    hang = hangOf(i, i);
    parents[n - 1u + i] = hang.parent;
    writeEntry(hang.parent, hang.side, leaf, aabb, hang.bound);
    writeEntry(hang.parent, hang.side + 1u, BVH_NONE, Aabb(vec3f(0.0), vec3f(0.0)), 0u);
  } else {
    // The leaf's side: whether its parent's first pointer (the build's) is this leaf. A sibling
    // leaf may be writing that entry in this dispatch, so a refit leaves every pointer unwritten
    // (they are the build's): the AABB's floats only, and the BVH_NONE entry as the build left it.
    let parent = parents[n - 1u + i];
    let at = BVH_WIDE_VEC4 * parent;
    hang = Hang(parent, select(2u, 0u, bitcast<u32>(wide[at].w) == leaf), 0u);
    let e = at + 2u * hang.side;
    wide[e].x = aabb.min.x;
    wide[e].y = aabb.min.y;
    wide[e].z = aabb.min.z;
    wide[e + 1u] = vec4f(aabb.max, 0.0);
  }
  arrive(hang.parent);
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

// A child of node n as the up-sweep sees it: on `side` (0 left, 2 right) of n's record, a leaf
// child left its own entry and a BVH_NONE after it; an internal child left its two children
// (never BVH_NONE), whose union is its own AABB. The entry's max w holds the child's bound
// (Hang.bound) until n's refit rewrites it.
struct Child {
  pointer: u32,
  box: Aabb,
  bound: u32,
  leaf: bool,
}

// Both entries are read and the leaf case chosen by select, without a branch: on a CPU adapter a
// branch costs its both sides anyway, and the selects measured ~15 ms less of the 1M-box sweep.
fn childOf(n: u32, side: u32, linked: u32) -> Child {
  let at = BVH_WIDE_VEC4 * n + 2u * side;
  let lo = wide[at];
  let hi = wide[at + 1u];
  let nextLo = wide[at + 2u];
  let nextHi = wide[at + 3u];
  let leaf = bitcast<u32>(nextLo.w) == BVH_NONE;
  // An internal child's AABB is the union of its two entries here, the same floats its node
  // holds (it computed its node from them): no read of its node.
  let box = Aabb(select(min(lo.xyz, nextLo.xyz), lo.xyz, leaf), select(max(hi.xyz, nextHi.xyz), hi.xyz, leaf));
  return Child(select(linked, bitcast<u32>(lo.w), leaf), box, bitcast<u32>(hi.w), leaf);
}

// Levels above 0, one invocation per frontier node: its AABB from its children's (as they left
// them in its record), its node written whole, its subtree's area sum, then its own
// entries into its parent's record (found as in bvhRefitLeaves) and its arrival there.
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
  // Linking, an internal child wrote its number into this node this build; a leaf child's
  // pointer is in its entry (childOf). Refitting, the node holds the build's pointers.
  // Its two pointers only (a whole-node load is eight loads per lane on a CPU adapter).
  let a = childOf(n, 0u, nodes[n].left);
  let b = childOf(n, 2u, nodes[n].right);
  let lo = min(a.box.min, b.box.min);
  let hi = max(a.box.max, b.box.max);
  nodes[n] = BvhNode(lo, a.pointer, hi, b.pointer);
  // The subtree's area sum (the SAH's numerator, below) in entry 0's max w; entry 2's held the
  // right child's bound.
  let cost = halfArea(lo, hi) + subtreeCost(a, n) + subtreeCost(b, n);
  wide[BVH_WIDE_VEC4 * n + 1u].w = cost;
  wide[BVH_WIDE_VEC4 * n + 5u].w = 0.0;
  var hang: Hang;
  if (LINK) {
    hang = hangOf(a.bound, b.bound);
    parents[n] = hang.parent;
    if (hang.parent != BVH_NONE) {
      if (hang.side == 0u) {
        nodes[hang.parent].left = n;
      } else {
        nodes[hang.parent].right = n;
      }
    }
  } else {
    let parent = parents[n];
    hang = Hang(parent, select(2u, 0u, parent != BVH_NONE && nodes[parent].left == n), 0u);
  }
  if (hang.parent == BVH_NONE) {
    let area = halfArea(lo, hi);
    atomicStore(&status[1], bitcast<u32>(select(0.0, cost / area, area > 0.0)));
    atomicAdd(&status[0], 1u);
    return;
  }
  writeEntry(hang.parent, hang.side, a.pointer, a.box, hang.bound);
  writeEntry(hang.parent, hang.side + 1u, b.pointer, b.box, 0u);
  arrive(hang.parent);
}

// Half the surface area of an AABB.
fn halfArea(lo: vec3f, hi: vec3f) -> f32 {
  let e = hi - lo;
  return e.x * e.y + e.y * e.z + e.z * e.x;
}

// The area sum of a child's subtree: a leaf's AABB area, or what the child's refit left in its
// record. Branch-free: for a leaf child the load reads node n's own record (unused).
fn subtreeCost(c: Child, n: u32) -> f32 {
  let below = wide[BVH_WIDE_VEC4 * select(c.pointer, n, c.leaf) + 1u].w;
  return select(below, halfArea(c.box.min, c.box.max), c.leaf);
}

// Entry k of node n's wide record: (min, pointer) and (max, w bits).
fn writeEntry(n: u32, k: u32, pointer: u32, box: Aabb, w: u32) {
  let at = BVH_WIDE_VEC4 * n + 2u * k;
  wide[at] = vec4f(box.min, bitcast<f32>(pointer));
  wide[at + 1u] = vec4f(box.max, bitcast<f32>(w));
}

