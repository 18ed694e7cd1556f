// rays/tree.wgsl — rays × box set through the BVH: closest hit, any hit, all hits, one
// invocation per ray (rays/tree_walk.wgsl walks the tree).
// Entry points: bvhClosestHit, bvhAnyHit, bvhAllHits. Bindings: rays/common.wgsl and
// rays/tree_walk.wgsl; workgroup size WG.
// CPU twins: closestHit / anyHit / allHits in src/reference/raycast.ts (the answers are those of
// brute force, which test/gpu/bvhQueries.test.ts checks box for box).

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
  writeHit(r, ray, best);
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
