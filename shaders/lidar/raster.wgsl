// lidar/raster.wgsl — a LiDAR sweep by rasterising boxes into the sensor's range image, instead
// of walking a tree per ray. Every ray of a sweep leaves one point (the sensor origin), so each
// box covers a rectangle of (channel, azimuth) cells: the rays that can hit it. The image is cut
// into tiles of TILE_CH (4) sorted channels × TILE_AZ azimuth steps; each box is binned into the
// tiles its rectangle touches, each tile's list is sorted by the boxes' distance bounds, and each
// ray runs down its tile's list keeping its closest hit in registers with the rule of every
// closest-hit query here (smallest t, then smallest box index): no atomics on the result, no
// second pass, and the answer does not depend on the lists' order. A walk stops at the first box
// whose distance bound is beyond its rays' best hits. No tree to build or refit, so moving scenes
// cost nothing to prepare.
//
// Entry points, in order (src/lidar/LidarSensor.ts records them into one compute pass):
//   lidarFootprint  one invocation per box: its cell rectangle (conservative, argued below),
//                   the records the tile pass reads (rectangle and distance bound; box-frame
//                   sensor origin, axes, half extents), a count in every tile it touches, and a
//                   64-bit total of those.
//   (ExclusiveScan of the tile counts: each tile's first list entry)
//   lidarBin        one invocation per box: its index into the list of every tile it touches.
//   lidarSortTiles  one invocation per tile: insertion sort of its list by distance bound, then
//                   index (lists longer than SORTED_LIST stay unsorted and are walked to the end).
//   lidarTiles      one invocation per azimuth step of a tile, running the tile's four channels
//                   (a box read once for four rays); workgroups stride over the tiles. Each ray's
//                   closest hit over the tile's list (a box whose rectangle misses the ray's
//                   cell, or that lies wholly beyond the ray's best hit so far, is skipped
//                   without the slab test); writes the range image, the hit box and, with
//                   RAY_OPT_GEOMETRY, the point, as bvhLidar does; a hit nearer than minRange is no return. When the lists did not fit
//                   (their total is over the list's capacity) every ray is marked LIDAR_UNANSWERED and
//                   counted in tileCounters[2T + 2]: the host grows the lists to the total it reads
//                   back and sweeps again.
// The t of a ray and a box is computed by the steps of rayObbAxes on the same f32 inputs (the
// box-frame origin once per box), so it is bit for bit the BVH method's t.
//
// Why the rectangle is conservative. Coordinates are taken in the sensor frame (x, y: the scan
// plane, z: up), relative to the sensor origin. Every ray is origin + t·d with d = (cos e cos φ,
// cos e sin φ, sin e), φ = θ_a + δ_c (the column's encoder angle and the channel's azimuth
// offset), cos e > 0 (the host only rasterises such tables), so every point of a ray from the
// origin has azimuth φ and elevation e; rays from beam origins n out (and, with motion, from a
// chunk's moving origins and frames) are taken back to such rays by growing the box (extent,
// footprint, motionPrint). The image's columns are the rays' azimuths rounded to whole columns (sortedRay:
// channel c's ray of encoder column a sits in column a + k_c, k_c = round(δ_c / step)), so a
// column's rays point within the residuals ρ_c = δ_c − k_c · step (at most half a column) of its
// angle; the column range is that of θ = φ − ρ over the box's azimuths, widened by the
// residuals' range, counted clockwise for a clockwise sensor. A box point has elevation e = atan2(z, r) with r its
// distance to the z axis; over the box, z ∈ [zMin, zMax] (exact extents of the box along z) and
// r ∈ [rMin, rMax] (distance from the axis to the box's xy bounding rectangle, and to its far
// corner), so sin e ∈ [sLo, sHi] with sHi = zMax / |(zMax, r)| taking r = rMin when zMax > 0
// and rMax otherwise (sin e grows with z, and shrinks with r when z > 0, grows when z < 0), and
// symmetrically for sLo. Azimuth: when the box's xy rectangle is well clear of the axis (its
// radius ρ < 0.7 of the centre's distance r_c), the box's shadow on the scan plane is a convex
// polygon that does not contain the axis, so its azimuths span the angles of its corners, all
// within ±45° of the centre's azimuth: [φc + atan(min tan), φc + atan(max tan)] over the 8
// corners, with tan = across / along relative to the centre direction. Otherwise the box gets
// every azimuth. Float error: coordinates carry about 4 ulp of M = |centre| + |h| (≈ 5e-7 M);
// boxes closer than 0.02 M to the sensor (or to its axis, for the azimuth) get the whole image,
// so the angle errors stay under 5e-7 M / 0.02 M = 2.5e-5 rad, plus atanUnit's 1e-5; the pads
// (ANGLE_PAD, SIN_PAD) are 2e-4, and the rays' own f32 directions are good to about 1e-7.
// Bindings (group 0): 0 params: RayParams (rayCount, boxCount, flags); 1 boxes: array<Obb>;
//   2 boxMasks: array<u32>; 11 lidar: LidarParams;
//   12 lidarTables: array<vec2f> (cos/sin per azimuth, cos/sin per channel, then per sorted
//   channel (sin e, channel), then with LIDAR_PER_RAY_AZIMUTH cos/sin of θ_a + δ_c per ray and
//   per sorted channel (its column shift k_c mod A, 0); with vertical offsets, per channel (v_c, 0):
//   channelLift); 13 lidarRange: array<f32>; 14 lidarBox: array<u32>;
//   15 lidarPoints: array<vec4f>; 16 boxData: array<vec4u> (per box, see below); 17
//   tileCounters: array<atomic<u32>> (per tile, see below); 19 tileLists: array<u32>; 21
//   lidarSetup: array<vec4u> (with LIDAR_MOTION: the tree method's setup and the motion records,
//   see motionPrint; with NOISE, its per-ray table; a placeholder otherwise); with NOISE,
//   lidarTables ends with the jitter's bounds (noiseTurn). Eight
//   storage buffers at most per entry point (the WebGPU default limit).
//   Workgroup size WG (footprint, bin) and TILE_AZ (tiles).
// CPU twin: closestHit / closestHitGrid on lidarRays (src/reference/lidar.ts), which
// test/gpu/bvh.test.ts compares through the comparator (and with the bvh method, ray by ray) on
// street scenes and on the footprint's hard cases; the atanUnit bound is checked in
// test/cpu/reference/lidarRaster.test.ts.

