// contacts.wgsl — the instances view's contact colours, on the GPU: every valid pair of the
// frame's pair list (PairListBuffers, filled by encodeAllPairs in the same encoder) paints both
// its boxes red in the colour buffer the box shader reads (reset to the base colours by a copy
// just before). Dispatched indirectly with the list's own status (workgroups at byte 16), so no
// count is read back.
// Entry point: main. Bindings: 0 pairs (vec2u per pair), 1 status (PairListStatus words), 2 colours.
// Workgroup size 64 (as the status's dispatch counts); the grid is 2-D beyond 65,535 workgroups.

const CONTACT: u32 = 0xff3a3ae0u; // RGBA8 little-endian (ABGR): red

@group(0) @binding(0) var<storage, read> pairs: array<vec2u>;
@group(0) @binding(1) var<storage, read> status: array<u32, 8>;
@group(0) @binding(2) var<storage, read_write> colors: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let k = gid.x + gid.y * groups.x * 64u;
  // status[0]: the valid pairs (at most the list's capacity).
  if (k >= min(status[0], arrayLength(&pairs))) {
    return;
  }
  let p = pairs[k];
  colors[p.x] = CONTACT;
  colors[p.y] = CONTACT;
}
