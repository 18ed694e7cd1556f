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

// Works in A's frame (Gottschalk's formulation), as the reference does: Ri = (Ai·B0, Ai·B1, Ai·B2)
// (row i of R), T_A = T in A's frame. For L = Ai × Bj, with i1, i2 and j1, j2 the cyclic
// successors: T·L = T_A[i2]·R[i1][j] − T_A[i1]·R[i2][j], rA = hA[i1]|R[i2][j]| + hA[i2]|R[i1][j]|,
// rB = hB[j1]|R[i][j2]| + hB[j2]|R[i][j1]|, |L|² = R[i1][j]² + R[i2][j]². The 15 axes are written
// out in the reference's order (no loop, no dynamic indexing: both are slow on some backends).

// Keeps the first axis attaining the largest gap (strictly greater replaces).
fn satConsider(gap: f32, id: u32, best: ptr<function, SatResult>) {
  if (gap > (*best).gap) {
    *best = SatResult(gap, id);
  }
}

fn satEdge(
  id: u32, tai1: f32, tai2: f32, r1: f32, r2: f32, hai1: f32, hai2: f32,
  hbj1: f32, hbj2: f32, rij1: f32, rij2: f32, best: ptr<function, SatResult>,
) {
  let lenSq = r1 * r1 + r2 * r2;
  if (lenSq < SAT_EDGE_EPS_SQ) {
    return; // near-parallel edges: the face axes cover this direction
  }
  let dist = abs(tai2 * r1 - tai1 * r2);
  let rA = hai1 * abs(r2) + hai2 * abs(r1);
  let rB = hbj1 * abs(rij2) + hbj2 * abs(rij1);
  satConsider((dist - rA - rB) / sqrt(lenSq), id, best);
}

fn obbObbSatAxes(a: Obb, b: Obb, faceOnly: bool) -> SatResult {
  let aw = obbW(a);
  let bw = obbW(b);
  let T = b.center - a.center;
  let ta = vec3f(dot(T, a.u), dot(T, a.v), dot(T, aw));
  let R0 = vec3f(dot(a.u, b.u), dot(a.u, b.v), dot(a.u, bw));
  let R1 = vec3f(dot(a.v, b.u), dot(a.v, b.v), dot(a.v, bw));
  let R2 = vec3f(dot(aw, b.u), dot(aw, b.v), dot(aw, bw));
  let ha = vec3f(a.hx, a.hy, a.hz);
  let hb = vec3f(b.hx, b.hy, b.hz);
  // Columns of R: B's axes in A's frame.
  let C0 = vec3f(R0.x, R1.x, R2.x);
  let C1 = vec3f(R0.y, R1.y, R2.y);
  let C2 = vec3f(R0.z, R1.z, R2.z);
  var best = SatResult(-F32_MAX, 0u);
  // A0..A2: dist = |T_A[i]|, rA = hA[i], rB = hB·|row i|.
  satConsider(abs(ta.x) - ha.x - dot(hb, abs(R0)), 0u, &best);
  satConsider(abs(ta.y) - ha.y - dot(hb, abs(R1)), 1u, &best);
  satConsider(abs(ta.z) - ha.z - dot(hb, abs(R2)), 2u, &best);
  // B0..B2: dist = |T_A·column j|, rA = hA·|column j|, rB = hB[j].
  satConsider(abs(dot(ta, C0)) - dot(ha, abs(C0)) - hb.x, 3u, &best);
  satConsider(abs(dot(ta, C1)) - dot(ha, abs(C1)) - hb.y, 4u, &best);
  satConsider(abs(dot(ta, C2)) - dot(ha, abs(C2)) - hb.z, 5u, &best);
  if (!faceOnly) {
    satEdge(6u, ta.y, ta.z, R1.x, R2.x, ha.y, ha.z, hb.y, hb.z, R0.y, R0.z, &best);
    satEdge(7u, ta.y, ta.z, R1.y, R2.y, ha.y, ha.z, hb.z, hb.x, R0.z, R0.x, &best);
    satEdge(8u, ta.y, ta.z, R1.z, R2.z, ha.y, ha.z, hb.x, hb.y, R0.x, R0.y, &best);
    satEdge(9u, ta.z, ta.x, R2.x, R0.x, ha.z, ha.x, hb.y, hb.z, R1.y, R1.z, &best);
    satEdge(10u, ta.z, ta.x, R2.y, R0.y, ha.z, ha.x, hb.z, hb.x, R1.z, R1.x, &best);
    satEdge(11u, ta.z, ta.x, R2.z, R0.z, ha.z, ha.x, hb.x, hb.y, R1.x, R1.y, &best);
    satEdge(12u, ta.x, ta.y, R0.x, R1.x, ha.x, ha.y, hb.y, hb.z, R2.y, R2.z, &best);
    satEdge(13u, ta.x, ta.y, R0.y, R1.y, ha.x, ha.y, hb.z, hb.x, R2.z, R2.x, &best);
    satEdge(14u, ta.x, ta.y, R0.z, R1.z, ha.x, ha.y, hb.x, hb.y, R2.x, R2.y, &best);
  }
  return best;
}

fn obbObbSat(a: Obb, b: Obb) -> SatResult {
  return obbObbSatAxes(a, b, false);
}

fn obbObbSatFaces(a: Obb, b: Obb) -> SatResult {
  return obbObbSatAxes(a, b, true);
}