override WG: u32 = 64u;
// The tile: TILE_CH sorted channels (each invocation runs that many rays; LIDAR_TILE_CHANNELS in
// src/constants.ts) × TILE_AZ azimuth steps (one invocation each).
const TILE_CH: u32 = LIDAR_TILE_CHANNELS;
override TILE_AZ: u32 = 4u;

// Motion during the sweep compiled in: set per pipeline by the host (LidarSensor: false for a
// motionless sweep), so a CPU adapter, which runs both sides of a branch, does not pay for the
// motion path on every box a ray is offered (it took the static 128 × 2,048 sweep's tile pass
// from ~57 to ~90 ms on SwiftShader as a runtime test alone). The host compiles MOTION in for
// sweeps with LIDAR_MOTION set and for those alone, so the override decides by itself: a
// pipeline with motion then carries no static branch either (which a CPU adapter would also run).
override MOTION: bool = false;

// Whether this sweep moves (LIDAR_MOTION: the host sets the flag exactly when it compiles MOTION in).
fn sweepMoves() -> bool {
  return MOTION;
}

// Boxes moving during the sweep compiled in (with MOTION; the host: lidar.moving > 0). Without
// them a CPU adapter does not run the moving-box read under a mask for every box a ray is offered:
// that alone took a 64 × 512 moving-sensor sweep from about 180 to 88 ms of CPU time on
// SwiftShader (docs/performance.md, "Per-laser data and the motion path (2026-12-03)").
override MOVING: bool = false;

// The beams' angular noise compiled in (a sensor whose description has azimuth or elevation
// noise; src/lidar/returnStage.ts perturbs the setup table's rays before the sweep): every ray's
// direction comes from the setup table, and every footprint is widened by the jitter's bound
// (noiseTurn; with motion, the host folds it into the motion records). Off, a sweep compiles
// exactly the code it did before.
override NOISE: bool = false;

// (cos γ_el, sin γ_el, γ_az): the bounds of the beams' elevation and azimuth jitter (6.231 σ,
// the largest deviate, rounded up), the last two entries of lidarTables; (1, 0, 0) without NOISE.
fn noiseTurn() -> vec3f {
  if (!NOISE) {
    return vec3f(1.0, 0.0, 0.0);
  }
  let n = arrayLength(&lidarTables);
  let e = lidarTables[n - 2u];
  return vec3f(e.x, e.y, lidarTables[n - 1u].x);
}

// Tile lists up to this long are sorted by distance, so a walk can stop early.
const SORTED_LIST: u32 = 64u;

const ANGLE_PAD: f32 = 2e-4;
const SIN_PAD: f32 = 2e-4;
const TWO_PI: f32 = 6.283185307179586;

// What the tile pass needs of a box to test it: the sensor origin in the box frame (as
// rayObbAxes computes it), the axes and half extents; stored as four vec4u in boxData.
struct RasterBox {
  p: vec3f,
  index: u32,
  u: vec3f,
  hx: f32,
  v: vec3f,
  hy: f32,
  w: vec3f,
  hz: f32,
}

@group(0) @binding(0) var<uniform> params: RayParams;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> boxMasks: array<u32>;
@group(0) @binding(11) var<uniform> lidar: LidarParams;
@group(0) @binding(12) var<storage, read> lidarTables: array<vec2f>;
@group(0) @binding(13) var<storage, read_write> lidarRange: array<f32>;
@group(0) @binding(14) var<storage, read_write> lidarBox: array<u32>;
@group(0) @binding(15) var<storage, read_write> lidarPoints: array<vec4f>;
// Per box i: its RasterBox in boxData[4i .. 4i + 3], and from boxData[4 · capacity + i] (capacity
// = arrayLength / 5) what the tile pass needs to skip it without the test: its cell rectangle
// (sorted channels [x & 0xffff, x >> 16), azimuths y + [0, z) modulo the azimuth count) and
// w = bits of the lower bound of its distance (nearBound): a ray whose best t is below it cannot
// hit it as close.
@group(0) @binding(16) var<storage, read_write> boxData: array<vec4u>;
// Per tile t: tileCounters[t] its count of boxes, scanned into the start of its list;
// tileCounters[T + t] its fill counter (T tiles); tileCounters[2T], [2T + 1]: the total of list
// entries, low and high word; tileCounters[2T + 2]: the rays left unanswered (the lists did not fit).
@group(0) @binding(17) var<storage, read_write> tileCounters: array<atomic<u32>>;
@group(0) @binding(19) var<storage, read_write> tileLists: array<u32>;
// With LIDAR_MOTION: the tree method's setup table of the sweep (lidar/tree.wgsl: per ray its
// azimuth and elevation, per column its beam origin and axes, the moving boxes' indices, masks
// and growth rates, per column the moving boxes at its time), then the motion records: one for
// the whole sweep, then one per chunk of chunkWidth image columns (motionRecord).
@group(0) @binding(21) var<storage, read> lidarSetup: array<vec4u>;

fn boxCapacity() -> u32 {
  return arrayLength(&boxData) / 5u;
}

fn storeRasterBox(i: u32, b: RasterBox) {
  boxData[4u * i] = vec4u(bitcast<vec3u>(b.p), b.index);
  boxData[4u * i + 1u] = bitcast<vec4u>(vec4f(b.u, b.hx));
  boxData[4u * i + 2u] = bitcast<vec4u>(vec4f(b.v, b.hy));
  boxData[4u * i + 3u] = bitcast<vec4u>(vec4f(b.w, b.hz));
}

fn loadRasterBox(i: u32) -> RasterBox {
  let q0 = boxData[4u * i];
  let q1 = bitcast<vec4f>(boxData[4u * i + 1u]);
  let q2 = bitcast<vec4f>(boxData[4u * i + 2u]);
  let q3 = bitcast<vec4f>(boxData[4u * i + 3u]);
  return RasterBox(bitcast<vec3f>(q0.xyz), q0.w, q1.xyz, q1.w, q2.xyz, q2.w, q3.xyz, q3.w);
}

// T, the number of tiles.
fn tileTotal() -> u32 {
  return azimuthTiles() * ((lidar.channels + TILE_CH - 1u) / TILE_CH);
}

fn invocationIndex(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + lid;
}

