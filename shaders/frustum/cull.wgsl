// frustum/cull.wgsl — boxes against the six planes of a view frustum, for GPU-driven rendering.
// Entry points:
//   frustumCull       one invocation per box: outside when, for some plane, the box's centre lies
//                     farther behind it than the box's projected radius r = Σ h_k |n·axis_k|;
//                     conservative (a box near an edge or corner of the frustum that no single
//                     plane separates is kept); visible boxes are appended to `visible` (order
//                     unspecified) with an atomic counter
//   frustumCullExact  the exact test's first stage: the same plane test; a box inside every plane
//                     by the slack FRUSTUM_INSIDE_EPS·(|c|₁ + Σh + |d|) is appended to `visible`,
//                     a box across a plane to `candidates` (with candidateCount)
//   frustumExactArgs  (one invocation, next dispatch) the indirect dispatch arguments of
//                     frustumExactSat for the candidates (x at most 65,535, as dispatchGrid)
//   frustumExactSat   one invocation per candidate: the OBB–frustum separating-axis test
//                     (shaders/query/obb_frustum.wgsl); a candidate it finds no separating axis
//                     for is appended to `visible`. Over the compacted list, not inside the first
//                     stage's loop: there every SIMD group would run the test's code, needed or
//                     not (SwiftShader: the exact cull 4× the plane test's time with the test
//                     never taken; pairs/narrow.wgsl measured the same for the box–box SAT)
//   frustumArgs       (one thread, next dispatch) writes drawIndexedIndirect arguments: indexCount,
//                     instanceCount = visible count, firstIndex, baseVertex, firstInstance = 0
// Bindings (group 0): 0 params: FrustumParams; 1 boxes: array<Obb>; 2 visible: array<u32>;
//   3 visibleCount: atomic<u32>; 4 drawArgs: array<u32> (INDIRECT); 5 frustumShape:
//   array<vec4f, FRUSTUM_SHAPE_VEC4> (corners, edge directions, edge count, in the set's frame);
//   6 candidates: array<u32>; 7 candidateCount: atomic<u32>; 8 exactArgs: array<u32, 3>
//   (INDIRECT). Workgroup size WG.
// CPU twins: frustumCull and frustumCullExactAt (both exact stages, one box) in src/reference/frustum.ts.

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> frustum: FrustumParams;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read_write> visible: array<u32>;
@group(0) @binding(3) var<storage, read_write> visibleCount: atomic<u32>;
@group(0) @binding(4) var<storage, read_write> drawArgs: array<u32>;
@group(0) @binding(5) var<uniform> frustumShape: array<vec4f, FRUSTUM_SHAPE_VEC4>;
@group(0) @binding(6) var<storage, read_write> candidates: array<u32>;
@group(0) @binding(7) var<storage, read_write> candidateCount: atomic<u32>;
@group(0) @binding(8) var<storage, read_write> exactArgs: array<u32, 3>;

fn boxOutsidePlane(b: Obb, w: vec3f, plane: vec4f) -> bool {
  let n = plane.xyz;
  let r = b.hx * abs(dot(n, b.u)) + b.hy * abs(dot(n, b.v)) + b.hz * abs(dot(n, w));
  return dot(n, b.center) + plane.w < -r;
}

// Inside plane by more than the slack (twin: boxInsidePlane): FRUSTUM_INSIDE_EPS is over twice the
// float32 error of dot(n, c) + d − r, so a box accepted here is inside in exact arithmetic too.
fn boxInsidePlane(b: Obb, w: vec3f, plane: vec4f, scale: f32) -> bool {
  let n = plane.xyz;
  let r = b.hx * abs(dot(n, b.u)) + b.hy * abs(dot(n, b.v)) + b.hz * abs(dot(n, w));
  return dot(n, b.center) + plane.w - r >= FRUSTUM_INSIDE_EPS * (scale + abs(plane.w));
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

@compute @workgroup_size(WG)
fn frustumCullExact(
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
  let scale = abs(b.center.x) + abs(b.center.y) + abs(b.center.z) + b.hx + b.hy + b.hz;
  var inside = true;
  for (var k = 0u; k < 6u; k++) {
    if (boxOutsidePlane(b, w, frustum.planes[k])) {
      return;
    }
    inside = inside && boxInsidePlane(b, w, frustum.planes[k], scale);
  }
  // Most boxes are decided by the planes; the rest (across a plane) take the separating axes.
  if (inside) {
    visible[atomicAdd(&visibleCount, 1u)] = i;
  } else {
    candidates[atomicAdd(&candidateCount, 1u)] = i;
  }
}

@compute @workgroup_size(1)
fn frustumExactArgs() {
  let groups = (atomicLoad(&candidateCount) + WG - 1u) / WG;
  let x = min(groups, 65535u);
  exactArgs[0] = x;
  exactArgs[1] = select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u);
  exactArgs[2] = 1u;
}

@compute @workgroup_size(WG)
fn frustumExactSat(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = (wid.x + wid.y * nwg.x) * WG + lid;
  if (k >= atomicLoad(&candidateCount)) {
    return;
  }
  let i = candidates[k];
  if (obbFrustumSat(boxes[i], frustum.planes, frustumShape).gap > 0.0) {
    return;
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
