// boxes/derive.wgsl — the boxes of a GPU-sourced set (GpuSourcedBoxSet.refresh), derived on the
// GPU from a buffer the caller's own passes write: instance matrices (column-major 4×4 as
// three.js, glTF and Babylon store them; row-major 3×4) with one local box per set or per
// instance, or the library's own box record in world coordinates. No CPU copy: the caller's
// buffer is bound as it is.
// Entry points: deriveBoxes (one invocation per box: its record re-based to the set's origin, its
//   flags, its effective mask, the counts), applyBoxMasks (the effective masks again from the
//   flags and the caller's masks, after setMasks; one invocation per box).
// Rules (the same as obbFromMatrix in src/core/construct.ts, where that accepts the matrix):
//   centre = M · local centre; column k of the upper 3×3 is local axis k, its length the scale
//   folded into half extent k; a negative scale flips an axis (the same box); u = column 0
//   normalised, v = column 1 made orthogonal to u (Gram–Schmidt) and normalised, w = u × v in
//   every kernel. A box that cannot be derived gets flag bits (BOX_FLAG_*; src/constants.ts) and
//   the inert record (BOX_INERT_HALF_EXTENT), mask 0, and is counted: any NaN or ±∞ entry (on the
//   bits; nothing else is evaluated then), a projective last row, a zero column (every entry
//   below 2⁻¹²⁶: scale 0, which obbFromMatrix accepts as a flat box; here it is how instances are
//   hidden, and it is left out), shear (|cos| between two non-zero columns > AXIS_TOLERANCE), a
//   local box with min > max, a box beyond DERIVE_MAX_COORDINATE of the origin or one whose
//   float32 arithmetic overflowed; for box records: axes not unit and orthogonal within
//   AXIS_TOLERANCE, a negative half extent. Lengths are taken after dividing each column by its
//   largest |entry|, so a scale of 1e-30 or 1e30 neither underflows nor overflows.
// Bindings (group 0, by name): derive: DeriveParams (uniform); source: array<u32> (the caller's
//   buffer, bound from a 256-byte-aligned offset: record i at word recordFirst + i·recordStride);
//   localBoxes: array<u32> (min xyz, max xyz per instance, when DERIVE_OPT_LOCAL_BOXES);
//   boxes: array<Obb> (the set's records); boxFlags: array<u32> (per box, 0 = derived);
//   deriveStatus: array<atomic<u32>> ([0] flagged boxes, [1 + b] boxes with flag bit b; the host
//   clears it before the pass); userMasks: array<u32> (when DERIVE_OPT_USER_MASKS); masks:
//   array<u32> (the effective masks the queries bind: 0 for a flagged box).
// Workgroup size: override WG (default 64); 2D dispatch grid as the other kernels. Override LAYOUT:
// the layout, one pipeline each (measured on SwiftShader: 100,000 matrices derived in ≈ 13 ms
// against ≈ 57 ms with the layout a uniform branch, whose untaken side a CPU adapter still runs).
// CPU twin: deriveBoxes in src/compare/derive.ts (float64, the same functions and order), which
// compareDerivedBoxes judges this kernel's records against (error model in its TSDoc).

override WG: u32 = 64u;
// The layout (DERIVE_LAYOUT_*; equal to derive.sourceLayout), per pipeline: on a CPU adapter a
// branch no lane takes still costs its code, so each layout compiles only its own reading.
override LAYOUT: u32 = DERIVE_LAYOUT_MAT4X4F;

@group(0) @binding(0) var<uniform> derive: DeriveParams;
@group(0) @binding(1) var<storage, read> source: array<u32>;
@group(0) @binding(2) var<storage, read> localBoxes: array<u32>;
@group(0) @binding(3) var<storage, read_write> boxes: array<Obb>;
@group(0) @binding(4) var<storage, read_write> boxFlags: array<u32>;
@group(0) @binding(5) var<storage, read_write> deriveStatus: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read> userMasks: array<u32>;
@group(0) @binding(7) var<storage, read_write> masks: array<u32>;

// Float32 bits that are NaN or ±∞ (exponent all ones), decided on the bits: WGSL implementations
// may assume no NaN or infinity in float arithmetic, so no float comparison can be trusted to see one.
fn bitsNonFinite(b: vec3u) -> bool {
  return any((b & vec3u(0x7f800000u)) == vec3u(0x7f800000u));
}

// Float32 bits of ±0 or a subnormal (exponent zero): zero to a GPU that flushes subnormals.
fn bitsZero(b: vec3u) -> vec3<bool> {
  return (b & vec3u(0x7f800000u)) == vec3u(0u);
}

// Words a, b, c of record i of the caller's buffer.
fn sourceWords(i: u32, a: u32, b: u32, c: u32) -> vec3u {
  let at = derive.recordFirst + i * derive.recordStride;
  return vec3u(source[at + a], source[at + b], source[at + c]);
}

