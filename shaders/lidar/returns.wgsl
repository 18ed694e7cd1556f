// lidar/returns.wgsl — the returns of each beam, the last stage of a sweep with noise or several
// sub-rays per beam: from the beam's P sub-ray hits (pass p: range, box, intensity, each pass a
// sweep of its own, lidar/intensity.wgsl after it), the returns its mode keeps, then seeded
// range noise and dropout on each, written as the sweep's images (return 0) and the second
// return. Recorded by src/lidar/returnStage.ts only for such sensors.
// Selection (ties to the smaller sub-ray index): S the strongest hit (largest intensity), L the
// last (largest range); `strongest` keeps S, `last` keeps L, `dual` keeps S and L when
// t_S ≤ t_L − minSeparation, else the strongest hit S₂ with t ≤ t_L − minSeparation and L (as
// Velodyne's dual mode reports the second-strongest return when the strongest is the last),
// else S alone. Then per kept return j (0, 1) with draws h = pcg4d(c, a, seed, 1 + j): dropped
// when h.y < dropout (a u32 threshold, ⌊p · 2³²⌋), or when uniformOf(h.z) < atZero · (1 − I /
// limit) for I < limit; else its range becomes max(0, t + (σ₀ + σ₁ t) · gaussianOf(h.x)). The
// returns left are written in order: return 0 in lidarRange / lidarBox / lidarIntensity (and its
// point on the beam's ray, with LIDAR_RETURN_POINTS), return 1 and the count in lidarSecond.
// A beam with a sub-ray left unanswered (LIDAR_UNANSWERED) is left for the host to answer.
// Entry point: lidarReturns, one invocation per beam.
// Bindings: lidarRange: array<f32>, lidarBox: array<u32>, lidarPoints: array<vec4f>,
// lidarIntensity: array<f32> (out: return 0; −1, NO_BOX, 0 for none); lidarSetup: array<vec4u>
// (the beam's ray); returnParams: LidarReturnParams; lidarGauss: array<u32>; lidarPasses:
// array<u32> (P ranges as f32 bits, then P boxes, then P intensities as f32 bits, each C · A
// long); lidarSecond: array<vec4u> (out, per beam: return 1's range bits, box, intensity bits,
// and the count of returns, 0 to 2; written in dual mode only). Workgroup size WG.
// CPU twin: beamReturns in lidarSweepReference (src/reference/lidar.ts).

override WG: u32 = 64u;

@group(0) @binding(13) var<storage, read_write> lidarRange: array<f32>;
@group(0) @binding(14) var<storage, read_write> lidarBox: array<u32>;
@group(0) @binding(15) var<storage, read_write> lidarPoints: array<vec4f>;
@group(0) @binding(21) var<storage, read> lidarSetup: array<vec4u>;
@group(0) @binding(30) var<uniform> returnParams: LidarReturnParams;
@group(0) @binding(32) var<storage, read_write> lidarIntensity: array<f32>;
@group(0) @binding(33) var<storage, read> lidarGauss: array<u32>;
@group(0) @binding(34) var<storage, read> lidarPasses: array<u32>;
@group(0) @binding(35) var<storage, read_write> lidarSecond: array<vec4u>;

const NO_PASS: u32 = 0xffffffffu;

fn passRange(p: u32, r: u32) -> f32 {
  return bitcast<f32>(lidarPasses[p * returnRays() + r]);
}

fn passBox(p: u32, r: u32) -> u32 {
  return lidarPasses[(returnParams.passes + p) * returnRays() + r];
}

fn passIntensity(p: u32, r: u32) -> f32 {
  return bitcast<f32>(lidarPasses[(2u * returnParams.passes + p) * returnRays() + r]);
}

// One return as written: range (−1 for none), box (NO_BOX), intensity (0).
struct BeamReturn {
  t: f32,
  box: u32,
  intensity: f32,
}

