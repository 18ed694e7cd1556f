// ray_obb_batch.wgsl — rays × box set, brute force with workgroup-memory tiling.
// Entry points: closestHit, anyHit, allHits (one invocation per ray).
// Bindings (group 0): 0 params: RayParams (uniform); 1 boxes: array<Obb>; 2 boxMasks: array<u32>
//   (read only when RAY_OPT_BOX_MASKS is set); 3 rays: array<Ray>; closestHit: 4 hits: array<Hit>,
//   5 geometry: array<HitGeometry> (written when RAY_OPT_GEOMETRY is set); anyHit: 6 flags:
//   array<u32>; allHits: 7 records: array<HitRecord>, 8 counter: atomic<u32>.
// Workgroup size: override WG (default 64). Each workgroup stages BOX_TILE boxes at a time in
// workgroup memory, so every box is read from storage once per workgroup, not once per ray.
// Dispatch: a 2D grid (x ≤ 65,535) covers more than 65,535 workgroups; rays are numbered
// (wid.x + wid.y × nwg.x) × WG + lid. CPU twins: closestHit/anyHit/allHits in src/reference/raycast.ts.

override WG: u32 = 64u;
// Tuning knobs, set per adapter by the host (src/gpu/RayQueries.ts): stage boxes in workgroup
// memory (TILED) and try the bounding-sphere early-out before each slab test (CULL). Both pay
// on GPUs that share loads across a workgroup and branch per warp; on a CPU implementation such
// as SwiftShader, which runs every lane through both sides of a branch and emulates barriers,
// the plain loop is faster. The answers are the same either way (the tests run both).
override TILED: bool = true;
override CULL: bool = true;

@group(0) @binding(0) var<uniform> params: RayParams;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> boxMasks: array<u32>;
@group(0) @binding(3) var<storage, read> rays: array<Ray>;
@group(0) @binding(4) var<storage, read_write> hits: array<Hit>;
@group(0) @binding(5) var<storage, read_write> geometry: array<HitGeometry>;
@group(0) @binding(6) var<storage, read_write> anyFlags: array<u32>;
@group(0) @binding(7) var<storage, read_write> records: array<HitRecord>;
@group(0) @binding(8) var<storage, read_write> counter: atomic<u32>;
// BVH traversal (shaders/bvh/build.wgsl builds the tree over `boxes`).
@group(0) @binding(9) var<storage, read> nodes: array<BvhNode>;
@group(0) @binding(10) var<storage, read_write> overflowCount: atomic<u32>;
// LiDAR: the sensor and its scan tables (azimuth cos/sin, then elevation cos/sin), and outputs.
@group(0) @binding(11) var<uniform> lidar: LidarParams;
@group(0) @binding(12) var<storage, read> lidarTables: array<vec2f>;
@group(0) @binding(13) var<storage, read_write> lidarRange: array<f32>;
@group(0) @binding(14) var<storage, read_write> lidarBox: array<u32>;
@group(0) @binding(15) var<storage, read_write> lidarPoints: array<vec4f>;

// A box as staged in workgroup memory: w and the bounding-sphere radius computed once per
// workgroup instead of once per ray.
struct TileBox {
  center: vec3f,
  radius: f32,
  u: vec3f,
  mask: u32,
  v: vec3f,
  w: vec3f,
  h: vec3f,
}

var<workgroup> tile: array<TileBox, BOX_TILE>;

fn rayIndexOf(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + lid;
}

// Stages boxes [base, base + BOX_TILE) in workgroup memory. Called in uniform control flow.
fn loadTile(base: u32, lid: u32) {
  for (var k = lid; k < BOX_TILE; k += WG) {
    let i = base + k;
    if (i < params.boxCount) {
      tile[k] = loadBox(i);
    }
  }
}

// Box i read straight from storage (the untiled path), with w and, when CULL, its radius.
fn loadBox(i: u32) -> TileBox {
  let b = boxes[i];
  let h = vec3f(b.hx, b.hy, b.hz);
  var mask = 0xffffffffu;
  if ((params.flags & RAY_OPT_BOX_MASKS) != 0u) {
    mask = boxMasks[i];
  }
  var radius = 0.0;
  if (CULL) {
    radius = length(h);
  }
  return TileBox(b.center, radius, b.u, mask, b.v, obbW(b), h);
}

