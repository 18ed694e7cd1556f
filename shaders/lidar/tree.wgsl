// lidar/tree.wgsl — a LiDAR sweep by walking the BVH per ray: the method for sensors the raster
// method cannot serve (elevations at or beyond ±89.9°, 65,536 channels or more) and on request
// (lidar/raster.wgsl is the other; both read the same setup table, and give the same answers).
// Entry point: bvhLidar. Bindings: rays/common.wgsl (params, boxes, boxMasks), rays/tree_walk.wgsl
// (wide, overflowCount) and below: sweep: LidarSweepParams (uniform); lidarSetup: array<vec4u>
// (float32 bits unless said): per ray (cos φ, sin φ, cos e, sin e) of its azimuth φ = θ_a + δ_c
// and elevation e; per frame (per column, or with per-laser data — sweep.frameRows = C — per ray,
// channel-major; or, for a still sweep with per-laser data and no beam-origin circle —
// sweep.frameCols = 1 — per channel, every column's beam origin and axes being the same) its beam origin (w: its firing-time row g as u32), then the sensor's x, y, z
// axes at its time (relative to the set's floating origin); per moving box (index in the set,
// mask, 0, 0) as u32; per firing-time row g and column a (slot g · A + a) the moving boxes at
// that time as Obb records (three vec4 each). One buffer, so
// the kernel binds eight storage buffers, WebGPU's default limit. lidarRange: array<f32>;
// lidarBox: array<u32>; lidarPoints: array<vec4f>.
// Workgroup size WG.
// CPU twin: lidarSweepReference (src/reference/lidar.ts): closestHit on lidarRays against the
// boxes at each ray's firing time (columnBoxes), then minRange.

@group(0) @binding(13) var<storage, read_write> lidarRange: array<f32>;
@group(0) @binding(14) var<storage, read_write> lidarBox: array<u32>;
@group(0) @binding(15) var<storage, read_write> lidarPoints: array<vec4f>;
@group(0) @binding(20) var<uniform> sweep: LidarSweepParams;
@group(0) @binding(21) var<storage, read> lidarSetup: array<vec4u>;

fn setupVec(k: u32) -> vec3f {
  return bitcast<vec3f>(lidarSetup[k].xyz);
}

// Moving box k of the table at time slot s (records after the rays, the frames and the indices).
fn movingBox(s: u32, k: u32, base: u32) -> TileBox {
  let at = base + 3u * (s * sweep.movingCount + k);
  let p = bitcast<vec4f>(lidarSetup[at]);
  let u = bitcast<vec4f>(lidarSetup[at + 1u]);
  let v = bitcast<vec4f>(lidarSetup[at + 2u]);
  let m = lidarSetup[base - sweep.movingCount + k];
  return tileBoxOf(Obb(p.xyz, p.w, u.xyz, u.w, v.xyz, v.w), m.y);
}

// Ray (channel c, column a) = index c · azimuths + a, generated here from the host's tables
// (float64 trigonometry and pose interpolation rounded once; WGSL's sin/cos are only good to
// about 2^-11): origin = its frame's beam origin, direction = its frame's axes applied to
// (cos e cos φ, cos e sin φ, sin e), φ = θ_a + δ_c (plus the firing turn), in the same
// operations as the plain sensor's rays always had; its frame is its column's, or with
// per-laser data (vertical offsets, firing times) its own. The static boxes come from the tree (the host
// clears the moving boxes' masks in the boxMasks it binds), the moving ones from their table at
// the ray's firing time (its frame's time row), by the same per-box step and tie rule. A closest hit nearer than minRange
// is no return (the box still occludes). Writes a range image (LIDAR_NO_RETURN for none), the
// box hit, and, when RAY_OPT_GEOMETRY is set, a point (xyz relative to the set's floating origin,
// w = 1 for a return, 0 otherwise) usable as a vertex buffer.
@compute @workgroup_size(WG)
fn bvhLidar(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = rayIndexOf(lid, wid, nwg);
  let rays = sweep.channels * sweep.azimuths;
  if (r >= rays) {
    return;
  }
  let c = r / sweep.azimuths;
  let a = r % sweep.azimuths;
  let dir = bitcast<vec4f>(lidarSetup[r]);
  let local = vec3f(dir.z * dir.x, dir.z * dir.y, dir.w);
  let col = rays + 4u * (select(0u, c, sweep.frameRows > 1u) * sweep.frameCols + select(0u, a, sweep.frameCols > 1u));
  let origin = setupVec(col);
  let direction = normalize(local.x * setupVec(col + 1u) + local.y * setupVec(col + 2u) + local.z * setupVec(col + 3u));
  let ray = Ray(origin, sweep.maxRange, direction, sweep.mask, NO_BOX);
  var walk = newWalk();
  walkTree(false, ray, true, &walk);
  var best = walk.best;
  let movingBase = rays + 4u * sweep.frameRows * sweep.frameCols + sweep.movingCount;
  let slot = lidarSetup[col].w * sweep.azimuths + a;
  for (var k = 0u; k < sweep.movingCount; k++) {
    visitClosest(ray, lidarSetup[movingBase - sweep.movingCount + k].x, movingBox(slot, k, movingBase), true, &best);
  }
  if (walk.overflowed) {
    atomicAdd(&overflowCount, 1u);
  }
  if (best.box == NO_BOX || walk.overflowed || best.t < sweep.minRange) {
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