@compute @workgroup_size(WG)
fn lidarReturns(
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
  let dual = returnParams.mode == LIDAR_RETURNS_DUAL;
  let none = BeamReturn(LIDAR_NO_RETURN, NO_BOX, 0.0);
  // The strongest and the last hit over the sub-rays.
  var s = NO_PASS;
  var l = NO_PASS;
  var unanswered = false;
  for (var p = 0u; p < returnParams.passes; p++) {
    let b = passBox(p, r);
    unanswered = unanswered || b == LIDAR_UNANSWERED;
    if (b == NO_BOX || b == LIDAR_UNANSWERED) {
      continue;
    }
    if (s == NO_PASS || passIntensity(p, r) > passIntensity(s, r)) {
      s = p;
    }
    if (l == NO_PASS || passRange(p, r) > passRange(l, r)) {
      l = p;
    }
  }
  if (unanswered) {
    lidarRange[r] = LIDAR_NO_RETURN;
    lidarBox[r] = LIDAR_UNANSWERED;
    lidarIntensity[r] = 0.0;
    if (dual) {
      lidarSecond[r] = vec4u(bitcast<u32>(LIDAR_NO_RETURN), NO_BOX, 0u, 0u);
    }
    return;
  }
  var kept = array<u32, 2>(NO_PASS, NO_PASS);
  if (s != NO_PASS) {
    if (returnParams.mode == LIDAR_RETURNS_STRONGEST) {
      kept[0] = s;
    } else if (returnParams.mode == LIDAR_RETURNS_LAST) {
      kept[0] = l;
    } else {
      let gapEnd = passRange(l, r) - returnParams.minSeparation;
      if (passRange(s, r) <= gapEnd) {
        kept = array<u32, 2>(s, l);
      } else {
        var s2 = NO_PASS;
        for (var p = 0u; p < returnParams.passes; p++) {
          let b = passBox(p, r);
          if (b == NO_BOX || passRange(p, r) > gapEnd) {
            continue;
          }
          if (s2 == NO_PASS || passIntensity(p, r) > passIntensity(s2, r)) {
            s2 = p;
          }
        }
        kept = array<u32, 2>(select(s, s2, s2 != NO_PASS), select(NO_PASS, l, s2 != NO_PASS));
      }
    }
  }
  // Dropout and range noise, return by return; the survivors in order.
  var out = array<BeamReturn, 2>(none, none);
  var count = 0u;
  for (var j = 0u; j < 2u; j++) {
    let p = kept[j];
    if (p == NO_PASS) {
      continue;
    }
    let h = pcg4d(vec4u(c, a, returnParams.seed, 1u + j));
    let intensity = passIntensity(p, r);
    var dropped = h.y < returnParams.dropout;
    if (intensity < returnParams.intensityLimit) {
      dropped = dropped || uniformOf(h.z) < returnParams.zeroIntensityDrop * (1.0 - intensity / returnParams.intensityLimit);
    }
    if (dropped) {
      continue;
    }
    var t = passRange(p, r);
    if (returnParams.rangeSigma > 0.0 || returnParams.rangeSigmaPerUnit > 0.0) {
      let sigma = returnParams.rangeSigma + returnParams.rangeSigmaPerUnit * t;
      t = max(0.0, t + sigma * gaussianOf(h.x));
    }
    out[count] = BeamReturn(t, passBox(p, r), intensity);
    count += 1u;
  }
  lidarRange[r] = out[0].t;
  lidarBox[r] = out[0].box;
  lidarIntensity[r] = out[0].intensity;
  if ((returnParams.flags & LIDAR_RETURN_POINTS) != 0u) {
    let ray = returnRay(c, a);
    lidarPoints[r] = select(vec4f(0.0), vec4f(ray.origin + out[0].t * ray.dir, 1.0), count > 0u);
  }
  if (dual) {
    lidarSecond[r] = vec4u(bitcast<u32>(out[1].t), out[1].box, bitcast<u32>(out[1].intensity), count);
  }
}
