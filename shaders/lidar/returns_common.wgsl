// lidar/returns_common.wgsl — what the return stages of a LiDAR sweep share (lidar/intensity.wgsl,
// lidar/noise_rays.wgsl, lidar/returns.wgsl): their uniform parameters, a ray of the sweep and a
// from the sweep's setup table (the tree method's, lidar/tree.wgsl),
// and the intensity model. Pure functions over the bindings that every kernel file linking it
// declares: returnParams, lidarSetup (read or read_write).
// CPU twins: lidarRays (src/reference/lidar.ts), lidarIntensity (src/core/lidar.ts).

// Uniform parameters of the return stages; the same byte offsets in RETURN_PARAMS
// (src/lidar/returnStage.ts), which writes them. Angles in radians, ranges in world units.
struct LidarReturnParams {
  channels: u32,            // offset(0) size(4)
  azimuths: u32,            // offset(4) size(4)
  moving: u32,              // offset(8) size(4): moving boxes in the setup table this sweep
  flags: u32,               // offset(12) size(4): LIDAR_RETURN_* bits
  referenceRange: f32,      // offset(16) size(4): r₀ of the range falloff (0: none)
  atmosphere: f32,          // offset(20) size(4): a of e^(−a·r) (0: none)
  seed: u32,                // offset(24) size(4): the sweep's noise seed
  passes: u32,              // offset(28) size(4): sub-rays per beam (1 without divergence)
  azimuthSigma: f32,        // offset(32) size(4)
  elevationSigma: f32,      // offset(36) size(4)
  rangeSigma: f32,          // offset(40) size(4)
  rangeSigmaPerUnit: f32,   // offset(44) size(4)
  dropout: u32,             // offset(48) size(4): a return is dropped when its draw is below this
  zeroIntensityDrop: f32,   // offset(52) size(4)
  intensityLimit: f32,      // offset(56) size(4)
  minSeparation: f32,       // offset(60) size(4)
  mode: u32,                // offset(64) size(4): LIDAR_RETURNS_* (strongest, last, dual)
  boxCount: u32,            // offset(68) size(4)
  frameRows: u32,           // offset(72) size(4): frames per column in the setup table (1, or C: per ray)
  pad1: u32,                // offset(76) size(4)
}                           // size(80)

fn returnRays() -> u32 {
  return returnParams.channels * returnParams.azimuths;
}

fn returnSetupVec(k: u32) -> vec3f {
  return bitcast<vec3f>(lidarSetup[k].xyz);
}

// A ray of the sweep: where it starts and its unit direction, relative to the set's floating origin.
struct ReturnRay {
  origin: vec3f,
  dir: vec3f,
}

// The setup-table entry of ray (c, a)'s frame: its column's, or with per-laser data (frameRows = C) its own.
fn returnFrame(c: u32, a: u32) -> u32 {
  return returnRays() + 4u * select(a, c * returnParams.azimuths + a, returnParams.frameRows > 1u);
}

// Ray (channel c, column a) from the setup table, in bvhLidar's operations (lidar/tree.wgsl): its
// frame's beam origin, the frame's axes applied to (cos e cos φ, cos e sin φ, sin e).
fn returnRay(c: u32, a: u32) -> ReturnRay {
  let t = bitcast<vec4f>(lidarSetup[c * returnParams.azimuths + a]);
  let local = vec3f(t.z * t.x, t.z * t.y, t.w);
  let col = returnFrame(c, a);
  let dir = normalize(local.x * returnSetupVec(col + 1u) + local.y * returnSetupVec(col + 2u) + local.z * returnSetupVec(col + 3u));
  return ReturnRay(returnSetupVec(col), dir);
}

// The intensity model (lidarIntensity, src/core/lidar.ts): min(1, ρ · cos α · (r₀ / r)² · e^(−a·r)),
// the range factor with r no nearer than r₀ · 10⁻⁶.
fn intensityOf(rho: f32, cosine: f32, range: f32) -> f32 {
  var g = rho * cosine;
  let r0 = returnParams.referenceRange;
  if (r0 > 0.0) {
    let q = r0 / max(range, r0 * 1e-6);
    g = g * (q * q);
  }
  let a = returnParams.atmosphere;
  if (a > 0.0) {
    g = g * exp(-a * range);
  }
  return min(1.0, g);
}
