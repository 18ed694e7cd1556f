// rays/tree_walk.wgsl — a ray's walk down the BVH (shaders/tree/build.wgsl builds it over
// `boxes`): the same per-box steps as brute force (rays/common.wgsl: filters, slab test, tie
// rule) over the boxes whose padded AABBs, and whose ancestors' AABBs, the ray meets. The walk
// steps from wide record to wide record (shaders/tree/build.wgsl: each internal node's up-to-four
// nodes two levels down with their AABBs), so it visits every other level of the binary tree and
// tests four AABBs per step in vector arithmetic. Ordered (nearer entries first) with pruning by
// the best t so far. Linked by rays/tree.wgsl and lidar/tree.wgsl.
// Bindings: wide: array<vec4f> (the tree's wide records, BVH_WIDE_VEC4 per internal node);
// overflowCount: atomic<u32> (walks that outgrew BVH_STACK; the host answers those rays by the
// reference).
// Counting (WALK_COUNTS, an override set only by the bench's counting kernel, rays/tree.wgsl's
// bvhClosestHitCounts; constant-folded away everywhere else): the records a walk steps through
// and the boxes it tests, as bvhWalkCounts counts them.
// CPU twins: a walk finds what brute force finds (closestHit / anyHit / allHits in
// src/reference/raycast.ts; the reference's own accelerated closestHitGrid in src/reference/accel.ts);
// bvhWalkCounts (src/tree/quality.ts) walks the same records in float64 and counts.

@group(0) @binding(11) var<storage, read> wide: array<vec4f>;
@group(0) @binding(10) var<storage, read_write> overflowCount: atomic<u32>;

override WALK_COUNTS: bool = false;

// A ray's reciprocal direction for the slab tests of AABBs: inv is 1/d where |d| >= EPS_DIR (so
// |inv| <= 1e9 and every product stays finite) and 0 on the axes where par is set (|d| < EPS_DIR:
// rayFrame divides by 1 there); those axes are decided by containment instead. No division by
// zero and no infinity, which WGSL does not guarantee.
struct RayFrame {
  inv: vec3f,
  par: vec3<bool>,
}

fn rayFrame(d: vec3f) -> RayFrame {
  let par = abs(d) < vec3f(EPS_DIR);
  return RayFrame(select(vec3f(1.0) / select(d, vec3f(1.0), par), vec3f(0.0), par), par);
}

// The traversal state of one ray: the best hit (closest), whether anything was hit (any),
// whether the stack overflowed, and (WALK_COUNTS only) the records stepped through and the
// boxes tested.
struct Walk {
  best: Hit,
  found: bool,
  overflowed: bool,
  steps: u32,
  boxTests: u32,
}

// Wide record w (shaders/tree/build.wgsl: four entries of (min, pointer), (max, 0)) as
// structure of arrays: lo[axis], hi[axis] over the four entries, and the pointers.
struct WideRecord {
  lo: array<vec4f, 3>,
  hi: array<vec4f, 3>,
  ptrs: vec4u,
}

fn wideRecord(w: u32) -> WideRecord {
  let at = BVH_WIDE_VEC4 * w;
  let a0 = wide[at];
  let b0 = wide[at + 1u];
  let a1 = wide[at + 2u];
  let b1 = wide[at + 3u];
  let a2 = wide[at + 4u];
  let b2 = wide[at + 5u];
  let a3 = wide[at + 6u];
  let b3 = wide[at + 7u];
  return WideRecord(
    array<vec4f, 3>(vec4f(a0.x, a1.x, a2.x, a3.x), vec4f(a0.y, a1.y, a2.y, a3.y), vec4f(a0.z, a1.z, a2.z, a3.z)),
    array<vec4f, 3>(vec4f(b0.x, b1.x, b2.x, b3.x), vec4f(b0.y, b1.y, b2.y, b3.y), vec4f(b0.z, b1.z, b2.z, b3.z)),
    bitcast<vec4u>(vec4f(a0.w, a1.w, a2.w, a3.w)),
  );
}

