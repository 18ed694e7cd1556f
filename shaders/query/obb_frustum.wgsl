// obb_frustum.wgsl — OBB–frustum separating-axis test; pure functions, no bindings.
// Functions: obbFrustumSat (every axis: the largest gap and its axis).
// CPU twin: src/reference/query/obbFrustum.ts. Axes in order P0..P5 (the frustum's planes,
// one-sided), B0..B2 (the box's axes), then EmxBi (id 9 + 3m + i: frustum edge direction m × box
// axis i); projections of the frustum from its 8 corners on the unnormalised axis L, gap =
// separation / |L|; edge-cross axes with |L|² < SAT_EDGE_EPS_SQ are skipped (near-parallel,
// conservative; see src/constants.ts). gap > 0: separated; gap ≤ 0: the box meets the frustum.
// The shape (corners, edge directions, their count) is laid out as the cull's uniform
// frustumShape: shape[0..7] corners, shape[8..8+FRUSTUM_EDGES) unit edge directions,
// shape[FRUSTUM_SHAPE_VEC4 − 1].x the edge count (src/reference/frustum.ts, frustumShape).
// Gottschalk, Lin, Manocha, "OBBTree" (SIGGRAPH 1996); Ericson, "Real-Time Collision Detection" §4.4.

struct ObbFrustumSat {
  gap: f32,
  axis: u32,
}

// Keeps the first axis attaining the largest gap (strictly greater replaces).
fn obbFrustumConsider(gap: f32, id: u32, best: ptr<function, ObbFrustumSat>) {
  if (gap > (*best).gap) {
    *best = ObbFrustumSat(gap, id);
  }
}

fn obbFrustumEdge(sep: f32, lenSq: f32, id: u32, best: ptr<function, ObbFrustumSat>) {
  if (lenSq < SAT_EDGE_EPS_SQ) {
    return; // near-parallel edges: the face axes cover this direction
  }
  obbFrustumConsider(sep / sqrt(lenSq), id, best);
}

// Works in the box's frame: Q_j = (q_j − c) in (u, v, w), E = e_m in (u, v, w); a_0 × e is
// (0, −E.z, E.y), a_1 × e is (E.z, 0, −E.x), a_2 × e is (−E.y, E.x, 0), the box's radius on L is
// h·|L| componentwise, |L|² the sum of the two squares.
fn obbFrustumSat(b: Obb, planes: array<vec4f, 6>, shape: array<vec4f, FRUSTUM_SHAPE_VEC4>) -> ObbFrustumSat {
  let w = cross(b.u, b.v);
  let h = vec3f(b.hx, b.hy, b.hz);
  var best = ObbFrustumSat(-F32_MAX, 0u);
  // P0..P5: the box wholly on the outer side of plane k: gap = −(n·c + d + r).
  for (var k = 0u; k < 6u; k++) {
    let n = planes[k].xyz;
    let r = b.hx * abs(dot(n, b.u)) + b.hy * abs(dot(n, b.v)) + b.hz * abs(dot(n, w));
    obbFrustumConsider(-(dot(n, b.center) + planes[k].w + r), k, &best);
  }
  // The corners in the box's frame, and their extent on each box axis.
  var q: array<vec3f, 8>;
  var lo = vec3f(F32_MAX);
  var hi = vec3f(-F32_MAX);
  for (var j = 0u; j < 8u; j++) {
    let rel = shape[j].xyz - b.center;
    let qj = vec3f(dot(rel, b.u), dot(rel, b.v), dot(rel, w));
    q[j] = qj;
    lo = min(lo, qj);
    hi = max(hi, qj);
  }
  // B0..B2: the frustum's extent on a_i against ±h_i.
  let g = max(lo - h, -h - hi);
  obbFrustumConsider(g.x, 6u, &best);
  obbFrustumConsider(g.y, 7u, &best);
  obbFrustumConsider(g.z, 8u, &best);
  // EmxBi.
  let edgeCount = min(u32(shape[FRUSTUM_SHAPE_VEC4 - 1u].x), FRUSTUM_EDGES);
  for (var m = 0u; m < edgeCount; m++) {
    let e = shape[8u + m].xyz;
    let E = vec3f(dot(e, b.u), dot(e, b.v), dot(e, w));
    var slo = vec3f(F32_MAX);
    var shi = vec3f(-F32_MAX);
    for (var j = 0u; j < 8u; j++) {
      let qj = q[j];
      let s = vec3f(qj.y * -E.z + qj.z * E.y, qj.x * E.z + qj.z * -E.x, qj.x * -E.y + qj.y * E.x);
      slo = min(slo, s);
      shi = max(shi, s);
    }
    let a = abs(E);
    let rB = vec3f(b.hy * a.z + b.hz * a.y, b.hx * a.z + b.hz * a.x, b.hx * a.y + b.hy * a.x);
    let sep = max(slo - rB, -rB - shi);
    obbFrustumEdge(sep.x, E.y * E.y + E.z * E.z, 9u + 3u * m, &best);
    obbFrustumEdge(sep.y, E.x * E.x + E.z * E.z, 10u + 3u * m, &best);
    obbFrustumEdge(sep.z, E.x * E.x + E.y * E.y, 11u + 3u * m, &best);
  }
  return best;
}