// atan on [-1, 1], absolute error below 1e-5 rad (a fixed polynomial, unlike WGSL's atan,
// whose accuracy the spec bounds only loosely); test/cpu/reference/lidarRaster.test.ts checks it.
fn atanUnit(x: f32) -> f32 {
  let x2 = x * x;
  return x * (0.99997726 + x2 * (-0.33262347 + x2 * (0.19354346 + x2 * (-0.11643287 + x2 * (0.05265332 + x2 * -0.01172120)))));
}

// atan2 over the whole circle from atanUnit (same error bound); 0 at the origin (no 0 / 0).
fn atan2Approx(y: f32, x: f32) -> f32 {
  let ax = abs(x);
  let ay = abs(y);
  var a: f32;
  if (ax == 0.0 && ay == 0.0) {
    a = 0.0;
  } else if (ay <= ax) {
    a = atanUnit(ay / ax);
  } else {
    a = 1.5707963267948966 - atanUnit(ax / ay);
  }
  if (x < 0.0) {
    a = 3.141592653589793 - a;
  }
  return select(a, -a, y < 0.0);
}

// sin of the elevation of (r, z), with 0/0 taken as `whenZero`.
fn sinElevation(z: f32, r: f32, whenZero: f32) -> f32 {
  let len = sqrt(z * z + r * r);
  return select(z / len, whenZero, len == 0.0);
}

// The rays whose channel has sin e in [lo, hi]: first sorted channel and count.
fn channelRange(lo: f32, hi: f32) -> vec2u {
  let base = lidar.azimuths + lidar.channels;
  // First sorted channel with sin e >= lo.
  var a = 0u;
  var b = lidar.channels;
  while (a < b) {
    let m = (a + b) / 2u;
    if (lidarTables[base + m].x < lo) { a = m + 1u; } else { b = m; }
  }
  let first = a;
  // First sorted channel with sin e > hi.
  b = lidar.channels;
  while (a < b) {
    let m = (a + b) / 2u;
    if (lidarTables[base + m].x <= hi) { a = m + 1u; } else { b = m; }
  }
  return vec2u(first, a - first);
}

// The whole image.
fn fullFootprint() -> vec4u {
  return vec4u(0u, lidar.channels, 0u, lidar.azimuths);
}

// A box in the sensor frame: centre relative to the sensor origin, and its axes scaled by the
// half extents.
struct LocalBox {
  c: vec3f,
  u: vec3f,
  v: vec3f,
  w: vec3f,
}

// A sensor frame: its origin (relative to the set's floating origin) and axes in world space.
struct Frame {
  origin: vec3f,
  x: vec3f,
  y: vec3f,
  z: vec3f,
}

// The sweep's one frame (no motion).
fn sensorFrame() -> Frame {
  return Frame(lidar.origin, lidar.axisX, lidar.axisY, lidar.axisZ);
}

fn toFrame(f: Frame, p: vec3f) -> vec3f {
  return vec3f(dot(p, f.x), dot(p, f.y), dot(p, f.z));
}

fn localBox(b: Obb, f: Frame) -> LocalBox {
  return LocalBox(toFrame(f, b.center - f.origin), toFrame(f, b.u) * b.hx, toFrame(f, b.v) * b.hy, toFrame(f, obbW(b)) * b.hz);
}

// Distance from the sensor to the box, from below (its sensor-frame bounding box), less a margin
// that covers the f32 error of both this bound and the slab test's t.
fn nearBound(lb: LocalBox, e: vec3f) -> f32 {
  let m = length(lb.c) + length(e);
  return max(0.0, length(max(abs(lb.c) - e, vec3f(0.0))) - 1e-5 * m);
}

// The box's half extents in the sensor frame, grown by `grow`: a ray from an origin within
// `grow` of the frame's origin (a beam origin n out; with motion, the beam origins of a chunk's
// columns) that meets the box is parallel to a ray from the frame's origin that meets the box
// grown by `grow` (every point of it within `grow` of the first ray's), so the grown box's
// rectangle and distance bound hold for every such ray. Static sweeps grow by n.
fn extent(lb: LocalBox, grow: f32) -> vec3f {
  return abs(lb.u) + abs(lb.v) + abs(lb.w) + vec3f(grow);
}

// The rectangle of the box `lb` (in the frame of its rays' origins, within `grow` of it), for
// rays whose directions lie within an angle γ of their nominal (channel, column) directions in
// that frame: turn = (cos γ, sin γ, azimuth pad), the pad asin(sin γ / cos E) (E the steepest
// channel's elevation; ≥ 3 for any azimuth). Without motion γ = 0: turn = (1, 0, 0).
fn footprint(lb: LocalBox, grow: f32, turn: vec3f) -> vec4u {
  let e = extent(lb, grow);
  let m = length(lb.c) + length(e);
  let near = length(max(abs(lb.c) - e, vec3f(0.0)));
  if (near < 0.02 * m) {
    return fullFootprint();
  }
  let rMin = length(max(abs(lb.c.xy) - e.xy, vec2f(0.0)));
  let rMax = length(abs(lb.c.xy) + e.xy);
  let zMin = lb.c.z - e.z;
  let zMax = lb.c.z + e.z;
  let sHi = turnUp(sinElevation(zMax, select(rMax, rMin, zMax > 0.0), 1.0), turn);
  let sLo = -turnUp(-sinElevation(zMin, select(rMax, rMin, zMin < 0.0), -1.0), turn);
  let ch = channelRange(sLo - SIN_PAD, sHi + SIN_PAD);
  if (ch.y == 0u) {
    return vec4u(0u);
  }
  let rc = length(lb.c.xy);
  // The grown box's shadow on the scan plane is the box's widened by `grow`: its azimuths by at
  // most asin(grow / ρ), ρ = rc − |e.xy| below the distance from the axis to the box's; bounded
  // above by tan(asin x) = x / sqrt(1 − x²) (0 when grow = 0).
  let rho = rc - length(e.xy);
  let x = grow / max(rho, 1e-30);
  if (length(e.xy) >= 0.7 * rc || rho < 0.02 * m || x >= 0.5 || turn.z >= 3.0) {
    return vec4u(ch.x, ch.y, 0u, lidar.azimuths);
  }
  let widen = x / sqrt(1.0 - x * x) + turn.z;
  let along = lb.c.xy / rc;
  var tMin = 0.0;
  var tMax = 0.0;
  for (var k = 0u; k < 8u; k++) {
    let s = vec3f(select(-1.0, 1.0, (k & 1u) != 0u), select(-1.0, 1.0, (k & 2u) != 0u), select(-1.0, 1.0, (k & 4u) != 0u));
    let p = lb.c.xy + s.x * lb.u.xy + s.y * lb.v.xy + s.z * lb.w.xy;
    let t = (along.x * p.y - along.y * p.x) / dot(along, p);
    tMin = min(tMin, t);
    tMax = max(tMax, t);
  }
  let phi = atan2Approx(lb.c.y, lb.c.x);
  let start = atan2Approx(lidarTables[0].y, lidarTables[0].x);
  let scale = f32(lidar.azimuths) / TWO_PI;
  // Image column a holds rays pointing at θ_a + ρ_c (sortedRay): such a ray can meet the box only
  // when θ_a lies in [φlo − ρmax, φhi − ρmin] (offsetMin/offsetMax: the residuals ρ_c over every
  // channel, at most half a column; 0 without offsets).
  let angleLo = phi + atanUnit(tMin) - ANGLE_PAD - lidar.offsetMax - widen;
  let angleHi = phi + atanUnit(tMax) + ANGLE_PAD - lidar.offsetMin + widen;
  // Steps a with θ_a inside [angleLo, angleHi], in steps from start: θ_a = start + 2π a / A
  // (counter-clockwise), a = (θ − start) · A / 2π; or θ_a = start − 2π a / A (clockwise),
  // a = (start − θ) · A / 2π, which swaps the ends.
  let clockwise = (lidar.flags & LIDAR_CLOCKWISE) != 0u;
  if ((lidar.flags & LIDAR_PARTIAL) != 0u) {
    return vec4u(ch.x, ch.y, partialColumns(angleLo, angleHi, start, clockwise));
  }
  let lo = select((angleLo - start) * scale, (start - angleHi) * scale, clockwise);
  let hi = select((angleHi - start) * scale, (start - angleLo) * scale, clockwise);
  let aLo = ceil(lo);
  let width = floor(hi) - aLo + 1.0;
  if (width <= 0.0) {
    return vec4u(0u);
  }
  if (width >= f32(lidar.azimuths)) {
    return vec4u(ch.x, ch.y, 0u, lidar.azimuths);
  }
  let az = f32(lidar.azimuths);
  let first = u32(aLo - floor(aLo / az) * az) % lidar.azimuths;
  return vec4u(ch.x, ch.y, first, u32(width));
}