// Entry distances of the ray into the four AABBs of wide record r (the slab test: entry = the
// largest near plane and 0, a miss when it is beyond the smallest far plane; axes along par by
// containment); −1 where the ray misses, the entry is unused, or it lies beyond
// `limit` (<=: an AABB entry equal to the best t may still hold an equal t at a smaller index).
fn wideEntries(o: vec3f, frame: RayFrame, r: WideRecord, limit: f32) -> vec4f {
  let mnx = r.lo[0];
  let mny = r.lo[1];
  let mnz = r.lo[2];
  let mxx = r.hi[0];
  let mxy = r.hi[1];
  let mxz = r.hi[2];
  let used = r.ptrs != vec4u(BVH_NONE);
  // Axes the ray runs along (par): decided by containment.
  let outX = vec4<bool>(frame.par.x) & ((vec4f(o.x) < mnx) | (vec4f(o.x) > mxx));
  let outY = vec4<bool>(frame.par.y) & ((vec4f(o.y) < mny) | (vec4f(o.y) > mxy));
  let outZ = vec4<bool>(frame.par.z) & ((vec4f(o.z) < mnz) | (vec4f(o.z) > mxz));
  let x1 = (mnx - o.x) * frame.inv.x;
  let x2 = (mxx - o.x) * frame.inv.x;
  let y1 = (mny - o.y) * frame.inv.y;
  let y2 = (mxy - o.y) * frame.inv.y;
  let z1 = (mnz - o.z) * frame.inv.z;
  let z2 = (mxz - o.z) * frame.inv.z;
  let loX = select(min(x1, x2), vec4f(-F32_MAX), vec4<bool>(frame.par.x));
  let loY = select(min(y1, y2), vec4f(-F32_MAX), vec4<bool>(frame.par.y));
  let loZ = select(min(z1, z2), vec4f(-F32_MAX), vec4<bool>(frame.par.z));
  let hiX = select(max(x1, x2), vec4f(F32_MAX), vec4<bool>(frame.par.x));
  let hiY = select(max(y1, y2), vec4f(F32_MAX), vec4<bool>(frame.par.y));
  let hiZ = select(max(z1, z2), vec4f(F32_MAX), vec4<bool>(frame.par.z));
  let tIn = max(max(loX, loY), max(loZ, vec4f(0.0)));
  let tOut = min(min(hiX, hiY), hiZ);
  let hit = used & !(outX | outY | outZ) & (tIn <= tOut) & (tIn <= vec4f(limit));
  return select(vec4f(-1.0), tIn, hit);
}

// Tests the box of leaf pointer c (closest or any).
fn walkLeaf(anyMode: bool, ray: Ray, c: u32, solid: bool, walk: ptr<function, Walk>) {
  let i = c & ~BVH_LEAF;
  if (anyMode) {
    if (visitAny(ray, i, loadBox(i), solid)) {
      (*walk).found = true;
    }
  } else {
    visitClosest(ray, i, loadBox(i), solid, &(*walk).best);
  }
}

// Sorts (t, p) by t descending, four entries (a sorting network; the misses, −1, go last),
// branch-free: each exchange a select, so the lanes of a SIMD group never diverge here.
fn sortEntries(t: ptr<function, vec4f>, p: ptr<function, vec4u>) {
  // (0, 1), (2, 3), (0, 2), (1, 3), (1, 2): each pair put in descending order.
  var s = vec4<bool>((*t).y > (*t).x, (*t).y > (*t).x, (*t).w > (*t).z, (*t).w > (*t).z);
  *t = select(*t, (*t).yxwz, s);
  *p = select(*p, (*p).yxwz, s);
  s = vec4<bool>((*t).z > (*t).x, (*t).w > (*t).y, (*t).z > (*t).x, (*t).w > (*t).y);
  *t = select(*t, (*t).zwxy, s);
  *p = select(*p, (*p).zwxy, s);
  let m = (*t).z > (*t).y;
  s = vec4<bool>(false, m, m, false);
  *t = select(*t, (*t).xzyw, s);
  *p = select(*p, (*p).xzyw, s);
}

// A walk's stack of records to visit with their entry distances (the root's record first). Three
// slots past BVH_STACK: a step writes all four of its entries (walkStep) from at most
// BVH_STACK − 1 up.
struct WalkStack {
  node: array<u32, BVH_STACK + 3u>,
  t: array<f32, BVH_STACK + 3u>,
  sp: u32,
}

// Starts a walk at the root's record (its entries' AABBs decide; the root's own adds nothing).
fn startWalk(stack: ptr<function, WalkStack>) {
  (*stack).node[0] = 0u;
  (*stack).t[0] = 0.0;
  (*stack).sp = 1u;
}

