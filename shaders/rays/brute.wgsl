// rays/brute.wgsl — rays × box set by brute force: closest hit, any hit, all hits, one
// invocation per ray. With TILED each workgroup stages BOX_TILE boxes at a time in workgroup
// memory, so a box is read from storage once per workgroup, not once per ray.
// Entry points: closestHit, anyHit, allHits. Bindings and workgroup size: rays/common.wgsl.
// CPU twins: closestHit / anyHit / allHits in src/reference/raycast.ts.

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
  writeHit(r, ray, best);
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
