// obb_obb_sat.wgsl — OBB–OBB separating-axis test; pure functions, no bindings.
// Functions: obbObbSat (all 15 axes), obbObbSatFaces (the six face axes only).
// CPU twin: src/reference/query/obbObbSat.ts. Axes in order A0..A2, B0..B2, AixBj (6 + 3i + j);
// projections on the unnormalised axis L, gap = sep / |L| (world units); edge-cross axes with
// |L|² < SAT_EDGE_EPS_SQ are skipped (near-parallel; see src/constants.ts).
// Gottschalk, Lin, Manocha, "OBBTree" (SIGGRAPH 1996); Ericson, "Real-Time Collision Detection" §4.4.

struct SatResult {
  gap: f32,
  axis: u32,
}

fn obbObbSatAxes(a: Obb, b: Obb, axisCount: u32) -> SatResult {
  var A = array<vec3f, 3>(a.u, a.v, obbW(a));
  var B = array<vec3f, 3>(b.u, b.v, obbW(b));
  let ha = vec3f(a.hx, a.hy, a.hz);
  let hb = vec3f(b.hx, b.hy, b.hz);
  let T = b.center - a.center;
  var best = SatResult(-F32_MAX, 0u);
  for (var id = 0u; id < axisCount; id++) {
    var L: vec3f;
    if (id < 3u) {
      L = A[id];
    } else if (id < 6u) {
      L = B[id - 3u];
    } else {
      L = cross(A[(id - 6u) / 3u], B[(id - 6u) % 3u]);
    }
    let lenSq = dot(L, L);
    if (id >= 6u && lenSq < SAT_EDGE_EPS_SQ) {
      continue; // near-parallel edges: the face axes cover this direction
    }
    let dist = abs(dot(T, L));
    let rA = ha.x * abs(dot(A[0], L)) + ha.y * abs(dot(A[1], L)) + ha.z * abs(dot(A[2], L));
    let rB = hb.x * abs(dot(B[0], L)) + hb.y * abs(dot(B[1], L)) + hb.z * abs(dot(B[2], L));
    let gap = (dist - rA - rB) / sqrt(lenSq);
    if (gap > best.gap) {
      best = SatResult(gap, id);
    }
  }
  return best;
}

fn obbObbSat(a: Obb, b: Obb) -> SatResult {
  return obbObbSatAxes(a, b, 15u);
}

fn obbObbSatFaces(a: Obb, b: Obb) -> SatResult {
  return obbObbSatAxes(a, b, 6u);
}