// One step of a closest-hit (anyMode = false) or any-hit (anyMode = true) walk with records on
// its stack: pops a record (dropped when its entry distance is beyond the best t), tests its
// leaves' boxes (each may lower the best t), then pushes its internal entries still within
// reach, farthest first, so the nearest is popped next. False when the walk is over early: a hit
// found (any) or the stack outgrown (overflowed).
fn walkStep(anyMode: bool, ray: Ray, frame: RayFrame, solid: bool, walk: ptr<function, Walk>, stack: ptr<function, WalkStack>) -> bool {
  var limit = ray.maxDistance;
  if (!anyMode) {
    limit = min(limit, (*walk).best.t);
  }
  if (!popLive(stack, limit)) {
    return true;
  }
  if (WALK_COUNTS) {
    (*walk).steps += 1u;
  }
  let record = wideRecord((*stack).node[(*stack).sp]);
  let t = wideEntries(ray.origin, frame, record, limit);
  let p = record.ptrs;
  let leaf = (p & vec4u(BVH_LEAF)) != vec4u(0u);
  // One box test per leaf met: a SIMD group runs as many tests as its busiest lane needs, not
  // one per entry.
  var bits = leavesMet(t, leaf);
  while (bits != 0u) {
    let k = firstTrailingBit(bits);
    bits &= bits - 1u;
    if (WALK_COUNTS) {
      (*walk).boxTests += 1u;
    }
    walkLeaf(anyMode, ray, p[k], solid, walk);
    if ((*walk).found) {
      return false;
    }
  }
  if (!anyMode) {
    limit = min(limit, (*walk).best.t);
  }
  if (!pushEntries(stack, select(vec4f(-1.0), t, !leaf & (t <= vec4f(limit))), p)) {
    (*walk).overflowed = true;
    return false;
  }
  return true;
}

// The entries of a record's leaves that the ray meets (entry t >= 0), as a bit mask (bit k:
// entry k).
fn leavesMet(t: vec4f, leaf: vec4<bool>) -> u32 {
  let met = leaf & (t >= vec4f(0.0));
  return select(0u, 1u, met.x) | select(0u, 2u, met.y) | select(0u, 4u, met.z) | select(0u, 8u, met.w);
}

// Pops the stack down to its top record within reach (entry distance <= limit), which stays at
// (*stack).node[(*stack).sp]; false when none is left. A record popped beyond the best t is
// dropped in this small loop, not in a whole step (on a CPU adapter a step's code runs for every
// lane of its SIMD group whether it needs it or not).
fn popLive(stack: ptr<function, WalkStack>, limit: f32) -> bool {
  var sp = (*stack).sp;
  var live = false;
  while (sp > 0u && !live) {
    sp -= 1u;
    live = !((*stack).t[sp] > limit);
  }
  (*stack).sp = sp;
  return live;
}

// Pushes the entries of a popped record (at (*stack).sp) whose t is not −1, farthest first, so
// the nearest is popped next; false (nothing pushed) when they would outgrow BVH_STACK.
fn pushEntries(stack: ptr<function, WalkStack>, entries: vec4f, ptrs: vec4u) -> bool {
  var t = entries;
  var p = ptrs;
  sortEntries(&t, &p);
  let sp = (*stack).sp;
  let pushes = select(0u, 1u, t.x >= 0.0) + select(0u, 1u, t.y >= 0.0) + select(0u, 1u, t.z >= 0.0) + select(0u, 1u, t.w >= 0.0);
  if (sp + pushes > BVH_STACK) {
    return false;
  }
  // Farthest first (sorted descending; the misses, −1, at the end): all four written and the top
  // moved past the hits, branch-free (a loop or a test per entry would run on every step of a
  // CPU adapter's SIMD group, taken or not); the misses above the top are overwritten later.
  (*stack).node[sp] = p.x;
  (*stack).t[sp] = t.x;
  (*stack).node[sp + 1u] = p.y;
  (*stack).t[sp + 1u] = t.y;
  (*stack).node[sp + 2u] = p.z;
  (*stack).t[sp + 2u] = t.z;
  (*stack).node[sp + 3u] = p.w;
  (*stack).t[sp + 3u] = t.w;
  (*stack).sp = sp + pushes;
  return true;
}

// Closest hit (anyMode = false) or any hit (anyMode = true, stops at the first hit) of one ray:
// walkStep until the stack is empty or the walk is over.
fn walkTree(anyMode: bool, ray: Ray, solid: bool, walk: ptr<function, Walk>) {
  if (params.boxCount == 0u) {
    return;
  }
  if (params.boxCount == 1u) {
    if (WALK_COUNTS) {
      (*walk).boxTests = 1u;
    }
    walkLeaf(anyMode, ray, BVH_LEAF, solid, walk);
    return;
  }
  let frame = rayFrame(ray.direction);
  var stack: WalkStack;
  startWalk(&stack);
  while (stack.sp > 0u) {
    if (!walkStep(anyMode, ray, frame, solid, walk, &stack)) {
      return;
    }
  }
}