// The record a box that could not be derived is written as (BOX_INERT_HALF_EXTENT in
// src/constants.ts says why every query leaves it out).
fn inertBox() -> Obb {
  return Obb(vec3f(0.0), -BOX_INERT_HALF_EXTENT, vec3f(1.0, 0.0, 0.0), -BOX_INERT_HALF_EXTENT, vec3f(0.0), -BOX_INERT_HALF_EXTENT);
}

// A position re-based to the set's origin: (x − originHi) − originLo.
fn rebased(x: vec3f) -> vec3f {
  return (x - derive.originHi) - derive.originLo;
}

// BOX_FLAG_RANGE: a centre or half extent beyond DERIVE_MAX_COORDINATE, or not finite (float32
// overflowed; told by the bits).
fn outOfRange(center: vec3f, half: vec3f) -> bool {
  let overflowed = bitsNonFinite(bitcast<vec3u>(center)) || bitsNonFinite(bitcast<vec3u>(half));
  return overflowed || any(abs(center) > vec3f(DERIVE_MAX_COORDINATE)) || any(abs(half) > vec3f(DERIVE_MAX_COORDINATE));
}

struct Derived {
  box: Obb,
  flags: u32,
}

// A column's largest |entry|, 1 for a zero column (flagged; never divided by).
fn columnScale(c: vec3f, zero: bool) -> f32 {
  return select(max(max(abs(c.x), abs(c.y)), abs(c.z)), 1.0, zero);
}

// The box of matrix columns c0, c1, c2 and translation t around the local box (lc, lh); `zero`:
// which columns are zero.
fn deriveFromMatrix(c0: vec3f, c1: vec3f, c2: vec3f, t: vec3f, zero: vec3<bool>, lc: vec3f, lh: vec3f) -> Derived {
  var flags = select(0u, BOX_FLAG_ZERO_SCALE, any(zero));
  let m = vec3f(columnScale(c0, zero.x), columnScale(c1, zero.y), columnScale(c2, zero.z));
  let q0 = c0 / m.x;
  let q1 = c1 / m.y;
  let q2 = c2 / m.z;
  let s = select(vec3f(dot(q0, q0), dot(q1, q1), dot(q2, q2)), vec3f(1.0), zero);
  let inv = inverseSqrt(s);
  let d0 = q0 * inv.x;
  let d1 = q1 * inv.y;
  let d2 = q2 * inv.z;
  // Shear: two non-zero columns not orthogonal (normalised, so scale does not enter).
  let cosine = vec3f(abs(dot(d0, d1)), abs(dot(d0, d2)), abs(dot(d1, d2)));
  let live = !zero;
  let pairs = vec3<bool>(live.x && live.y, live.x && live.z, live.y && live.z);
  if (any(pairs & (cosine > vec3f(AXIS_TOLERANCE)))) {
    flags |= BOX_FLAG_SHEAR;
  }
  let scale = select(m * sqrt(s), vec3f(0.0), zero);
  let half = lh * scale;
  let center = rebased(t) + c0 * lc.x + c1 * lc.y + c2 * lc.z;
  let vRaw = d1 - dot(d1, d0) * d0;
  let v = vRaw * inverseSqrt(max(dot(vRaw, vRaw), 1e-30));
  if (outOfRange(center, half)) {
    flags |= BOX_FLAG_RANGE;
  }
  return Derived(Obb(center, half.x, d0, half.y, v, half.z), flags);
}

// The box of a box record (centre c, half extents h, axes u and v) in world coordinates.
fn deriveFromRecord(c: vec3f, h: vec3f, u: vec3f, v: vec3f) -> Derived {
  var flags = select(0u, BOX_FLAG_NEGATIVE_EXTENT, any(h < vec3f(0.0)));
  // Axes: as validation checks them (unit and orthogonal within AXIS_TOLERANCE); entries beyond
  // 2 fail it anyway, and are refused before their squares could overflow.
  let big = any(abs(u) > vec3f(2.0)) || any(abs(v) > vec3f(2.0));
  let uu = dot(u, u);
  let vv = dot(v, v);
  let uv = dot(u, v);
  if (big || abs(sqrt(uu) - 1.0) > AXIS_TOLERANCE || abs(sqrt(vv) - 1.0) > AXIS_TOLERANCE || abs(uv) > AXIS_TOLERANCE) {
    flags |= BOX_FLAG_AXES;
  }
  // The canonical frame (canonicaliseBoxRecord): u normalised, v by Gram–Schmidt.
  let un = u * inverseSqrt(max(uu, 1e-30));
  let vRaw = v - dot(v, un) * un;
  let vn = vRaw * inverseSqrt(max(dot(vRaw, vRaw), 1e-30));
  let center = rebased(c);
  // −0 becomes +0, as in canonicaliseBoxRecord (a select: x + 0.0 may be folded away).
  let half = select(h, vec3f(0.0), h == vec3f(0.0));
  if (outOfRange(center, half)) {
    flags |= BOX_FLAG_RANGE;
  }
  return Derived(Obb(center, half.x, un, half.y, vn, half.z), flags);
}