// sin(e + γ) from s = sin e (e + γ capped at 90°) for turn = (cos γ, sin γ, ·): s itself when γ = 0.
fn turnUp(s: f32, turn: vec3f) -> f32 {
  if (turn.y == 0.0) {
    return s;
  }
  if (s >= turn.x) {
    return 1.0;
  }
  return s * turn.x + sqrt(max(0.0, 1.0 - s * s)) * turn.y;
}

// A partial field of view (|span| < 2π, lidar.span): the columns a in [0, A) whose angle
// θ_a = start ± |span| · a / A lies in [angleLo, angleHi], as (first, width), without wrapping past
// the last column (the first and last columns are not neighbours). The interval is measured from
// start the way the sensor turns, u = (angle − start) mod 2π; the columns it covers, and those 2π
// earlier (an interval straddling start), are each clipped to [0, A); when both are non-empty (a
// field within the box's width of a full turn) every column is taken.
fn partialColumns(angleLo: f32, angleHi: f32, start: f32, clockwise: bool) -> vec2u {
  let az = f32(lidar.azimuths);
  let steps = az / abs(lidar.span);
  let width = angleHi - angleLo;
  let offset = select(angleLo - start, start - angleHi, clockwise);
  let u = offset - floor(offset / TWO_PI) * TWO_PI;
  var first = az;
  var last = -1.0;
  var runs = 0u;
  for (var k = 0u; k < 2u; k++) {
    let shift = select(0.0, TWO_PI, k == 1u);
    let lo = max(ceil((u - shift) * steps), 0.0);
    let hi = min(floor((u - shift + width) * steps), az - 1.0);
    if (lo <= hi) {
      first = min(first, lo);
      last = max(last, hi);
      runs += 1u;
    }
  }
  if (runs == 0u) {
    return vec2u(0u, 0u);
  }
  if (runs == 2u) {
    return vec2u(0u, lidar.azimuths);
  }
  return vec2u(u32(first), u32(last - first) + 1u);
}

fn azimuthTiles() -> u32 {
  return (lidar.azimuths + TILE_AZ - 1u) / TILE_AZ;
}

// The tiles a footprint touches: sorted-channel tile rows [row0, row1], and up to two runs of
// azimuth tile columns (the rectangle may wrap past the last azimuth step): [c0, c1] and, when
// c2 <= c3, [c2, c3].
struct TileSpan {
  row0: u32,
  row1: u32,
  cols: vec4u,
}

fn tileSpan(f: vec4u) -> TileSpan {
  let rows = vec2u(f.x / TILE_CH, (f.x + f.y - 1u) / TILE_CH);
  let last = azimuthTiles() - 1u;
  var cols = vec4u(1u, 0u, 1u, 0u);
  if (f.w >= lidar.azimuths) {
    cols = vec4u(0u, last, 1u, 0u);
  } else if (f.z + f.w <= lidar.azimuths) {
    cols = vec4u(f.z / TILE_AZ, (f.z + f.w - 1u) / TILE_AZ, 1u, 0u);
  } else {
    cols = vec4u(f.z / TILE_AZ, last, 0u, (f.z + f.w - lidar.azimuths - 1u) / TILE_AZ);
    // Both runs may meet in one column (TILE_AZ not dividing the azimuth count): keep it once.
    if (cols.w >= cols.x) {
      cols = vec4u(0u, last, 1u, 0u);
    }
  }
  return TileSpan(rows.x, rows.y, cols);
}

fn tileCount(span: TileSpan) -> u32 {
  let cols = select(0u, span.cols.y - span.cols.x + 1u, span.cols.y >= span.cols.x) + select(0u, span.cols.w - span.cols.z + 1u, span.cols.w >= span.cols.z);
  return (span.row1 - span.row0 + 1u) * cols;
}

// A box's rectangle (sorted channels x + [0, y), columns z + [0, w) modulo the azimuth count;
// zero when it meets no ray) and its distance bound.
struct Print {
  rect: vec4u,
  near: f32,
}

// Box i's mask (all bits without the set's masks).
fn boxMask(i: u32) -> u32 {
  if ((params.flags & RAY_OPT_BOX_MASKS) != 0u) {
    return boxMasks[i];
  }
  return 0xffffffffu;
}

