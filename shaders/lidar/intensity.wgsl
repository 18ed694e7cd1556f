// lidar/intensity.wgsl — the intensity of each return of a sweep, after the sweep kernels (raster
// or tree): the hit point on the ray (from the setup table, as bvhLidar makes it), the face it
// lies on and the incidence cosine there (hitIncidence), the box's reflectivity, the intensity
// model (intensityOf). Recorded by src/lidar/returnStage.ts only when a sweep asks for intensity
// (or needs it: noise, returns), so a plain sweep runs none of it.
// Entry point: lidarHitIntensity, one invocation per ray.
// Bindings: boxes: array<Obb> (the set's, relative to its floating origin); lidarRange:
// array<f32>, lidarBox: array<u32> (the sweep's images); lidarSetup: array<vec4u> (the tree
// method's setup table of the sweep: per ray its azimuth and elevation, per column its beam
// origin and axes, per ray with per-laser data, the moving boxes at each firing time); returnParams: LidarReturnParams;
// lidarReflectivity: array<f32> (per box; read with LIDAR_RETURN_MATERIALS, else every box 1);
// lidarIntensity: array<f32> (out: 0 where there is no return). Workgroup size WG.
// CPU twin: returnIntensities in lidarSweepReference (src/reference/lidar.ts).

override WG: u32 = 64u;

@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(13) var<storage, read> lidarRange: array<f32>;
@group(0) @binding(14) var<storage, read> lidarBox: array<u32>;
@group(0) @binding(21) var<storage, read> lidarSetup: array<vec4u>;
@group(0) @binding(30) var<uniform> returnParams: LidarReturnParams;
@group(0) @binding(31) var<storage, read> lidarReflectivity: array<f32>;
@group(0) @binding(32) var<storage, read_write> lidarIntensity: array<f32>;

// Box i of the set at ray (c, a)'s time: a moving one (listed in the setup table, indices
// increasing) from the table, at the time slot g · A + a of the ray's firing-time row g (its
// frame's w), a static one from the set.
fn returnBox(c: u32, a: u32, i: u32) -> Obb {
  let m = returnParams.moving;
  let list = returnRays() + 4u * returnParams.frameRows * returnParams.azimuths;
  let slot = lidarSetup[returnFrame(c, a)].w * returnParams.azimuths + a;
  var lo = 0u;
  var hi = m;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (lidarSetup[list + mid].x < i) { lo = mid + 1u; } else { hi = mid; }
  }
  if (lo < m && lidarSetup[list + lo].x == i) {
    let at = list + m + 3u * (slot * m + lo);
    let p = bitcast<vec4f>(lidarSetup[at]);
    let u = bitcast<vec4f>(lidarSetup[at + 1u]);
    let v = bitcast<vec4f>(lidarSetup[at + 2u]);
    return Obb(p.xyz, p.w, u.xyz, u.w, v.xyz, v.w);
  }
  return boxes[i];
}

// The cosine |d · u_k| / |u_k| of the angle between d and the normal of the face point p lies on:
// the axis k of box b along which p is farthest out relative to the half extent, |q_k| / h_k
// (q_k = (p − c) · u_k / |u_k|; a flat axis: 1 when q_k = 0, else F32_MAX), the first on a tie.
// CPU twin: hitAxes / hitIncidence (src/reference/lidar.ts).
fn hitIncidence(b: Obb, p: vec3f, d: vec3f) -> f32 {
  let rel = p - b.center;
  let axes = array<vec3f, 3>(b.u, b.v, obbW(b));
  let h = vec3f(b.hx, b.hy, b.hz);
  var best = -1.0;
  var cosine = 0.0;
  for (var k = 0u; k < 3u; k++) {
    let len = length(axes[k]);
    let q = dot(rel, axes[k]) / len;
    var out = 1.0;
    if (h[k] > 0.0) {
      out = abs(q) / h[k];
    } else if (abs(q) > 0.0) {
      out = F32_MAX;
    }
    if (out > best) {
      best = out;
      cosine = abs(dot(d, axes[k])) / len;
    }
  }
  return cosine;
}

@compute @workgroup_size(WG)
fn lidarHitIntensity(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = (wid.x + wid.y * nwg.x) * WG + lid;
  if (r >= returnRays()) {
    return;
  }
  let i = lidarBox[r];
  if (i == NO_BOX || i == LIDAR_UNANSWERED) {
    lidarIntensity[r] = 0.0;
    return;
  }
  let c = r / returnParams.azimuths;
  let a = r % returnParams.azimuths;
  let t = lidarRange[r];
  let ray = returnRay(c, a);
  let cosine = hitIncidence(returnBox(c, a, i), ray.origin + t * ray.dir, ray.dir);
  var rho = 1.0;
  if ((returnParams.flags & LIDAR_RETURN_MATERIALS) != 0u) {
    rho = lidarReflectivity[i];
  }
  lidarIntensity[r] = intensityOf(rho, cosine, t);
}