fn boxIndex(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + lid;
}

// Box i's mask as the queries read it: 0 when flagged, else the caller's (all bits without masks).
fn effectiveMask(i: u32, flags: u32) -> u32 {
  var mask = 0xffffffffu;
  if ((derive.flags & DERIVE_OPT_USER_MASKS) != 0u) {
    mask = userMasks[i];
  }
  return select(mask, 0u, flags != 0u);
}

@compute @workgroup_size(WG)
fn deriveBoxes(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = boxIndex(lid, wid, nwg);
  if (i >= derive.count) {
    return;
  }
  var flags = 0u;
  var nonFinite = false;
  var lc = derive.localCenter;
  var lh = derive.localHalf;
  if ((derive.flags & DERIVE_OPT_LOCAL_BOXES) != 0u) {
    let at = derive.localFirst + i * derive.localStride;
    let lo = vec3u(localBoxes[at], localBoxes[at + 1u], localBoxes[at + 2u]);
    let hi = vec3u(localBoxes[at + 3u], localBoxes[at + 4u], localBoxes[at + 5u]);
    nonFinite = bitsNonFinite(lo) || bitsNonFinite(hi);
    let lof = bitcast<vec3f>(lo);
    let hif = bitcast<vec3f>(hi);
    if (any(lof > hif)) {
      flags |= BOX_FLAG_LOCAL_BOX;
    }
    // Halved before combining, as obbFromMatrix does.
    lc = lof * 0.5 + hif * 0.5;
    lh = hif * 0.5 - lof * 0.5;
  }
  var d: Derived;
  if (LAYOUT == DERIVE_LAYOUT_OBB) {
    let c = sourceWords(i, 0u, 1u, 2u);
    let h = sourceWords(i, 3u, 7u, 11u);
    let u = sourceWords(i, 4u, 5u, 6u);
    let v = sourceWords(i, 8u, 9u, 10u);
    nonFinite = nonFinite || bitsNonFinite(c) || bitsNonFinite(h) || bitsNonFinite(u) || bitsNonFinite(v);
    d = deriveFromRecord(bitcast<vec3f>(c), bitcast<vec3f>(h), bitcast<vec3f>(u), bitcast<vec3f>(v));
  } else {
    var c0: vec3u;
    var c1: vec3u;
    var c2: vec3u;
    var t: vec3u;
    if (LAYOUT == DERIVE_LAYOUT_MAT4X4F) {
      c0 = sourceWords(i, 0u, 1u, 2u);
      c1 = sourceWords(i, 4u, 5u, 6u);
      c2 = sourceWords(i, 8u, 9u, 10u);
      t = sourceWords(i, 12u, 13u, 14u);
      // The last row (m[3], m[7], m[11], m[15]) must be (0, 0, 0, 1).
      let row = sourceWords(i, 3u, 7u, 11u);
      let w = sourceWords(i, 15u, 15u, 15u);
      nonFinite = nonFinite || bitsNonFinite(row) || bitsNonFinite(w);
      if (!all(bitsZero(row)) || w.x != 0x3f800000u) {
        flags |= BOX_FLAG_PROJECTIVE;
      }
    } else {
      // Row-major 3×4: rows (m00 m01 m02 tx), (m10 m11 m12 ty), (m20 m21 m22 tz).
      c0 = sourceWords(i, 0u, 4u, 8u);
      c1 = sourceWords(i, 1u, 5u, 9u);
      c2 = sourceWords(i, 2u, 6u, 10u);
      t = sourceWords(i, 3u, 7u, 11u);
    }
    nonFinite = nonFinite || bitsNonFinite(c0) || bitsNonFinite(c1) || bitsNonFinite(c2) || bitsNonFinite(t);
    let zero = vec3<bool>(all(bitsZero(c0)), all(bitsZero(c1)), all(bitsZero(c2)));
    d = deriveFromMatrix(bitcast<vec3f>(c0), bitcast<vec3f>(c1), bitcast<vec3f>(c2), bitcast<vec3f>(t), zero, lc, lh);
  }
  flags = select(flags | d.flags, BOX_FLAG_NON_FINITE, nonFinite);
  if (flags == 0u) {
    boxes[i] = d.box;
  } else {
    boxes[i] = inertBox();
    atomicAdd(&deriveStatus[0], 1u);
    for (var b = 0u; b < BOX_FLAG_COUNT; b++) {
      if (((flags >> b) & 1u) != 0u) {
        atomicAdd(&deriveStatus[1u + b], 1u);
      }
    }
  }
  boxFlags[i] = flags;
  masks[i] = effectiveMask(i, flags);
}

@compute @workgroup_size(WG)
fn applyBoxMasks(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = boxIndex(lid, wid, nwg);
  if (i >= derive.count) {
    return;
  }
  masks[i] = effectiveMask(i, boxFlags[i]);
}
