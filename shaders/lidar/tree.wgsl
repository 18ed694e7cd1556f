// lidar/tree.wgsl — a LiDAR sweep by walking the BVH per ray (the method for channel tables
// the raster method cannot serve, and on request; lidar/raster.wgsl is the other).
// Entry point: bvhLidar. Bindings: rays/common.wgsl (params, boxes, boxMasks), rays/tree_walk.wgsl
// (nodes, overflowCount) and below: lidar: LidarParams (uniform); lidarTables: array<vec2f>
// (azimuth cos/sin per step, then elevation cos/sin per channel); lidarRange: array<f32>;
// lidarBox: array<u32>; lidarPoints: array<vec4f>. Workgroup size WG.
// CPU twin: closestHit on lidarRays (src/reference/lidar.ts).

@group(0) @binding(11) var<uniform> lidar: LidarParams;
@group(0) @binding(12) var<storage, read> lidarTables: array<vec2f>;
@group(0) @binding(13) var<storage, read_write> lidarRange: array<f32>;
@group(0) @binding(14) var<storage, read_write> lidarBox: array<u32>;
@group(0) @binding(15) var<storage, read_write> lidarPoints: array<vec4f>;

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
    lidarBox[r] = select(NO_BOX, LIDAR_UNANSWERED, walk.overflowed);
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