// The footprint of box i in a motionless sweep (zero when out of range or masked out). Every ray
// starts within lidar.originGrow of the sensor origin: its beam origin n out on the circle, with
// LIDAR_LIFT lifted by its channel's v_c along the sensor's z, so at most n + max |v_c| away (the
// host rounds that up; n itself without vertical offsets), and the box grown by it holds them all
// (extent, footprint).
fn staticPrint(i: u32) -> Print {
  let lb = localBox(boxes[i], sensorFrame());
  let near = nearBound(lb, extent(lb, lidar.originGrow));
  if ((lidar.mask & boxMask(i)) == 0u || near > lidar.maxRange) {
    return Print(vec4u(0u), near);
  }
  return Print(footprint(lb, lidar.originGrow, noiseTurn()), near);
}

// Motion during the sweep (LIDAR_MOTION). Every ray is the tree method's, from the setup table:
// its column's beam origin and axes at the column's time, the moving boxes at that time. A box's
// rectangle must hold every ray that can meet it, so it is swept: the image's columns are cut
// into chunks of chunkWidth, and for each chunk the host gives (motionRecord) a reference frame
// (the sensor's position and axes at a reference column), δ ≥ the distance of every beam origin of
// the chunk's rays from that position, γ ≥ the angle of every one of their frames' rotations from
// the reference's, and Δτ ≥ their times' distance from the reference time. A ray of the chunk
// starts within δ of the reference position, so (extent) it is parallel to a ray from there that
// meets the box grown by δ; a moving box at the ray's time lies within g·Δτ of itself at the
// reference time (g = |v| + |ω|·|h|, the host's growth rate: no point of it moves faster), so the
// growth is δ + g·Δτ; and its direction is its nominal direction in the reference frame turned
// by at most γ, so elevations widen by γ and azimuths by asin(sin γ / cos E) (footprint). The
// box's rectangle is the hull of its rectangles in the chunks, each clipped to its chunk's
// columns; only the chunks its rectangle over the whole sweep (record 0: the same bounds for every
// ray) touches are visited. Static boxes keep their RasterBox with the centre in place of the
// sensor origin in the box frame (which changes with the column); moving boxes come after the
// set's boxes, slot boxCount + k for moving box k, and are tested at each ray's column's time.
// Per-laser data (vertical offsets, firing-time offsets) takes this path when something moves (and
// when a beam-origin circle meets firing times: the origin's angle is then the firing's): each
// ray then has a frame of its own (its channel's firing: time τ_a + f_c, beam origin turned with
// the head and lifted by v_c), the moving boxes sit at each firing-time row's times, the firing
// turn is part of the channel's azimuth offset (so of the image's column shifts and residuals),
// and the host's records bound every ray of a chunk, not only its columns' first firings.

fn raysTotal() -> u32 {
  return lidar.channels * lidar.azimuths;
}

fn setupVec(k: u32) -> vec3f {
  return bitcast<vec3f>(lidarSetup[k].xyz);
}

// Frame f's entries: beam origin (w: its firing-time row g as u32: the moving boxes of the ray are
// those of time slot g · A + its column), then the sensor's x, y, z axes at its time. One frame per column (lidar.frameRows = 1: frame a), or with per-laser data
// (vertical offsets, firing times; frameRows = C) one per ray (frame c · A + a).
fn frameEntry(f: u32) -> u32 {
  return raysTotal() + 4u * f;
}

// The frame of ray (channel c, encoder column a).
fn rayFrame(c: u32, a: u32) -> u32 {
  return select(a, c * lidar.azimuths + a, lidar.frameRows > 1u);
}

fn framesTotal() -> u32 {
  return lidar.frameRows * lidar.azimuths;
}

// Moving box k: (index in the set, mask, growth rate g as f32 bits, 0).
fn movingEntry(k: u32) -> vec4u {
  return lidarSetup[raysTotal() + 4u * framesTotal() + k];
}

// Moving box k at time slot s (firing-time row g, column a: s = g · A + a).
fn movingObb(s: u32, k: u32) -> Obb {
  let at = raysTotal() + 4u * framesTotal() + lidar.moving + 3u * (s * lidar.moving + k);
  let p = bitcast<vec4f>(lidarSetup[at]);
  let u = bitcast<vec4f>(lidarSetup[at + 1u]);
  let v = bitcast<vec4f>(lidarSetup[at + 2u]);
  return Obb(p.xyz, p.w, u.xyz, u.w, v.xyz, v.w);
}

// Motion record r (0: the whole sweep; 1 + j: chunk j): three entries, (reference frame, δ, Δτ,
// its time slot), (cos γ, sin γ, azimuth pad, 0), (reference position, 0).
fn motionRecord(r: u32) -> u32 {
  return raysTotal() + 4u * framesTotal() + lidar.moving + 3u * lidar.timeRows * lidar.azimuths * lidar.moving + 3u * r;
}

// Slot i's footprint for the rays of motion record r.
fn recordPrint(i: u32, r: u32) -> Print {
  let at = motionRecord(r);
  let q = lidarSetup[at];
  let turn = bitcast<vec4f>(lidarSetup[at + 1u]).xyz;
  let col = frameEntry(q.x);
  let frame = Frame(setupVec(at + 2u), setupVec(col + 1u), setupVec(col + 2u), setupVec(col + 3u));
  var grow = bitcast<f32>(q.y);
  var b: Obb;
  if (!MOVING || i < params.boxCount) {
    b = boxes[i];
  } else {
    let k = i - params.boxCount;
    b = movingObb(q.w, k);
    grow += bitcast<f32>(movingEntry(k).z) * bitcast<f32>(q.z);
  }
  let lb = localBox(b, frame);
  let near = nearBound(lb, extent(lb, grow));
  if (near > lidar.maxRange) {
    return Print(vec4u(0u), near);
  }
  return Print(footprint(lb, grow, turn), near);
}

// The columns of [s, e) in the column range (first, width) (modulo the azimuth count), as
// [lo, hi): their hull when the range enters the chunk twice; empty (lo >= hi) when none.
fn clipColumns(range: vec2u, s: u32, e: u32) -> vec2u {
  let az = lidar.azimuths;
  if (range.y >= az) {
    return vec2u(s, e);
  }
  var lo = e;
  var hi = s;
  let into = (s + az - range.x) % az;
  if (into < range.y) {
    lo = s;
    hi = s + min(range.y - into, e - s);
  }
  if (range.x > s && range.x < e) {
    lo = min(lo, range.x);
    hi = max(hi, min(e, range.x + range.y));
  }
  return vec2u(lo, hi);
}