// The slab test against a box (after the filters and, when CULL, the conservative sphere cull).
fn testBox(ray: Ray, b: TileBox, tLimit: f32, solid: bool) -> RayBoxHit {
  if (CULL && raySphereCull(ray.origin, ray.direction, b.center, b.radius, tLimit)) {
    return RayBoxHit(0.0, FACE_NONE, 0u);
  }
  return rayObbAxes(ray.origin, ray.direction, ray.maxDistance, b.center, b.u, b.v, b.w, b.h, solid);
}

// Stages the next tile (uniform control flow: TILED is an override constant).
fn stage(base: u32, lid: u32) {
  workgroupBarrier();
  loadTile(base, lid);
  workgroupBarrier();
}

// The filters every ray query applies before the slab test.
fn rayAccepts(ray: Ray, boxIndex: u32, boxMask: u32) -> bool {
  return (ray.mask & boxMask) != 0u && ray.exclude != boxIndex;
}

fn tileCount(base: u32) -> u32 {
  return min(BOX_TILE, params.boxCount - base);
}

// Per-box steps of the three queries, shared by the tiled and the untiled loops.
fn visitClosest(ray: Ray, i: u32, b: TileBox, solid: bool, best: ptr<function, Hit>) {
  if (!rayAccepts(ray, i, b.mask)) {
    return;
  }
  // Nothing beyond the best hit so far can win (a tie needs an equal t, which the cull's margin
  // keeps), nor beyond maxDistance.
  let h = testBox(ray, b, min(ray.maxDistance, (*best).t), solid);
  // Smallest t wins; an equal t goes to the smaller index (the brute-force loop visits boxes in
  // index order, the BVH does not).
  if ((h.flags & HIT_FLAG_HIT) != 0u &&
      ((*best).box == NO_BOX || h.t < (*best).t || (h.t == (*best).t && i < (*best).box))) {
    *best = Hit(h.t, i, h.face, h.flags);
  }
}

fn visitAny(ray: Ray, i: u32, b: TileBox, solid: bool) -> bool {
  return rayAccepts(ray, i, b.mask) && (testBox(ray, b, ray.maxDistance, solid).flags & HIT_FLAG_HIT) != 0u;
}

fn visitAll(ray: Ray, r: u32, i: u32, b: TileBox, solid: bool) {
  if (!rayAccepts(ray, i, b.mask)) {
    return;
  }
  let h = testBox(ray, b, ray.maxDistance, solid);
  if ((h.flags & HIT_FLAG_HIT) != 0u) {
    // The counter keeps counting past capacity; the host re-runs with a larger buffer.
    let slot = atomicAdd(&counter, 1u);
    if (slot < params.capacity) {
      records[slot] = HitRecord(r, i, h.t, h.face | (h.flags << 8u));
    }
  }
}

@compute @workgroup_size(WG)
fn closestHit(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  let live = r < params.rayCount;
  var ray: Ray;
  if (live) {
    ray = rays[r];
  }
  let solid = (params.flags & RAY_OPT_NOT_SOLID) == 0u;
  var best = Hit(F32_MAX, NO_BOX, FACE_NONE, 0u);
  if (TILED) {
    for (var base = 0u; base < params.boxCount; base += BOX_TILE) {
      stage(base, lid);
      if (live) {
        let n = tileCount(base);
        for (var k = 0u; k < n; k++) {
          visitClosest(ray, base + k, tile[k], solid, &best);
        }
      }
    }
  } else if (live) {
    for (var i = 0u; i < params.boxCount; i++) {
      visitClosest(ray, i, loadBox(i), solid, &best);
    }
  }
  if (!live) {
    return;
  }
  hits[r] = best;
  if ((params.flags & RAY_OPT_GEOMETRY) != 0u) {
    var g = HitGeometry(vec3f(0.0), best.t, vec3f(0.0), best.box);
    if (best.box != NO_BOX) {
      g.point = ray.origin + best.t * ray.direction;
      g.normal = obbFaceNormal(boxes[best.box], best.face);
    }
    geometry[r] = g;
  }
}