// Every hit of one ray (appended by visitAll). False on overflow.
fn walkTreeAll(ray: Ray, r: u32, solid: bool) -> bool {
  if (params.boxCount <= 1u) {
    if (params.boxCount == 1u) {
      visitAll(ray, r, 0u, loadBox(0u), solid);
    }
    return true;
  }
  let frame = rayFrame(ray.direction);
  var stack: array<u32, BVH_STACK>;
  stack[0] = 0u;
  var sp = 1u;
  while (sp > 0u) {
    sp -= 1u;
    let w = stack[sp];
    let record = wideRecord(w);
    let t = wideEntries(ray.origin, frame, record, ray.maxDistance);
    let p = record.ptrs;
    for (var k = 0u; k < 4u; k++) {
      if (t[k] < 0.0) {
        continue;
      }
      if ((p[k] & BVH_LEAF) != 0u) {
        visitAll(ray, r, p[k] & ~BVH_LEAF, loadBox(p[k] & ~BVH_LEAF), solid);
      } else {
        if (sp >= BVH_STACK) {
          return false;
        }
        stack[sp] = p[k];
        sp += 1u;
      }
    }
  }
  return true;
}

fn newWalk() -> Walk {
  return Walk(Hit(F32_MAX, NO_BOX, FACE_NONE, 0u), false, false, 0u, 0u);
}

// Ray r's closest-hit walk, its hit written (an overflow flagged and counted; the host answers
// that ray by the reference).
fn closestWalk(r: u32) -> Walk {
  let ray = rays[r];
  var walk = newWalk();
  walkTree(false, ray, (params.flags & RAY_OPT_NOT_SOLID) == 0u, &walk);
  storeClosest(r, &walk);
  writeGeometry(r, ray, walk.best);
  return walk;
}

// Stores ray r's closest hit when its walk is over (an overflowed walk flagged and counted).
fn storeClosest(r: u32, walk: ptr<function, Walk>) {
  if ((*walk).overflowed) {
    (*walk).best.flags |= HIT_FLAG_OVERFLOW;
    atomicAdd(&overflowCount, 1u);
  }
  hits[r] = (*walk).best;
}

// Rays a lane of a closest-hit kernel walks one after another (bvhClosestHit in rays/tree.wgsl,
// bvhClosestHitSubgroup in rays/tree_subgroup.wgsl): lane l takes rays l, l + L, l + 2L, … (L
// lanes in all), starting the next as soon as one ends, in one loop. A SIMD group then runs as
// many steps as its busiest lane's rays need together, not the sum of each ray's busiest lane:
// on a CPU adapter (SwiftShader runs a group of lanes in lockstep, every lane through the
// longest walk) that is fewer steps; on a GPU, 1 keeps every ray its own invocation. The host
// sizes the dispatch by it (RayKernelTuning.raysPerLane).
override RAYS_PER_LANE: u32 = 1u;

// (lane, lanes) of a several-rays-per-lane closest-hit kernel's invocation; lane >= lanes when it
// has nothing (left) to walk: beyond the batch, or a set of at most one box, whose rays it
// answers here one by one (no tree).
fn closestLane(lid: u32, wid: vec3u, nwg: vec3u) -> vec2u {
  let lane = rayIndexOf(lid, wid, nwg);
  let lanes = (params.rayCount + RAYS_PER_LANE - 1u) / RAYS_PER_LANE;
  if (lane < lanes && params.boxCount <= 1u) {
    for (var r = lane; r < params.rayCount; r += lanes) {
      _ = closestWalk(r);
    }
    return vec2u(lanes, lanes);
  }
  return vec2u(lane, lanes);
}

// The hit geometry of a lane's rays (when asked), from the hits their walks stored: after the
// walks' loop, which then does not carry it.
fn writeLaneGeometry(lane: u32, lanes: u32) {
  if (GEOMETRY && (params.flags & RAY_OPT_GEOMETRY) != 0u) {
    for (var q = lane; q < params.rayCount; q += lanes) {
      writeGeometry(q, rays[q], hits[q]);
    }
  }
}
