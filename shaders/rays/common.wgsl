// rays/common.wgsl — what every ray kernel shares: the batch's bindings and the per-box steps
// of the three queries (filters, the slab test with the optional sphere cull, the tie rule),
// linked before rays/brute.wgsl, rays/tree_walk.wgsl and lidar/tree.wgsl.
// Bindings (group 0, by name; numbers are the table's business, src/runtime/kernels.generated.ts):
//   params: RayParams (uniform); boxes: array<Obb>; boxMasks: array<u32> (read only when
//   RAY_OPT_BOX_MASKS is set); rays: array<Ray>; closest hit: hits: array<Hit>, geometry:
//   array<HitGeometry> (written when RAY_OPT_GEOMETRY is set); any hit: anyFlags: array<u32>;
//   all hits: records: array<HitRecord>, counter: atomic<u32>.
// Workgroup size: override WG (default 64). Dispatch: a 2D grid (x ≤ 65,535) covers more than
// 65,535 workgroups; rays are numbered (wid.x + wid.y × nwg.x) × WG + lid.
// CPU twins: closestHit / anyHit / allHits in src/reference/raycast.ts (same filters, same tie
// rule), the slab test rayObbLocal in src/reference/query/rayObb.ts.

override WG: u32 = 64u;
// Tuning knobs, set per adapter by the host (src/rays/RayQueries.ts): stage boxes in workgroup
// memory (TILED) and try the bounding-sphere early-out before each slab test (CULL). Both pay
// on GPUs that share loads across a workgroup and branch per warp; on a CPU implementation such
// as SwiftShader, which runs every lane through both sides of a branch and emulates barriers,
// the plain loop is faster. The answers are the same either way (the tests run both).
override TILED: bool = true;
override CULL: bool = true;
// The optional parts of a query, compiled in only where it may use them (set per pipeline by the
// host from the same RAY_OPT bits it writes into params.flags; true keeps the runtime test of the
// bit alone). On a CPU adapter every instruction of a loop body runs on every iteration, masked
// off or not, so a part a query does not use costs it anyway unless it is compiled out: the box
// masks' load in every box test, and the hit geometry in the tree walk's loop (shaders/rays/tree.wgsl).
override BOX_MASKS: bool = true;
override GEOMETRY: bool = true;

@group(0) @binding(0) var<uniform> params: RayParams;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> boxMasks: array<u32>;
@group(0) @binding(3) var<storage, read> rays: array<Ray>;
@group(0) @binding(4) var<storage, read_write> hits: array<Hit>;
@group(0) @binding(5) var<storage, read_write> geometry: array<HitGeometry>;
@group(0) @binding(6) var<storage, read_write> anyFlags: array<u32>;
@group(0) @binding(7) var<storage, read_write> records: array<HitRecord>;
@group(0) @binding(8) var<storage, read_write> counter: atomic<u32>;

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

// Box i read straight from storage (the untiled path).
fn loadBox(i: u32) -> TileBox {
  var mask = 0xffffffffu;
  if (BOX_MASKS && (params.flags & RAY_OPT_BOX_MASKS) != 0u) {
    mask = boxMasks[i];
  }
  return tileBoxOf(boxes[i], mask);
}

// A box as the per-box steps read it: with w and, when CULL, its radius.
fn tileBoxOf(b: Obb, mask: u32) -> TileBox {
  let h = vec3f(b.hx, b.hy, b.hz);
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
  return ((ray.mask & boxMask) != 0u) & (ray.exclude != boxIndex);
}

fn tileCount(base: u32) -> u32 {
  return min(BOX_TILE, params.boxCount - base);
}

// Per-box steps of the three queries, shared by the tiled and the untiled loops.
fn visitClosest(ray: Ray, i: u32, b: TileBox, solid: bool, best: ptr<function, Hit>) {
  // Nothing beyond the best hit so far can win (a tie needs an equal t, which the cull's margin
  // keeps), nor beyond maxDistance. Smallest t wins; an equal t goes to the smaller index (the
  // brute-force loop visits boxes in index order, the BVH does not). Branch-free (selects): see
  // rayObbLocal.
  let h = testBox(ray, b, min(ray.maxDistance, (*best).t), solid);
  let take = rayAccepts(ray, i, b.mask) & ((h.flags & HIT_FLAG_HIT) != 0u) &
      (((*best).box == NO_BOX) | (h.t < (*best).t) | ((h.t == (*best).t) & (i < (*best).box)));
  *best = Hit(select((*best).t, h.t, take), select((*best).box, i, take), select((*best).face, h.face, take), select((*best).flags, h.flags, take));
}

fn visitAny(ray: Ray, i: u32, b: TileBox, solid: bool) -> bool {
  return rayAccepts(ray, i, b.mask) & ((testBox(ray, b, ray.maxDistance, solid).flags & HIT_FLAG_HIT) != 0u);
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

// Writes ray r's closest hit, and with RAY_OPT_GEOMETRY its world-relative point and the
// outward normal of the entered face (zero for a miss or a solid inside hit).
fn writeHit(r: u32, ray: Ray, best: Hit) {
  hits[r] = best;
  writeGeometry(r, ray, best);
}

// The geometry part of writeHit alone.
fn writeGeometry(r: u32, ray: Ray, best: Hit) {
  if (GEOMETRY && (params.flags & RAY_OPT_GEOMETRY) != 0u) {
    var g = HitGeometry(vec3f(0.0), best.t, vec3f(0.0), best.box);
    if (best.box != NO_BOX) {
      g.point = ray.origin + best.t * ray.direction;
      g.normal = obbFaceNormal(boxes[best.box], best.face);
    }
    geometry[r] = g;
  }
}
