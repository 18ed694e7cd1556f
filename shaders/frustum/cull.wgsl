// frustum/cull.wgsl — boxes against the six planes of a view frustum, for GPU-driven rendering.
// Entry points:
//   frustumCull  one invocation per box: outside when, for some plane, the box's centre lies
//                farther behind it than the box's projected radius r = Σ h_k |n·axis_k|; visible
//                boxes are appended to `visible` (order unspecified) with an atomic counter
//   frustumArgs  (one thread, next dispatch) writes drawIndexedIndirect arguments: indexCount,
//                instanceCount = visible count, firstIndex, baseVertex, firstInstance = 0
// Bindings (group 0): 0 params: FrustumParams; 1 boxes: array<Obb>; 2 visible: array<u32>;
//   3 visibleCount: atomic<u32>; 4 drawArgs: array<u32> (INDIRECT). Workgroup size WG.
// CPU twin: frustumCull in src/reference/frustum.ts.

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> frustum: FrustumParams;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read_write> visible: array<u32>;
@group(0) @binding(3) var<storage, read_write> visibleCount: atomic<u32>;
@group(0) @binding(4) var<storage, read_write> drawArgs: array<u32>;

fn boxOutsidePlane(b: Obb, w: vec3f, plane: vec4f) -> bool {
  let n = plane.xyz;
  let r = b.hx * abs(dot(n, b.u)) + b.hy * abs(dot(n, b.v)) + b.hz * abs(dot(n, w));
  return dot(n, b.center) + plane.w < -r;
}

@compute @workgroup_size(WG)
fn frustumCull(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= frustum.count) {
    return;
  }
  let b = boxes[i];
  let w = cross(b.u, b.v);
  for (var k = 0u; k < 6u; k++) {
    if (boxOutsidePlane(b, w, frustum.planes[k])) {
      return;
    }
  }
  visible[atomicAdd(&visibleCount, 1u)] = i;
}

@compute @workgroup_size(1)
fn frustumArgs() {
  drawArgs[0] = frustum.indexCount;
  drawArgs[1] = atomicLoad(&visibleCount);
  drawArgs[2] = frustum.firstIndex;
  drawArgs[3] = bitcast<u32>(frustum.baseVertex);
  drawArgs[4] = 0u;
}