// The footprint of slot i in a sweep with motion: the hull of its chunks' rectangles.
fn motionPrint(i: u32) -> Print {
  var mask = 0u;
  if (i < params.boxCount) {
    mask = boxMask(i);
  } else {
    mask = movingEntry(i - params.boxCount).y;
  }
  let whole = recordPrint(i, 0u);
  if ((lidar.mask & mask) == 0u || whole.rect.y == 0u || whole.rect.w == 0u) {
    return Print(vec4u(0u), whole.near);
  }
  let az = lidar.azimuths;
  let cw = lidar.chunkWidth;
  if (cw >= az) {
    // One chunk (nothing moves: per-laser data alone): its bounds are the whole sweep's.
    return whole;
  }
  let chunks = (az + cw - 1u) / cw;
  // The chunks the whole sweep's column range touches, in order from its first column's (past
  // the last chunk to the first for a range across the seam); columns counted on from there
  // (those of earlier chunks plus the azimuth count).
  let c0 = whole.rect.z / cw;
  let end = whole.rect.z + min(whole.rect.w, az) - 1u;
  let lastChunk = select(end / cw, chunks + (end - az) / cw, end >= az);
  let count = min(chunks, lastChunk - c0 + 1u);
  var chLo = lidar.channels;
  var chHi = 0u;
  var near = F32_MAX;
  var pieces = 0u;
  var firstLo = 0u;
  var lastHi = 0u;
  // The widest gap between consecutive pieces: [gapHi, gapLo).
  var gap = 0u;
  var gapLo = 0u;
  var gapHi = 0u;
  for (var m = 0u; m < count; m++) {
    let j = (c0 + m) % chunks;
    let p = recordPrint(i, 1u + j);
    if (p.rect.y == 0u || p.rect.w == 0u) {
      continue;
    }
    let piece = clipColumns(p.rect.zw, j * cw, min(j * cw + cw, az));
    if (piece.x >= piece.y) {
      continue;
    }
    let lo = piece.x + select(0u, az, j < c0);
    let hi = piece.y + select(0u, az, j < c0);
    if (pieces == 0u) {
      firstLo = lo;
    } else if (lo > lastHi && lo - lastHi > gap) {
      gap = lo - lastHi;
      gapLo = lo;
      gapHi = lastHi;
    }
    lastHi = max(lastHi, hi);
    pieces += 1u;
    chLo = min(chLo, p.rect.x);
    chHi = max(chHi, p.rect.x + p.rect.y);
    near = min(near, p.near);
  }
  if (pieces == 0u) {
    return Print(vec4u(0u), whole.near);
  }
  // The hull: from the first piece to the last, or, on a full turn, the circle less its widest
  // gap when that is not the one from the last piece round to the first.
  var first = firstLo;
  var width = lastHi - firstLo;
  if ((lidar.flags & LIDAR_PARTIAL) == 0u && gap > firstLo + az - min(lastHi, firstLo + az)) {
    first = gapLo;
    width = gapHi + az - gapLo;
  }
  return Print(vec4u(chLo, chHi - chLo, first % az, min(width, az)), near);
}

@compute @workgroup_size(WG)
fn lidarFootprint(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = invocationIndex(lid, wid, nwg);
  if (i >= params.boxCount + lidar.moving) {
    return;
  }
  var p: Print;
  if (!sweepMoves()) {
    let b = boxes[i];
    let w = obbW(b);
    let rel = lidar.origin - b.center;
    storeRasterBox(i, RasterBox(vec3f(dot(rel, b.u), dot(rel, b.v), dot(rel, w)), i, b.u, b.hx, b.v, b.hy, w, b.hz));
    p = staticPrint(i);
  } else {
    if (i < params.boxCount) {
      let b = boxes[i];
      storeRasterBox(i, RasterBox(b.center, i, b.u, b.hx, b.v, b.hy, obbW(b), b.hz));
    } else {
      // Tested from the table at each ray's column; only its index in the set here.
      storeRasterBox(i, RasterBox(vec3f(0.0), movingEntry(i - params.boxCount).x, vec3f(0.0), 0.0, vec3f(0.0), 0.0, vec3f(0.0), 0.0));
    }
    p = motionPrint(i);
  }
  let f = p.rect;
  // The distance bound as bits that order as the (non-negative) values: -0 taken as 0.
  boxData[4u * boxCapacity() + i] = vec4u(f.x | ((f.x + f.y) << 16u), f.z, f.w, select(bitcast<u32>(p.near), 0u, p.near == 0.0));
  if (f.y * f.w == 0u) {
    return;
  }
  let span = tileSpan(f);
  visitTiles(span, i, false);
  let n = tileCount(span);
  let tiles = tileTotal();
  let old = atomicAdd(&tileCounters[2u * tiles], n);
  if (old > 0xffffffffu - n) {
    atomicAdd(&tileCounters[2u * tiles + 1u], 1u);
  }
}

// Every tile of a footprint's span: counts box i in it (append = false, lidarFootprint) or
// appends box i to its list when the lists fit (append = true, lidarBin, after the scan).
fn visitTiles(span: TileSpan, i: u32, append: bool) {
  let perRow = azimuthTiles();
  for (var row = span.row0; row <= span.row1; row++) {
    for (var run = 0u; run < 2u; run++) {
      let cols = select(span.cols.xy, span.cols.zw, run == 1u);
      for (var col = cols.x; col <= cols.y; col++) {
        let t = row * perRow + col;
        if (!append) {
          atomicAdd(&tileCounters[t], 1u);
        } else {
          let slot = atomicLoad(&tileCounters[t]) + atomicAdd(&tileCounters[tileTotal() + t], 1u);
          if (slot < arrayLength(&tileLists)) {
            tileLists[slot] = i;
          }
        }
      }
    }
  }
}

// Whether the tile lists overflowed (over 2^32 entries, or more than their capacity).
fn listsOverflowed() -> bool {
  let tiles = tileTotal();
  return atomicLoad(&tileCounters[2u * tiles + 1u]) != 0u || atomicLoad(&tileCounters[2u * tiles]) > arrayLength(&tileLists);
}

