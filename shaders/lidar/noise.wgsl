// lidar/noise.wgsl — the LiDAR noise's random draws, in integer arithmetic only, so the GPU and the
// float64 reference (src/reference/lidar.ts: pcg4d, gaussianOf, uniformOf) draw the same bits:
// u32 multiplication, addition, xor and shifts are exact in WGSL and in JavaScript (Math.imul).
// - pcg4d: the counter-based hash of Jarzynski and Olano, "Hash Functions for GPU Rendering",
//   JCGT 9(3), 2020 (http://www.jcgt.org/published/0009/03/02/), keyed here on (channel,
//   column, seed, stream): a draw depends on nothing but its ray, its seed and its purpose.
// - gaussianOf: a standard normal deviate from one hash word, by the half-normal quantile in
//   fixed point (LIDAR_GAUSS_TABLE in src/constants.ts, bound as lidarGauss), interpolated in
//   integers; the only float step, the exact conversion of an integer below 2²⁴, comes last.
// - uniformOf: a uniform in [0, 1) on a grid of 2⁻²⁴ (exact in f32).
// Pure functions over the binding lidarGauss: array<u32>, which every kernel linking this declares.

// pcg4d (JCGT 2020, as published).
fn pcg4d(input: vec4u) -> vec4u {
  var v = input * 1664525u + 1013904223u;
  v.x += v.y * v.w;
  v.y += v.z * v.x;
  v.z += v.x * v.y;
  v.w += v.y * v.z;
  v = v ^ (v >> vec4u(16u));
  v.x += v.y * v.w;
  v.y += v.z * v.x;
  v.z += v.x * v.y;
  v.w += v.y * v.z;
  return v;
}

// A standard normal deviate from hash word h: the sign from its top bit, |z| from the other 31
// bits p (a fraction of 2³¹) as Φ⁻¹((1 + p) / 2): octave j = the count of leading ones of p (1 − p
// in [2⁻ʲ⁻¹, 2⁻ʲ)), the next 4 bits the table point m in the octave, the 12 after them the
// interpolation weight between points 16j + m and 16j + m + 1.
fn gaussianOf(h: u32) -> f32 {
  let x = h << 1u;
  let j = countLeadingZeros(~x);
  let rest = select(0u, x << (j + 1u), j < 31u);
  let k = 16u * j + (rest >> 28u);
  let w = (rest >> 16u) & 0xfffu;
  let lo = lidarGauss[k];
  let hi = lidarGauss[k + 1u];
  let magnitude = f32(lo + (((hi - lo) * w) >> 12u)) * (1.0 / 1048576.0);
  return select(magnitude, -magnitude, (h >> 31u) != 0u);
}

// A uniform draw in [0, 1): the top 24 bits of h over 2²⁴.
fn uniformOf(h: u32) -> f32 {
  return f32(h >> 8u) * (1.0 / 16777216.0);
}
