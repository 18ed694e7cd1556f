// boxes/scatter.wgsl — sparse updates of a box set: entry k of the upload goes to box
// indices[k], whatever the pattern, in one dispatch (BoxSet.updateIndices, BoxSet.setMasksAt).
// The host refuses repeated indices, so no two invocations write the same box.
// Entry points: scatterBoxes (boxes[indices[k]] = sourceBoxes[k]), scatterMasks
//   (masks[indices[k]] = sourceMasks[k]); one invocation per entry.
// Bindings (group 0, by name): scatter: ScatterParams (uniform); indices: array<u32>;
//   sourceBoxes / sourceMasks: the upload; boxes / masks: the set's buffers.
// Workgroup size: override WG (default 64); 2D dispatch grid as the other kernels.
// CPU twin: the host copy's update in BoxSet.updateIndices (src/boxes/BoxSet.ts), which
// test/gpu/three.test.ts compares with the GPU buffer read back, box for box.

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> scatter: ScatterParams;
@group(0) @binding(1) var<storage, read> indices: array<u32>;
@group(0) @binding(2) var<storage, read> sourceBoxes: array<Obb>;
@group(0) @binding(3) var<storage, read_write> boxes: array<Obb>;
@group(0) @binding(4) var<storage, read> sourceMasks: array<u32>;
@group(0) @binding(5) var<storage, read_write> masks: array<u32>;

fn entryIndex(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + lid;
}

@compute @workgroup_size(WG)
fn scatterBoxes(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = entryIndex(lid, wid, nwg);
  if (k >= scatter.count) {
    return;
  }
  boxes[indices[k]] = sourceBoxes[k];
}

@compute @workgroup_size(WG)
fn scatterMasks(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = entryIndex(lid, wid, nwg);
  if (k >= scatter.count) {
    return;
  }
  masks[indices[k]] = sourceMasks[k];
}