@compute @workgroup_size(WG)
fn anyHit(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  let live = r < params.rayCount;
  var ray: Ray;
  if (live) {
    ray = rays[r];
  }
  let solid = (params.flags & RAY_OPT_NOT_SOLID) == 0u;
  var found = false;
  if (TILED) {
    for (var base = 0u; base < params.boxCount; base += BOX_TILE) {
      stage(base, lid);
      if (live && !found) {
        let n = tileCount(base);
        for (var k = 0u; k < n; k++) {
          if (visitAny(ray, base + k, tile[k], solid)) {
            found = true;
            break;
          }
        }
      }
    }
  } else if (live) {
    for (var i = 0u; i < params.boxCount; i++) {
      if (visitAny(ray, i, loadBox(i), solid)) {
        found = true;
        break;
      }
    }
  }
  if (live) {
    anyFlags[r] = select(0u, 1u, found);
  }
}

@compute @workgroup_size(WG)
fn allHits(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  let live = r < params.rayCount;
  var ray: Ray;
  if (live) {
    ray = rays[r];
  }
  let solid = (params.flags & RAY_OPT_NOT_SOLID) == 0u;
  if (TILED) {
    for (var base = 0u; base < params.boxCount; base += BOX_TILE) {
      stage(base, lid);
      if (live) {
        let n = tileCount(base);
        for (var k = 0u; k < n; k++) {
          visitAll(ray, r, base + k, tile[k], solid);
        }
      }
    }
  } else if (live) {
    for (var i = 0u; i < params.boxCount; i++) {
      visitAll(ray, r, i, loadBox(i), solid);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// BVH traversal: the same per-box steps (filters, slab test, tie rule) over the boxes whose
// parents' AABBs the ray meets. Internal nodes only are pushed; leaf children are tested when
// their parent is visited. Ordered (nearer child first) with pruning by the best t so far.

// Entry distance of the ray into an AABB, or -1 when it misses. inv is 1/d where |d| >= EPS_DIR
// (so |inv| <= 1e9 and every product below stays finite) and 0 on the axes where par is set (|d| <
// EPS_DIR: rayFrame divides by 1 there); those axes are decided by containment instead. No
// division by zero and no infinity, which WGSL does not guarantee.
fn rayAabbEntry(o: vec3f, inv: vec3f, par: vec3<bool>, mn: vec3f, mx: vec3f) -> f32 {
  let within = (o >= mn) & (o <= mx);
  if (any(par & !within)) {
    return -1.0;
  }
  let t1 = (mn - o) * inv;
  let t2 = (mx - o) * inv;
  let lo = select(min(t1, t2), vec3f(-F32_MAX), par);
  let hi = select(max(t1, t2), vec3f(F32_MAX), par);
  let tIn = max(max(lo.x, lo.y), max(lo.z, 0.0));
  let tOut = min(min(hi.x, hi.y), hi.z);
  if (tIn > tOut) {
    return -1.0;
  }
  return tIn;
}

struct RayFrame {
  inv: vec3f,
  par: vec3<bool>,
}

fn rayFrame(d: vec3f) -> RayFrame {
  let par = abs(d) < vec3f(EPS_DIR);
  return RayFrame(select(vec3f(1.0) / select(d, vec3f(1.0), par), vec3f(0.0), par), par);
}

// The traversal state of one ray: the best hit (closest), whether anything was hit (any),
// whether the stack overflowed.
struct Walk {
  best: Hit,
  found: bool,
  overflowed: bool,
}

// Up to two internal children to push, nearer first.
struct Pending {
  first: u32,
  second: u32,
  count: u32,
  tFirst: f32,
}

// Keeps internal child c when the ray meets its AABB no farther than `limit` (<=: an AABB entry
// equal to the best t may still hold an equal t at a smaller index).
fn considerChild(ray: Ray, frame: RayFrame, c: u32, limit: f32, pend: ptr<function, Pending>) {
  let child = nodes[c];
  let t = rayAabbEntry(ray.origin, frame.inv, frame.par, child.min, child.max);
  if (t < 0.0 || t > limit) {
    return;
  }
  if ((*pend).count == 0u) {
    (*pend).first = c;
    (*pend).tFirst = t;
  } else if (t < (*pend).tFirst) {
    (*pend).second = (*pend).first;
    (*pend).first = c;
  } else {
    (*pend).second = c;
  }
  (*pend).count += 1u;
}

// Pushes the farther child first, so the nearer one is popped next. False on overflow.
fn pushPending(stack: ptr<function, array<u32, BVH_STACK>>, sp: ptr<function, u32>, pend: Pending) -> bool {
  if (*sp + pend.count > BVH_STACK) {
    return false;
  }
  if (pend.count == 2u) {
    (*stack)[*sp] = pend.second;
    *sp += 1u;
  }
  if (pend.count >= 1u) {
    (*stack)[*sp] = pend.first;
    *sp += 1u;
  }
  return true;
}

// Tests one child of a node: a leaf is tested at once (closest or any), an internal child
// returns its AABB entry distance (or -1 when the ray misses it or meets it beyond `limit`).
fn walkChild(anyMode: bool, ray: Ray, frame: RayFrame, c: u32, limit: f32, solid: bool, walk: ptr<function, Walk>) -> f32 {
  if ((c & BVH_LEAF) != 0u) {
    let i = c & ~BVH_LEAF;
    if (anyMode) {
      if (visitAny(ray, i, loadBox(i), solid)) {
        (*walk).found = true;
      }
    } else {
      visitClosest(ray, i, loadBox(i), solid, &(*walk).best);
    }
    return -1.0;
  }
  let child = nodes[c];
  let t = rayAabbEntry(ray.origin, frame.inv, frame.par, child.min, child.max);
  // <= keeps a child whose entry equals the best t: it may hold an equal t at a smaller index.
  return select(-1.0, t, t <= limit);
}

// Closest hit (anyMode = false) or any hit (anyMode = true, stops at the first hit). Ordered
// walk: the nearer child is visited first, each stacked node with its entry distance, so a node
// the best hit has since passed is dropped without reading it.
fn walkTree(anyMode: bool, ray: Ray, solid: bool, walk: ptr<function, Walk>) {
  if (params.boxCount == 0u) {
    return;
  }
  if (params.boxCount == 1u) {
    if (anyMode) {
      (*walk).found = visitAny(ray, 0u, loadBox(0u), solid);
    } else {
      visitClosest(ray, 0u, loadBox(0u), solid, &(*walk).best);
    }
    return;
  }
  let frame = rayFrame(ray.direction);
  var stackNode: array<u32, BVH_STACK>;
  var stackT: array<f32, BVH_STACK>;
  let root = nodes[0];
  stackT[0] = rayAabbEntry(ray.origin, frame.inv, frame.par, root.min, root.max);
  if (stackT[0] < 0.0) {
    return;
  }
  var sp = 1u;
  while (sp > 0u) {
    sp -= 1u;
    var limit = ray.maxDistance;
    if (!anyMode) {
      limit = min(limit, (*walk).best.t);
    }
    if (stackT[sp] > limit) {
      continue;
    }
    let node = nodes[stackNode[sp]];
    let tl = walkChild(anyMode, ray, frame, node.left, limit, solid, walk);
    if ((*walk).found) {
      return;
    }
    if (!anyMode) {
      limit = min(limit, (*walk).best.t);
    }
    let tr = walkChild(anyMode, ray, frame, node.right, limit, solid, walk);
    if ((*walk).found) {
      return;
    }
    let pushes = select(0u, 1u, tl >= 0.0) + select(0u, 1u, tr >= 0.0);
    if (sp + pushes > BVH_STACK) {
      (*walk).overflowed = true;
      return;
    }
    // Farther child first, so the nearer one is popped next.
    if (tl >= 0.0 && tr >= 0.0) {
      let leftFirst = tl <= tr;
      stackNode[sp] = select(node.left, node.right, leftFirst);
      stackT[sp] = select(tl, tr, leftFirst);
      stackNode[sp + 1u] = select(node.right, node.left, leftFirst);
      stackT[sp + 1u] = select(tr, tl, leftFirst);
      sp += 2u;
    } else if (tl >= 0.0) {
      stackNode[sp] = node.left;
      stackT[sp] = tl;
      sp += 1u;
    } else if (tr >= 0.0) {
      stackNode[sp] = node.right;
      stackT[sp] = tr;
      sp += 1u;
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
    let node = nodes[stack[sp]];
    let tNode = rayAabbEntry(ray.origin, frame.inv, frame.par, node.min, node.max);
    if (tNode < 0.0 || tNode > ray.maxDistance) {
      continue;
    }
    var pend = Pending(0u, 0u, 0u, 0.0);
    for (var side = 0u; side < 2u; side++) {
      let c = select(node.right, node.left, side == 0u);
      if ((c & BVH_LEAF) == 0u) {
        considerChild(ray, frame, c, ray.maxDistance, &pend);
      } else {
        visitAll(ray, r, c & ~BVH_LEAF, loadBox(c & ~BVH_LEAF), solid);
      }
    }
    if (!pushPending(&stack, &sp, pend)) {
      return false;
    }
  }
  return true;
}

fn newWalk() -> Walk {
  return Walk(Hit(F32_MAX, NO_BOX, FACE_NONE, 0u), false, false);
}

@compute @workgroup_size(WG)
fn bvhClosestHit(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  if (r >= params.rayCount) {
    return;
  }
  let ray = rays[r];
  var walk = newWalk();
  walkTree(false, ray, (params.flags & RAY_OPT_NOT_SOLID) == 0u, &walk);
  if (walk.overflowed) {
    walk.best.flags |= HIT_FLAG_OVERFLOW;
    atomicAdd(&overflowCount, 1u);
  }
  let best = walk.best;
  hits[r] = best;
  if ((params.flags & RAY_OPT_GEOMETRY) != 0u) {
    var g = HitGeometry(vec3f(0.0), best.t, vec3f(0.0), best.box);
    if (best.box != NO_BOX) {
      g.point = ray.origin + best.t * ray.direction;
      g.normal = obbFaceNormal(boxes[best.box], best.face);
    }
    geometry[r] = g;
  }
}

@compute @workgroup_size(WG)
fn bvhAnyHit(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  if (r >= params.rayCount) {
    return;
  }
  var walk = newWalk();
  walkTree(true, rays[r], (params.flags & RAY_OPT_NOT_SOLID) == 0u, &walk);
  // 2 = the walk overflowed before finding anything (the host answers that ray by brute force).
  var flag = select(0u, 1u, walk.found);
  if (walk.overflowed && !walk.found) {
    flag = 2u;
    atomicAdd(&overflowCount, 1u);
  }
  anyFlags[r] = flag;
}

@compute @workgroup_size(WG)
fn bvhAllHits(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  if (r >= params.rayCount) {
    return;
  }
  let complete = walkTreeAll(rays[r], r, (params.flags & RAY_OPT_NOT_SOLID) == 0u);
  // Per-ray overflow marks (the host drops that ray's records and redoes it by brute force).
  anyFlags[r] = select(1u, 0u, complete);
  if (!complete) {
    atomicAdd(&overflowCount, 1u);
  }
}

// LiDAR: ray (channel c, azimuth a) = index c · azimuths + a, generated here from the pose and
// the host's cos/sin tables (float64 trigonometry rounded once; WGSL's sin/cos are only good to
// about 2^-11). Writes a range image (LIDAR_NO_RETURN for no return), the box hit, and a point
// (xyz relative to the set's floating origin, w = 1 for a return, 0 otherwise) usable as a
// vertex buffer, when RAY_OPT_GEOMETRY is set. Closest hit with the same rules as bvhClosestHit.
@compute @workgroup_size(WG)
fn bvhLidar(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  if (r >= lidar.channels * lidar.azimuths) {
    return;
  }
  let c = r / lidar.azimuths;
  let a = r % lidar.azimuths;
  let az = lidarTables[a];
  let el = lidarTables[lidar.azimuths + c];
  let local = vec3f(el.x * az.x, el.x * az.y, el.y);
  let direction = normalize(local.x * lidar.axisX + local.y * lidar.axisY + local.z * lidar.axisZ);
  let ray = Ray(lidar.origin, lidar.maxRange, direction, lidar.mask, NO_BOX);
  var walk = newWalk();
  walkTree(false, ray, true, &walk);
  if (walk.overflowed) {
    atomicAdd(&overflowCount, 1u);
  }
  let best = walk.best;
  if (best.box == NO_BOX || walk.overflowed) {
    lidarRange[r] = LIDAR_NO_RETURN;
    lidarBox[r] = select(NO_BOX, NO_BOX - 1u, walk.overflowed);
    if ((params.flags & RAY_OPT_GEOMETRY) != 0u) {
      lidarPoints[r] = vec4f(0.0);
    }
    return;
  }
  lidarRange[r] = best.t;
  lidarBox[r] = best.box;
  if ((params.flags & RAY_OPT_GEOMETRY) != 0u) {
    lidarPoints[r] = vec4f(ray.origin + best.t * direction, 1.0);
  }
}
