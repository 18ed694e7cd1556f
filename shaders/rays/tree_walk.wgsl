// rays/tree_walk.wgsl — a ray's walk down the BVH (shaders/tree/build.wgsl builds it over
// `boxes`): the same per-box steps as brute force (rays/common.wgsl: filters, slab test, tie
// rule) over the boxes whose parents' AABBs the ray meets. Internal nodes only are pushed; leaf
// children are tested when their parent is visited. Ordered (nearer child first) with pruning by
// the best t so far. Linked by rays/tree.wgsl and lidar/tree.wgsl.
// Bindings: nodes: array<BvhNode> (the tree's internal nodes); overflowCount: atomic<u32> (walks
// that outgrew BVH_STACK; the host answers those rays by the reference).
// CPU twins: a walk finds what brute force finds (closestHit / anyHit / allHits in
// src/reference/raycast.ts; the reference's own accelerated closestHitGrid in src/reference/accel.ts).

@group(0) @binding(9) var<storage, read> nodes: array<BvhNode>;
@group(0) @binding(10) var<storage, read_write> overflowCount: atomic<u32>;

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
