// lidar/compact.wgsl — a sweep's returns compacted on the GPU for drawing: the points of the rays
// that returned, in ray order, their ray indices, and drawIndirect arguments (vertex count =
// returns, one instance), so a renderer draws exactly the returns with no readback.
// Entry points, in order (LidarSensor.encodeCompact): lidarCompactFlags (one invocation per ray:
// 1 for a return, else 0), an ExclusiveScan of the flags (each return's slot), lidarCompactScatter
// (one invocation per ray: its point and index into its slot; the last ray writes the count).
// Bindings: compactParams: vec4u (x = rays); lidarBox: array<u32>; lidarPoints: array<vec4f>
// (written by the sweep with RAY_OPT_GEOMETRY); compactSlots: array<u32>; compactPoints:
// array<vec4f>; compactRays: array<u32>; compactArgs: array<u32> (vertexCount, instanceCount,
// firstVertex, firstInstance). Workgroup size WG.
// CPU twin: compactReturns (src/reference/lidar.ts).

override WG: u32 = 64u;

@group(0) @binding(14) var<storage, read> lidarBox: array<u32>;
@group(0) @binding(15) var<storage, read> lidarPoints: array<vec4f>;
@group(0) @binding(25) var<uniform> compactParams: vec4u;
@group(0) @binding(26) var<storage, read_write> compactSlots: array<u32>;
@group(0) @binding(27) var<storage, read_write> compactPoints: array<vec4f>;
@group(0) @binding(28) var<storage, read_write> compactRays: array<u32>;
@group(0) @binding(29) var<storage, read_write> compactArgs: array<u32>;

fn compactIndex(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + lid;
}

// A return: a box, not NO_BOX (no return) nor LIDAR_UNANSWERED (the host answers those).
fn isReturn(r: u32) -> u32 {
  let b = lidarBox[r];
  return select(0u, 1u, b != NO_BOX && b != LIDAR_UNANSWERED);
}

@compute @workgroup_size(WG)
fn lidarCompactFlags(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = compactIndex(lid, wid, nwg);
  if (r < compactParams.x) {
    compactSlots[r] = isReturn(r);
  }
}

@compute @workgroup_size(WG)
fn lidarCompactScatter(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = compactIndex(lid, wid, nwg);
  let n = compactParams.x;
  if (r >= n) {
    return;
  }
  let slot = compactSlots[r];
  let hit = isReturn(r);
  if (hit == 1u) {
    compactPoints[slot] = lidarPoints[r];
    compactRays[slot] = r;
  }
  if (r == n - 1u) {
    compactArgs[0] = slot + hit;
    compactArgs[1] = 1u;
    compactArgs[2] = 0u;
    compactArgs[3] = 0u;
  }
}