@compute @workgroup_size(WG)
fn lidarBin(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = invocationIndex(lid, wid, nwg);
  if (i >= params.boxCount + lidar.moving) {
    return;
  }
  let rect = boxData[4u * boxCapacity() + i];
  let s0 = rect.x & 0xffffu;
  let s1 = rect.x >> 16u;
  if (s1 == s0 || rect.z == 0u) {
    return;
  }
  visitTiles(tileSpan(vec4u(s0, s1 - s0, rect.y, rect.z)), i, true);
}

// The direction of ray r = c · azimuths + a, as bvhLidar makes it.
fn lidarDirection(c: u32, a: u32) -> vec3f {
  var az = lidarTables[a];
  if ((lidar.flags & LIDAR_PER_RAY_AZIMUTH) != 0u) {
    // (cos(θ_a + δ_c), sin(θ_a + δ_c)), after the sorted channels.
    az = lidarTables[lidar.azimuths + 2u * lidar.channels + c * lidar.azimuths + a];
  }
  let el = lidarTables[lidar.azimuths + c];
  let local = vec3f(el.x * az.x, el.x * az.y, el.y);
  return normalize(local.x * lidar.axisX + local.y * lidar.axisY + local.z * lidar.axisZ);
}

// The closest hit of one ray so far.
struct Best {
  t: f32,
  box: u32,
}

// One ray of a tile: its direction, where it starts (start; without motion: its beam origin's offset
// from the sensor origin, zero without a beam-origin offset; with motion: its beam origin,
// relative to the set's floating origin) and, with motion, the time slot of its moving boxes.
struct TileRay {
  dir: vec3f,
  start: vec3f,
  slot: u32,
}

// Offers the box in slot i (record b, rectangle rect) to the ray of sorted channel s.
fn offer(s: u32, ray: TileRay, rect: vec4u, i: u32, b: RasterBox, best: ptr<function, Best>) {
  if (s < (rect.x & 0xffffu) || s >= (rect.x >> 16u) || bitcast<f32>(rect.w) > (*best).t) {
    return;
  }
  var p: vec3f;
  var d: vec3f;
  var h = vec3f(b.hx, b.hy, b.hz);
  if (!sweepMoves()) {
    // The sensor origin in the box frame plus the beam's offset (p itself when that is zero).
    p = b.p + vec3f(dot(ray.start, b.u), dot(ray.start, b.v), dot(ray.start, b.w));
    d = vec3f(dot(ray.dir, b.u), dot(ray.dir, b.v), dot(ray.dir, b.w));
  } else {
    // rayObbAxes' steps, as the tree method takes them: a static box from its record (centre in
    // p), a moving one from the table at the ray's column.
    var c = b.p;
    var u = b.u;
    var v = b.v;
    var w = b.w;
    if (MOVING && i >= params.boxCount) {
      let o = movingObb(ray.slot, i - params.boxCount);
      c = o.center;
      u = o.u;
      v = o.v;
      w = obbW(o);
      h = vec3f(o.hx, o.hy, o.hz);
    }
    let rel = ray.start - c;
    p = vec3f(dot(rel, u), dot(rel, v), dot(rel, w));
    d = vec3f(dot(ray.dir, u), dot(ray.dir, v), dot(ray.dir, w));
  }
  let t = rayObbLocalT(p, d, h, lidar.maxRange);
  if (t >= 0.0 && (t < (*best).t || (t == (*best).t && b.index < (*best).box))) {
    *best = Best(t, b.index);
  }
}

// The ray of sorted channel s in image column a: its index c · azimuths + (encoder column). The
// image is laid out by the rays' azimuths: with per-channel offsets, channel c's ray of encoder
// column a points at θ_{a + k_c} + ρ_c (k_c the offset in whole columns, |ρ_c| at most half a
// column; the host's shift table, after the per-ray azimuths), so image column a holds its
// encoder column (a − k_c) mod A. Without offsets the two are the same.
fn sortedRay(s: u32, a: u32) -> vec2u {
  let c = u32(lidarTables[lidar.azimuths + lidar.channels + s].y);
  var column = a;
  if ((lidar.flags & LIDAR_PER_RAY_AZIMUTH) != 0u) {
    let shift = u32(lidarTables[lidar.azimuths + 2u * lidar.channels + lidar.channels * lidar.azimuths + s].x);
    column = (a + lidar.azimuths - shift) % lidar.azimuths;
  }
  return vec2u(c, column);
}

// Writes the result of the ray of sorted channel s, image column a (nothing past the last channel).
fn writeRay(s: u32, a: u32, ray: TileRay, best: Best) {
  if (s >= lidar.channels) {
    return;
  }
  let at = sortedRay(s, a);
  let r = at.x * lidar.azimuths + at.y;
  // A closest hit nearer than minRange is no return (the box still occludes).
  let hit = best.box != NO_BOX && best.t >= lidar.minRange;
  lidarRange[r] = select(LIDAR_NO_RETURN, best.t, hit);
  lidarBox[r] = select(NO_BOX, best.box, hit);
  // The point buffer only when asked for (a 16-byte scattered write per ray is not free).
  if ((params.flags & RAY_OPT_GEOMETRY) != 0u) {
    var point = ray.start + best.t * ray.dir;
    if (!sweepMoves()) {
      point = lidar.origin + ray.start + best.t * ray.dir;
    }
    lidarPoints[r] = select(vec4f(0.0), vec4f(point, 1.0), hit);
  }
}

// The direction of ray r from the setup table's (perturbed) azimuth and elevation and the
// sensor's axes: with NOISE, in lidarDirection's operations.
fn setupDirection(r: u32) -> vec3f {
  let t = bitcast<vec4f>(lidarSetup[r]);
  let local = vec3f(t.z * t.x, t.z * t.y, t.w);
  return normalize(local.x * lidar.axisX + local.y * lidar.axisY + local.z * lidar.axisZ);
}

// Channel c's beam-origin height v_c (LIDAR_LIFT: per channel after the per-ray azimuths and the
// column shifts, or after the sorted channels without them).
fn channelLift(c: u32) -> f32 {
  var at = lidar.azimuths + 2u * lidar.channels;
  if ((lidar.flags & LIDAR_PER_RAY_AZIMUTH) != 0u) {
    at += lidar.channels * lidar.azimuths + lidar.channels;
  }
  return lidarTables[at + c].x;
}

