// rays/tree.wgsl — rays × box set through the BVH: closest hit, any hit, all hits, one
// invocation per ray (rays/tree_walk.wgsl walks the tree).
// Entry points: bvhClosestHit (RAYS_PER_LANE rays a lane, rays/tree_walk.wgsl), bvhAnyHit,
// bvhAllHits; bvhClosestHitCounts (the bench's counting variant of bvhClosestHit: run with
// WALK_COUNTS = true, it also writes walkCounts[r] = (records stepped through, boxes tested)). Bindings: rays/common.wgsl and rays/tree_walk.wgsl, and
// 12 walkCounts: array<vec2u>; workgroup size WG.
// CPU twins: closestHit / anyHit / allHits in src/reference/raycast.ts (the answers are those of
// brute force, which test/gpu/bvhQueries.test.ts checks box for box).

// The closest-hit walks of one lane's rays (RAYS_PER_LANE of them, rays/tree_walk.wgsl), one
// loop over their steps; then their geometry (when asked), outside that loop: on a CPU adapter
// whatever the loop's body holds runs on every step. rays/tree_subgroup.wgsl walks the same rays
// with the box tests outside the steps' loop (CPU adapters with subgroups).
fn closestWalks(lane: u32, lanes: u32, solid: bool) {
  var r = lane;
  var ray = rays[r];
  var frame = rayFrame(ray.direction);
  var walk = newWalk();
  var stack: WalkStack;
  startWalk(&stack);
  loop {
    if (stack.sp == 0u || walk.overflowed) {
      storeClosest(r, &walk);
      r += lanes;
      if (r >= params.rayCount) {
        break;
      }
      ray = rays[r];
      frame = rayFrame(ray.direction);
      walk = newWalk();
      startWalk(&stack);
      continue;
    }
    _ = walkStep(false, ray, frame, solid, &walk, &stack);
  }
  writeLaneGeometry(lane, lanes);
}

@compute @workgroup_size(WG)
fn bvhClosestHit(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let lane = closestLane(lid, wid, nwg);
  if (lane.x < lane.y) {
    closestWalks(lane.x, lane.y, (params.flags & RAY_OPT_NOT_SOLID) == 0u);
  }
}

@group(0) @binding(12) var<storage, read_write> walkCounts: array<vec2u>;

@compute @workgroup_size(WG)
fn bvhClosestHitCounts(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  if (r < params.rayCount) {
    let walk = closestWalk(r);
    walkCounts[r] = vec2u(walk.steps, walk.boxTests);
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
