// rays/tree_subgroup.wgsl — the closest-hit tree walk of bvhClosestHit (rays/tree.wgsl) with its
// box tests and its switches to a lane's next ray outside the loop of record steps, for CPU
// adapters whose devices have subgroups (RayKernelTuning.subgroupWalk; the host compiles this
// module only on such a device).
// Why: on a CPU adapter a SIMD group runs every instruction of a loop's body on every iteration,
// masked off or not (docs/design.md, "WebGPU / WGSL traps"), and bvhClosestHit's step holds a box
// test that about one step in seven needs. Here the loop steps records only, until some lane of
// the subgroup meets a leaf or ends its walk (subgroupAny); then the leaves met are tested and the
// lanes whose walks are over store their hits and take their next rays, and the loop goes on.
// Every lane with a leaf or a finished walk leaves the loop itself, whatever subgroupAny says, so
// the answers do not depend on how an implementation groups its lanes.
// Entry point: bvhClosestHitSubgroup; bindings those of bvhClosestHit; workgroup size WG.
// CPU twins: closestHit in src/reference/raycast.ts (the same answers as bvhClosestHit and brute
// force, box for box: test/node/treeQuality.test.ts and the browser suites).
enable subgroups;
// subgroupAny is called where lanes have diverged (some lanes' rays are done); its answer is only
// a hint (see above), so non-uniform calls are intended.
diagnostic(off, subgroup_uniformity);

fn closestWalksSubgroup(lane: u32, lanes: u32, solid: bool) {
  var r = lane;
  var ray = rays[r];
  var frame = rayFrame(ray.direction);
  var walk = newWalk();
  var stack: WalkStack;
  startWalk(&stack);
  loop {
    // Record steps; the leaves a step meets wait for the box tests below, and the entries it
    // pushes are the internal ones within the best t before those tests (the pops prune the rest).
    var bits = 0u;
    var leaves = vec4u(0u);
    var over = false;
    loop {
      let limit = min(ray.maxDistance, walk.best.t);
      if (popLive(&stack, limit)) {
        let record = wideRecord(stack.node[stack.sp]);
        let t = wideEntries(ray.origin, frame, record, limit);
        leaves = record.ptrs;
        let leaf = (leaves & vec4u(BVH_LEAF)) != vec4u(0u);
        bits = leavesMet(t, leaf);
        walk.overflowed = !pushEntries(&stack, select(vec4f(-1.0), t, !leaf), leaves);
        over = walk.overflowed;
      } else {
        over = true;
      }
      let leave = (bits != 0u) | over;
      if (subgroupAny(leave) | leave) {
        break;
      }
    }
    while (bits != 0u) {
      let k = firstTrailingBit(bits);
      bits &= bits - 1u;
      let i = leaves[k] & ~BVH_LEAF;
      visitClosest(ray, i, loadBox(i), solid, &walk.best);
    }
    if (over) {
      storeClosest(r, &walk);
      r += lanes;
      if (r >= params.rayCount) {
        break;
      }
      ray = rays[r];
      frame = rayFrame(ray.direction);
      walk = newWalk();
      startWalk(&stack);
    }
  }
  writeLaneGeometry(lane, lanes);
}

@compute @workgroup_size(WG)
fn bvhClosestHitSubgroup(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let lane = closestLane(lid, wid, nwg);
  if (lane.x < lane.y) {
    closestWalksSubgroup(lane.x, lane.y, (params.flags & RAY_OPT_NOT_SOLID) == 0u);
  }
}