// The ray of sorted channel s in image column a (any valid one past the last channel). Without
// motion: its direction from the tables (with NOISE, the setup table's) and the sensor's axes,
// and its beam origin's offset n · (cos θ · axisX + sin θ · axisY) at its encoder angle θ, with
// LIDAR_LIFT plus v_c · axisZ (the host takes this path only where θ is the column's: no firing
// turn, or n = 0). With
// motion: the tree method's ray (lidar/tree.wgsl, bvhLidar), operation for operation, so both
// methods meet the same boxes at the same t.
fn tileRay(s: u32, a: u32) -> TileRay {
  let at = sortedRay(min(s, lidar.channels - 1u), a);
  if (!sweepMoves()) {
    let enc = lidarTables[at.y];
    var dir: vec3f;
    if (NOISE) {
      dir = setupDirection(at.x * lidar.azimuths + at.y);
    } else {
      dir = lidarDirection(at.x, at.y);
    }
    var start = lidar.beamOffset * (enc.x * lidar.axisX + enc.y * lidar.axisY);
    if ((lidar.flags & LIDAR_LIFT) != 0u) {
      start += channelLift(at.x) * lidar.axisZ;
    }
    return TileRay(dir, start, at.y);
  }
  let t = bitcast<vec4f>(lidarSetup[at.x * lidar.azimuths + at.y]);
  let local = vec3f(t.z * t.x, t.z * t.y, t.w);
  let col = frameEntry(rayFrame(at.x, at.y));
  let origin = lidarSetup[col];
  // The moving boxes' time slot only when they are compiled in (one load less per ray otherwise).
  let slot = select(0u, origin.w * lidar.azimuths + at.y, MOVING);
  return TileRay(normalize(local.x * setupVec(col + 1u) + local.y * setupVec(col + 2u) + local.z * setupVec(col + 3u)), bitcast<vec3f>(origin.xyz), slot);
}

// Whether box i comes before box j in a sorted tile list: nearer distance bound first, then
// smaller index (a total order, so the sorted list does not depend on the binning's order).
fn before(i: u32, j: u32, rects: u32) -> bool {
  let ki = boxData[rects + i].w;
  let kj = boxData[rects + j].w;
  return ki < kj || (ki == kj && i < j);
}

// One invocation per tile: sorts its list by distance bound (insertion sort, lists of up to
// SORTED_LIST entries; longer lists stay as binned and are walked to the end).
@compute @workgroup_size(WG)
fn lidarSortTiles(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let t = invocationIndex(lid, wid, nwg);
  let tiles = tileTotal();
  if (t >= tiles || listsOverflowed()) {
    return;
  }
  let begin = atomicLoad(&tileCounters[t]);
  let count = atomicLoad(&tileCounters[tiles + t]);
  if (count > SORTED_LIST) {
    return;
  }
  let rects = 4u * boxCapacity();
  for (var k = begin + 1u; k < begin + count; k++) {
    let i = tileLists[k];
    var m = k;
    while (m > begin && before(i, tileLists[m - 1u], rects)) {
      tileLists[m] = tileLists[m - 1u];
      m -= 1u;
    }
    tileLists[m] = i;
  }
}

// One invocation per azimuth step of a tile, each running the tile's TILE_CH = 4 channels: a box
// is read once for four rays, and its azimuth range checked once for them. Workgroups stride
// over the tiles (as many as the host dispatches; each tile once), so a CPU adapter is not
// charged a workgroup launch per tile.
@compute @workgroup_size(TILE_AZ)
fn lidarTiles(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let tiles = tileTotal();
  let overflowed = listsOverflowed();
  let perRow = azimuthTiles();
  for (var t = wid.x + wid.y * nwg.x; t < tiles; t += nwg.x * nwg.y) {
    runTile(t / perRow, t % perRow, lid, overflowed);
  }
}

// Tile (row, col); this invocation's rays: sorted channels s0 .. s0 + 3, azimuth a.
fn runTile(row: u32, col: u32, lid: u32, overflowed: bool) {
  let s0 = row * TILE_CH;
  let a = col * TILE_AZ + lid;
  if (a >= lidar.azimuths) {
    return;
  }
  if (overflowed) {
    // The lists did not fit: no answer here (the host grows them and sweeps again).
    for (var s = s0; s < min(s0 + TILE_CH, lidar.channels); s++) {
      let ray = sortedRay(s, a);
      let r = ray.x * lidar.azimuths + ray.y;
      atomicAdd(&tileCounters[2u * tileTotal() + 2u], 1u);
      lidarRange[r] = LIDAR_NO_RETURN;
      lidarBox[r] = LIDAR_UNANSWERED;
      if ((params.flags & RAY_OPT_GEOMETRY) != 0u) {
        lidarPoints[r] = vec4f(0.0);
      }
    }
    return;
  }
  let r0 = tileRay(s0, a);
  let r1 = tileRay(s0 + 1u, a);
  let r2 = tileRay(s0 + 2u, a);
  let r3 = tileRay(s0 + 3u, a);
  var b0 = Best(F32_MAX, NO_BOX);
  var b1 = Best(F32_MAX, NO_BOX);
  var b2 = Best(F32_MAX, NO_BOX);
  var b3 = Best(F32_MAX, NO_BOX);
  let t = row * azimuthTiles() + col;
  let begin = atomicLoad(&tileCounters[t]);
  let end = begin + atomicLoad(&tileCounters[tileTotal() + t]);
  let rects = 4u * boxCapacity();
  // A sorted list (see lidarSortTiles) ends for these rays at the first box whose distance bound
  // is beyond all four best hits: every later box is at least as far.
  let sorted = end - begin <= SORTED_LIST;
  for (var k = begin; k < end; k++) {
    let i = tileLists[k];
    // The rays' cells must lie in the box's rectangle (tiles are coarser than rectangles), and
    // the box must not lie wholly beyond a ray's best hit so far.
    let rect = boxData[rects + i];
    if (sorted && bitcast<f32>(rect.w) > max(max(b0.t, b1.t), max(b2.t, b3.t))) {
      break;
    }
    let da = select(a + lidar.azimuths - rect.y, a - rect.y, a >= rect.y);
    if (da >= rect.z) {
      continue;
    }
    let b = loadRasterBox(i);
    offer(s0, r0, rect, i, b, &b0);
    offer(s0 + 1u, r1, rect, i, b, &b1);
    offer(s0 + 2u, r2, rect, i, b, &b2);
    offer(s0 + 3u, r3, rect, i, b, &b3);
  }
  writeRay(s0, a, r0, b0);
  writeRay(s0 + 1u, a, r1, b1);
  writeRay(s0 + 2u, a, r2, b2);
  writeRay(s0 + 3u, a, r3, b3);
}
