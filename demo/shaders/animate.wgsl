// animate.wgsl — the instances view's animation: writes instance i's world matrix (column-major
// mat4x4f, what a GPU-sourced set reads as layout 'mat4x4f') from a hash of i and the time:
// each box orbits a fixed point and tumbles about its own axis, scaled per axis (rotation ×
// diag(scale): no shear). Nothing of it exists on the CPU.
// Entry point: main. Bindings: 0 params (uniform), 1 matrices (storage, read_write).
// Workgroup size 64; one invocation per instance (x only: 1M instances are 15,625 workgroups).

struct Animate {
  count: u32,
  seed: u32,
  time: f32,
  extent: f32,
}

@group(0) @binding(0) var<uniform> A: Animate;
@group(0) @binding(1) var<storage, read_write> matrices: array<mat4x4f>;

// PCG hash (pcg-random.org), as three.js TSL's `hash`.
fn pcg(v: u32) -> u32 {
  let state = v * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

// A number in [0, 1) for instance i and stream k.
fn h(i: u32, k: u32) -> f32 {
  return f32(pcg(i * 16u + k + A.seed * 0x9e3779b9u) >> 8u) / 16777216.0;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= A.count) {
    return;
  }
  let base = (vec3f(h(i, 0u), h(i, 1u), h(i, 2u)) - 0.5) * A.extent;
  let phase = h(i, 3u) * 6.2831853;
  let t = A.time;
  let p = base + vec3f(sin(0.7 * t + phase), cos(0.5 * t + phase), cos(0.6 * t + phase)) * 1.5;
  let axis = normalize(vec3f(h(i, 4u), h(i, 5u), h(i, 6u)) - 0.5 + vec3f(0.0, 0.001, 0.0));
  let angle = t * (h(i, 7u) + 0.2) + phase;
  // WGSL's sin and cos may err by 2^-11 (absolute): normalised together, c² + s² = 1 to float32,
  // else the matrix is sheared past the derivation's 1e-4 tolerance and the box is flagged.
  let cs = normalize(vec2f(cos(angle), sin(angle)));
  let c = cs.x;
  let s = cs.y;
  let k = 1.0 - c;
  let x = axis.x;
  let y = axis.y;
  let z = axis.z;
  let scale = vec3f(h(i, 8u), h(i, 9u), h(i, 10u)) * 2.0 + 0.5;
  // Rodrigues' rotation about `axis`, its columns scaled.
  matrices[i] = mat4x4f(
    vec4f(k * x * x + c, k * x * y + s * z, k * x * z - s * y, 0.0) * scale.x,
    vec4f(k * x * y - s * z, k * y * y + c, k * y * z + s * x, 0.0) * scale.y,
    vec4f(k * x * z + s * y, k * y * z - s * x, k * z * z + c, 0.0) * scale.z,
    vec4f(p, 1.0),
  );
}
