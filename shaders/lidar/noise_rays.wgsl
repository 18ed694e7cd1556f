// lidar/noise_rays.wgsl — the beams' angular noise, before the sweep: each ray (channel c, column
// a) of the sweep's setup table (the tree method's per-ray (cos φ, sin φ, cos e, sin e),
// lidar/tree.wgsl) is rewritten from the sensor's unperturbed table to azimuth φ + δ and
// elevation e + ε, δ = σ_az · z₀ and ε = σ_el · z₁ with (z₀, z₁) the first two deviates of
// pcg4d(c, a, seed, 0) (lidar/noise.wgsl). Both methods then read their rays from the setup
// table (the raster method with NOISE compiled in, its footprints widened by the jitter's
// bound), so every sub-ray of a beam jitters with it and the reference perturbs the same ray.
// Recorded by src/lidar/returnStage.ts only for a sensor whose description has angular noise.
// Entry point: lidarNoiseRays, one invocation per ray.
// Bindings: lidarSetup: array<vec4u> (out: the first C · A entries); returnParams:
// LidarReturnParams; lidarGauss: array<u32> (LIDAR_GAUSS_TABLE); lidarBaseRays: array<vec4f>
// (the unperturbed table, lidarRayTable of src/lidar/LidarSensor.ts). Workgroup size WG.
// CPU twin: lidarRays with a seed (src/reference/lidar.ts), in float64 by the angle-addition
// formulas with Math.cos and Math.sin of δ and ε.

override WG: u32 = 64u;

@group(0) @binding(21) var<storage, read_write> lidarSetup: array<vec4u>;
@group(0) @binding(30) var<uniform> returnParams: LidarReturnParams;
@group(0) @binding(33) var<storage, read> lidarGauss: array<u32>;
@group(0) @binding(36) var<storage, read> lidarBaseRays: array<vec4f>;

// (cos x, sin x) for |x| ≤ 0.063 (6.231 σ, σ ≤ MAX_LIDAR_ANGULAR_NOISE): Taylor to x⁶ and x⁷, whose
// remainders (below 1e-14) are far under float32's rounding; WGSL's own cos and sin are only
// bounded to 2⁻¹¹ absolute.
fn smallCosSin(x: f32) -> vec2f {
  let x2 = x * x;
  let c = 1.0 - x2 * 0.5 * (1.0 - x2 * (1.0 / 12.0) * (1.0 - x2 * (1.0 / 30.0)));
  let s = x * (1.0 - x2 * (1.0 / 6.0) * (1.0 - x2 * (1.0 / 20.0) * (1.0 - x2 * (1.0 / 42.0))));
  return vec2f(c, s);
}

@compute @workgroup_size(WG)
fn lidarNoiseRays(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = (wid.x + wid.y * nwg.x) * WG + lid;
  if (r >= returnRays()) {
    return;
  }
  let c = r / returnParams.azimuths;
  let a = r % returnParams.azimuths;
  let h = pcg4d(vec4u(c, a, returnParams.seed, 0u));
  let az = smallCosSin(returnParams.azimuthSigma * gaussianOf(h.x));
  let el = smallCosSin(returnParams.elevationSigma * gaussianOf(h.y));
  let b = lidarBaseRays[r];
  let phi = vec2f(b.x * az.x - b.y * az.y, b.y * az.x + b.x * az.y);
  let e = vec2f(b.z * el.x - b.w * el.y, b.w * el.x + b.z * el.y);
  lidarSetup[r] = bitcast<vec4u>(vec4f(phi, e));
}
