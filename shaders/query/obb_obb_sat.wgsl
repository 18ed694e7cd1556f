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

// Works in A's frame (Gottschalk's formulation), as the reference does: R[i][j] = Ai·Bj (stored
// by columns of B: Rc[j] = (A0·Bj, A1·Bj, A2·Bj)), T_A = T in A's frame. For L = Ai × Bj, with
// i1, i2 and j1, j2 the cyclic successors: T·L = T_A[i2]·R[i1][j] − T_A[i1]·R[i2][j],
// rA = hA[i1]|R[i2][j]| + hA[i2]|R[i1][j]|, rB = hB[j1]|R[i][j2]| + hB[j2]|R[i][j1]|,
// |L|² = R[i1][j]² + R[i2][j]².
fn obbObbSatAxes(a: Obb, b: Obb, axisCount: u32) -> SatResult {
  let aw = obbW(a);
  let bw = obbW(b);
  let T = b.center - a.center;
  let ta = vec3f(dot(T, a.u), dot(T, a.v), dot(T, aw));
  // Rc[j] = column j of R (B's axis j in A's frame); Rr[i] = row i (A's axis i in B's frame).
  var Rc = array<vec3f, 3>(
    vec3f(dot(a.u, b.u), dot(a.v, b.u), dot(aw, b.u)),
    vec3f(dot(a.u, b.v), dot(a.v, b.v), dot(aw, b.v)),
    vec3f(dot(a.u, bw), dot(a.v, bw), dot(aw, bw)),
  );
  var Rr = array<vec3f, 3>(
    vec3f(Rc[0].x, Rc[1].x, Rc[2].x),
    vec3f(Rc[0].y, Rc[1].y, Rc[2].y),
    vec3f(Rc[0].z, Rc[1].z, Rc[2].z),
  );
  let ha = vec3f(a.hx, a.hy, a.hz);
  let hb = vec3f(b.hx, b.hy, b.hz);
  var best = SatResult(-F32_MAX, 0u);
  for (var id = 0u; id < axisCount; id++) {
    var dist: f32;
    var rA: f32;
    var rB: f32;
    var lenSq = 1.0;
    if (id < 3u) {
      dist = abs(ta[id]);
      rA = ha[id];
      rB = dot(hb, abs(Rr[id]));
    } else if (id < 6u) {
      let col = Rc[id - 3u];
      dist = abs(dot(ta, col));
      rA = dot(ha, abs(col));
      rB = hb[id - 3u];
    } else {
      let i = (id - 6u) / 3u;
      let j = (id - 6u) % 3u;
      let i1 = (i + 1u) % 3u;
      let i2 = (i + 2u) % 3u;
      let j1 = (j + 1u) % 3u;
      let j2 = (j + 2u) % 3u;
      let col = Rc[j];
      let r1 = col[i1];
      let r2 = col[i2];
      let row = Rr[i];
      dist = abs(ta[i2] * r1 - ta[i1] * r2);
      rA = ha[i1] * abs(r2) + ha[i2] * abs(r1);
      rB = hb[j1] * abs(row[j2]) + hb[j2] * abs(row[j1]);
      lenSq = r1 * r1 + r2 * r2;
    }
    if (id >= 6u && lenSq < SAT_EDGE_EPS_SQ) {
      continue; // near-parallel edges: the face axes cover this direction
    }
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
