// square.wgsl — harness self-test kernel: output[i] = input[i] * input[i] (u32, wrapping).
// Entry point: main.
// Bindings: @group(0) @binding(0) input (storage, read), @binding(1) output (storage, read_write).
// Workgroup size: override WORKGROUP_SIZE (default 64). The grid may be 2D when the element count
// needs more than maxComputeWorkgroupsPerDimension workgroups; rows are num_workgroups.x wide.

override WORKGROUP_SIZE: u32 = 64;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = gid.x + gid.y * groups.x * WORKGROUP_SIZE;
  if (i >= arrayLength(&input)) {
    return;
  }
  output[i] = input[i] * input[i];
}
