// animate.wgsl — the animation pass of the benchmark's GPU-sourced frame (workloads/gpuSourced.ts):
// `count` column-major 4×4 instance matrices on an annulus (radius 20 to 20 + spread), each
// turning about z and pulsing in scale, from a frame counter the GPU itself increments (tick), so
// a frame uploads nothing. animateMatrix in workloads/gpuSourced.ts is its float64 twin, which the
// host-copy paths run on the CPU.
// Entry points: animate (one invocation per instance), tick (one invocation). Bindings: 0 frame:
// array<u32> ([0] the frame); 1 matrices: array<f32> (16 per instance); 2 scene: SceneParams.
// Workgroup size 64.
struct SceneParams {
  count: u32,
  spread: f32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> frame: array<u32>;
@group(0) @binding(1) var<storage, read_write> matrices: array<f32>;
@group(0) @binding(2) var<uniform> scene: SceneParams;

@compute @workgroup_size(64)
fn animate(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= scene.count) {
    return;
  }
  let f = f32(frame[0]);
  // Per-instance phases from i mod 4096 (exact in float32 whatever the count).
  let p = f32(i % 4096u);
  let a = 0.05 * f + 0.37 * p;
  let k = 1.0 + 0.25 * sin(0.1 * f + p);
  let c = cos(a);
  let s = sin(a);
  // Per-instance radius and angle from two multiplicative hashes of i: 24 exact bits each, the same
  // in float64 (animateMatrix), so both sides place the instances alike whatever the count.
  let r = 20.0 + scene.spread * f32((i * 2654435761u) >> 8u) / 16777216.0;
  let th = 0.01 * f + 0.001 * p + 6.2831853 * f32((i * 2246822507u) >> 8u) / 16777216.0;
  let o = i * 16u;
  matrices[o + 0u] = c * k;
  matrices[o + 1u] = s * k;
  matrices[o + 2u] = 0.0;
  matrices[o + 3u] = 0.0;
  matrices[o + 4u] = -s * k;
  matrices[o + 5u] = c * k;
  matrices[o + 6u] = 0.0;
  matrices[o + 7u] = 0.0;
  matrices[o + 8u] = 0.0;
  matrices[o + 9u] = 0.0;
  matrices[o + 10u] = 0.5 * k;
  matrices[o + 11u] = 0.0;
  matrices[o + 12u] = r * cos(th);
  matrices[o + 13u] = r * sin(th);
  matrices[o + 14u] = 0.1 * f32(i % 7u);
  matrices[o + 15u] = 1.0;
}

@compute @workgroup_size(1)
fn tick() {
  frame[0] = frame[0] + 1u;
}
