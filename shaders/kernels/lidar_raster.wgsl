// lidar_raster.wgsl — a LiDAR sweep by rasterising boxes into the sensor's range image, instead
// of walking a tree per ray. Every ray of a sweep leaves one point (the sensor origin), so each
// box covers a rectangle of (channel, azimuth) cells: the rays that can hit it. Those cells are
// the work items; each one is a slab test of one ray against one box, and the closest hit per
// ray is kept with atomics. The cost is Σ over boxes in range of the cells they cover (about the
// depth complexity times the ray count: 6.6 tests per ray in the 128 × 2,048 benchmark sweep),
// with no tree to build or refit, so it suits moving scenes too.
//
// Entry points, in order (src/bvh/Lidar.ts records them into one compute pass):
//   lidarDirections one invocation per ray: its direction (as bvhLidar makes it).
//   lidarFootprint  one invocation per box: its cell rectangle (conservative: every ray that can
//                   hit the box is inside it, argued below) and the number of cells, 0 when the
//                   box is out of range or masked out; a 64-bit total of the cells.
//   (ExclusiveScan of the cell counts: each box's first work item)
//   lidarRasterArgs one thread: the indirect dispatch size of the two raster passes (CHUNK
//                   items per invocation), or none and the overflow flag when the total does not
//                   fit in 32 bits (never in practice: 16,384 boxes each covering a whole
//                   262,144-ray image); the host then answers the sweep on the CPU.
//   lidarDepth      per chunk of work items: the slab test; atomicMax of ~bits(t) per ray, so
//                   the smallest t wins (t ≥ 0, whose f32 bit patterns order as the values).
//                   A hit at least as close as the ray's best so far is also appended to a
//                   candidate list: the box that ends closest (or tied) is always among them.
//   lidarWinnerArgs one thread: the winner pass's size — over the candidate list when it held
//                   every candidate (about one or two per ray), else over all the items again.
//   lidarWinnerList per candidate: one whose t equals its ray's final best t offers its box index
//                   with atomicMax(~index), so the smallest index wins a tie — the rule of every
//                   closest-hit query here.
//   lidarWinner     (only when the list overflowed) the same over every work item again, with
//                   the slab test redone; boxes that cannot reach the best t are skipped before
//                   the slab test (their distance lower bound is beyond it).
//   lidarResolve    per ray: range image, hit box and point, as bvhLidar writes them.
// The t of a ray and a box is computed by the same steps on the same f32 inputs in both passes
// (those of rayObbAxes, with the box-frame origin computed once per box), so the equality test
// of lidarWinner is exact.
//
// Why the rectangle is conservative. Coordinates are taken in the sensor frame (x, y: the scan
// plane, z: up), relative to the sensor origin. Every ray is origin + t·d with d = (cos e cos θ,
// cos e sin θ, sin e), cos e > 0 (the host only rasterises such tables), so every point of the
// ray has azimuth θ and elevation e. A box point has elevation e = atan2(z, r) with r its
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
//   2 boxMasks: array<u32>; 10 overflowCount: atomic<u32>; 11 lidar: LidarParams;
//   12 lidarTables: array<vec2f> (cos/sin per azimuth, cos/sin per channel, then per sorted
//   channel (sin e, channel)); 13 lidarRange: array<f32>; 14 lidarBox: array<u32>;
//   15 lidarPoints: array<vec4f>; 16 footprints: array<vec4u> (first sorted channel, channels,
//   first azimuth, azimuths); 17 offsets: array<u32> (cells, then scanned: first item);
//   18 depth: array<atomic<u32>> (~bits(t), 0 = none); 19 winner: array<atomic<u32>> (~index);
//   20 totals: array<atomic<u32>, 2> (cells, low and high word); 21 rasterArgsOut / 22
//   rasterArgs: array<u32> (x, y, z of the indirect dispatch, total cells, overflow flag;
//   written by lidarRasterArgs, read by the rest; [8..11] the list winner pass, [12..14] the
//   full one, from lidarWinnerArgs); 23 rayDirs: array<vec4f>; 24 candidateCount: atomic<u32>;
//   25 candidates: array<u32> (ray, box, bits triples). Workgroup size WG.
// CPU twin: closestHit / closestHitGrid on lidarRays (src/reference/lidar.ts), which
// test/gpu/bvh.test.ts compares through the comparator (and with the bvh method, ray by ray) on
// street scenes and on the footprint's hard cases; the atanUnit bound is checked in
// test/cpu/reference/lidarRaster.test.ts.

override WG: u32 = 64u;
// Work items per invocation of the raster passes.
override CHUNK: u32 = 16u;

const ANGLE_PAD: f32 = 2e-4;
const SIN_PAD: f32 = 2e-4;
const TWO_PI: f32 = 6.283185307179586;

@group(0) @binding(0) var<uniform> params: RayParams;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> boxMasks: array<u32>;
@group(0) @binding(10) var<storage, read_write> overflowCount: atomic<u32>;
@group(0) @binding(11) var<uniform> lidar: LidarParams;
@group(0) @binding(12) var<storage, read> lidarTables: array<vec2f>;
@group(0) @binding(13) var<storage, read_write> lidarRange: array<f32>;
@group(0) @binding(14) var<storage, read_write> lidarBox: array<u32>;
@group(0) @binding(15) var<storage, read_write> lidarPoints: array<vec4f>;
@group(0) @binding(16) var<storage, read_write> footprints: array<vec4u>;
@group(0) @binding(17) var<storage, read_write> offsets: array<u32>;
@group(0) @binding(18) var<storage, read_write> depth: array<atomic<u32>>;
@group(0) @binding(19) var<storage, read_write> winner: array<atomic<u32>>;
@group(0) @binding(20) var<storage, read_write> totals: array<atomic<u32>, 2>;
@group(0) @binding(21) var<storage, read_write> rasterArgsOut: array<u32>;
// The same buffer, read-only, for the passes dispatched from it (an INDIRECT buffer may not be
// writable storage in the same dispatch).
@group(0) @binding(22) var<storage, read> rasterArgs: array<u32>;
@group(0) @binding(23) var<storage, read_write> rayDirs: array<vec4f>;
// Hits of the depth pass that were at least as close as the ray's best so far, as (ray, box,
// bits(t)) triples, and their count (which may exceed the list's capacity: then the full
// winner pass runs instead).
@group(0) @binding(24) var<storage, read_write> candidateCount: atomic<u32>;
@group(0) @binding(25) var<storage, read_write> candidates: array<u32>;

fn invocationIndex(lid: u32, wid: vec3u, nwg: vec3u) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + lid;
}

// atan on [-1, 1], absolute error below 1e-5 rad (a fixed polynomial, unlike WGSL's atan,
// whose accuracy the spec bounds only loosely); test/cpu/reference/lidarRaster.test.ts checks it.
fn atanUnit(x: f32) -> f32 {
  let x2 = x * x;
  return x * (0.99997726 + x2 * (-0.33262347 + x2 * (0.19354346 + x2 * (-0.11643287 + x2 * (0.05265332 + x2 * -0.01172120)))));
}

// atan2 over the whole circle from atanUnit (same error bound).
fn atan2Approx(y: f32, x: f32) -> f32 {
  let ax = abs(x);
  let ay = abs(y);
  var a: f32;
  if (ay <= ax) {
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

fn toSensor(p: vec3f) -> vec3f {
  return vec3f(dot(p, lidar.axisX), dot(p, lidar.axisY), dot(p, lidar.axisZ));
}

fn localBox(b: Obb) -> LocalBox {
  return LocalBox(toSensor(b.center - lidar.origin), toSensor(b.u) * b.hx, toSensor(b.v) * b.hy, toSensor(obbW(b)) * b.hz);
}

// Distance from the sensor to the box, from below (its sensor-frame bounding box), less a margin
// that covers the f32 error of both this bound and the slab test's t.
fn nearBound(lb: LocalBox, e: vec3f) -> f32 {
  let m = length(lb.c) + length(e);
  return max(0.0, length(max(abs(lb.c) - e, vec3f(0.0))) - 1e-5 * m);
}

fn footprint(lb: LocalBox) -> vec4u {
  let e = abs(lb.u) + abs(lb.v) + abs(lb.w);
  let m = length(lb.c) + length(e);
  let near = length(max(abs(lb.c) - e, vec3f(0.0)));
  if (near < 0.02 * m) {
    return fullFootprint();
  }
  let rMin = length(max(abs(lb.c.xy) - e.xy, vec2f(0.0)));
  let rMax = length(abs(lb.c.xy) + e.xy);
  let zMin = lb.c.z - e.z;
  let zMax = lb.c.z + e.z;
  let sHi = sinElevation(zMax, select(rMax, rMin, zMax > 0.0), 1.0);
  let sLo = sinElevation(zMin, select(rMax, rMin, zMin < 0.0), -1.0);
  let ch = channelRange(sLo - SIN_PAD, sHi + SIN_PAD);
  if (ch.y == 0u) {
    return vec4u(0u);
  }
  let rc = length(lb.c.xy);
  if (length(e.xy) >= 0.7 * rc || rc - length(e.xy) < 0.02 * m) {
    return vec4u(ch.x, ch.y, 0u, lidar.azimuths);
  }
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
  // Steps a with θ_a = start + 2π a / A inside [lo, hi] (angles from start, in steps).
  let lo = (phi + atanUnit(tMin) - ANGLE_PAD - start) * scale;
  let hi = (phi + atanUnit(tMax) + ANGLE_PAD - start) * scale;
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

@compute @workgroup_size(WG)
fn lidarFootprint(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let i = invocationIndex(lid, wid, nwg);
  if (i >= params.boxCount) {
    return;
  }
  let b = boxes[i];
  let lb = localBox(b);
  var mask = 0xffffffffu;
  if ((params.flags & RAY_OPT_BOX_MASKS) != 0u) {
    mask = boxMasks[i];
  }
  var f = vec4u(0u);
  if ((lidar.mask & mask) != 0u && nearBound(lb, abs(lb.u) + abs(lb.v) + abs(lb.w)) <= lidar.maxRange) {
    f = footprint(lb);
  }
  let cells = f.y * f.w;
  footprints[i] = f;
  offsets[i] = cells;
  if (cells > 0u) {
    let old = atomicAdd(&totals[0], cells);
    if (old > 0xffffffffu - cells) {
      atomicAdd(&totals[1], 1u);
    }
  }
}

@compute @workgroup_size(1)
fn lidarRasterArgs() {
  let total = atomicLoad(&totals[0]);
  let overflow = atomicLoad(&totals[1]) != 0u;
  let chunks = total / CHUNK + select(0u, 1u, total % CHUNK != 0u);
  let groups = (chunks + WG - 1u) / WG;
  let x = min(groups, 65535u);
  let y = select((groups + 65534u) / 65535u, 0u, groups == 0u);
  rasterArgsOut[0] = select(x, 0u, overflow);
  rasterArgsOut[1] = select(y, 0u, overflow);
  rasterArgsOut[2] = 1u;
  rasterArgsOut[3] = total;
  rasterArgsOut[4] = select(0u, 1u, overflow);
}

// The direction of ray r = c · azimuths + a, as bvhLidar makes it.
fn lidarDirection(r: u32) -> vec3f {
  let az = lidarTables[r % lidar.azimuths];
  let el = lidarTables[lidar.azimuths + r / lidar.azimuths];
  let local = vec3f(el.x * az.x, el.x * az.y, el.y);
  return normalize(local.x * lidar.axisX + local.y * lidar.axisY + local.z * lidar.axisZ);
}

// Every ray's direction, once per sweep (the raster passes read them per work item).
@compute @workgroup_size(WG)
fn lidarDirections(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = invocationIndex(lid, wid, nwg);
  if (r < lidar.channels * lidar.azimuths) {
    rayDirs[r] = vec4f(lidarDirection(r), 0.0);
  }
}

// The box a work item belongs to: the last box whose first item is <= item (boxes with no
// cells share their first item with the next box, so the last one is the one with cells).
fn boxOfItem(item: u32) -> u32 {
  var a = 0u;
  var b = params.boxCount;
  while (a < b) {
    let m = (a + b) / 2u;
    if (offsets[m] <= item) { a = m + 1u; } else { b = m; }
  }
  return a - 1u;
}

// A box as the raster passes use it: every ray starts at the sensor origin, so the origin in the
// box frame (p, as rayObbAxes computes it) is the same for all of the box's work items.
struct RasterBox {
  index: u32,
  first: u32,
  cells: u32,
  f: vec4u,
  p: vec3f,
  u: vec3f,
  v: vec3f,
  w: vec3f,
  h: vec3f,
  // Lower bound of the t of any hit (nearBound), as f32 bits.
  nearBits: u32,
}

fn rasterBox(i: u32) -> RasterBox {
  let b = boxes[i];
  let f = footprints[i];
  let lb = localBox(b);
  let near = nearBound(lb, abs(lb.u) + abs(lb.v) + abs(lb.w));
  let w = obbW(b);
  let rel = lidar.origin - b.center;
  let p = vec3f(dot(rel, b.u), dot(rel, b.v), dot(rel, w));
  return RasterBox(i, offsets[i], f.y * f.w, f, p, b.u, b.v, w, vec3f(b.hx, b.hy, b.hz), bitcast<u32>(near));
}

// t as an unsigned integer that orders as t does (t >= 0; -0 is taken as 0).
fn tBits(t: f32) -> u32 {
  return select(bitcast<u32>(t), 0u, t == 0.0);
}

// Runs the work items of invocation k: winnerPass = false offers t to `depth`, true offers the
// box index to `winner` where t equals the final depth. Items walk a box's rectangle row by
// row (sorted channel s, azimuth offset j), with counters instead of divisions.
fn rasterChunk(k: u32, winnerPass: bool) {
  let total = rasterArgs[3];
  let begin = k * CHUNK;
  if (begin >= total) {
    return;
  }
  let end = min(begin + CHUNK, total);
  let sortedBase = lidar.azimuths + lidar.channels;
  var cur = rasterBox(boxOfItem(begin));
  for (var item = begin; item < end; item++) {
    while (item >= cur.first + cur.cells) {
      cur = rasterBox(cur.index + 1u);
    }
    let jj = item - cur.first;
    let s = cur.f.x + jj / cur.f.w;
    let a = (cur.f.z + jj % cur.f.w) % lidar.azimuths;
    let row = u32(lidarTables[sortedBase + s].y) * lidar.azimuths;
    let r = row + a;
    let best = ~atomicLoad(&depth[r]);
    if (cur.nearBits > best || (winnerPass && best == 0xffffffffu)) {
      continue;
    }
    let dir = rayDirs[r].xyz;
    let h = rayObbLocal(cur.p, vec3f(dot(dir, cur.u), dot(dir, cur.v), dot(dir, cur.w)), cur.h, lidar.maxRange, true);
    if ((h.flags & HIT_FLAG_HIT) == 0u) {
      continue;
    }
    let bits = tBits(h.t);
    if (!winnerPass) {
      // The box that ends up closest (or tied) was at least as close as every best before it,
      // so it is on the list whenever the list has room.
      if (~atomicMax(&depth[r], ~bits) >= bits) {
        let k = atomicAdd(&candidateCount, 1u);
        if (3u * k + 2u < arrayLength(&candidates)) {
          candidates[3u * k] = r;
          candidates[3u * k + 1u] = cur.index;
          candidates[3u * k + 2u] = bits;
        }
      }
    } else if (bits == best) {
      atomicMax(&winner[r], ~cur.index);
    }
  }
}

@compute @workgroup_size(WG)
fn lidarDepth(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  rasterChunk(invocationIndex(lid, wid, nwg), false);
}

@compute @workgroup_size(WG)
fn lidarWinner(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  rasterChunk(invocationIndex(lid, wid, nwg), true);
}

// One thread, after the depth pass: dispatch sizes of the winner pass over the candidate list
// (rasterArgsOut[8..10]) when the list held them all, else of the full winner pass over every
// work item again (rasterArgsOut[12..14], the depth pass's size).
@compute @workgroup_size(1)
fn lidarWinnerArgs() {
  let count = atomicLoad(&candidateCount);
  let fits = 3u * count <= arrayLength(&candidates);
  let groups = select(0u, (count + WG - 1u) / WG, fits);
  rasterArgsOut[8] = min(groups, 65535u);
  rasterArgsOut[9] = select((groups + 65534u) / 65535u, 0u, groups == 0u);
  rasterArgsOut[10] = 1u;
  rasterArgsOut[11] = count;
  rasterArgsOut[12] = select(rasterArgsOut[0], 0u, fits);
  rasterArgsOut[13] = select(rasterArgsOut[1], 0u, fits);
  rasterArgsOut[14] = 1u;
}

// The winner pass over the candidate list: a candidate whose t equals its ray's final best
// offers its box index (smallest wins).
@compute @workgroup_size(WG)
fn lidarWinnerList(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let k = invocationIndex(lid, wid, nwg);
  if (k >= rasterArgs[11]) {
    return;
  }
  let r = candidates[3u * k];
  if (candidates[3u * k + 2u] == ~atomicLoad(&depth[r])) {
    atomicMax(&winner[r], ~candidates[3u * k + 1u]);
  }
}

@compute @workgroup_size(WG)
fn lidarResolve(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let r = invocationIndex(lid, wid, nwg);
  if (r >= lidar.channels * lidar.azimuths) {
    return;
  }
  if (rasterArgs[4] != 0u) {
    // Overflowed: no answer here; the host answers these rays (NO_BOX - 1 marks them).
    atomicAdd(&overflowCount, 1u);
    lidarRange[r] = LIDAR_NO_RETURN;
    lidarBox[r] = NO_BOX - 1u;
    lidarPoints[r] = vec4f(0.0);
    return;
  }
  let best = ~atomicLoad(&depth[r]);
  let box = ~atomicLoad(&winner[r]);
  if (best == 0xffffffffu || box == NO_BOX) {
    lidarRange[r] = LIDAR_NO_RETURN;
    lidarBox[r] = NO_BOX;
    lidarPoints[r] = vec4f(0.0);
    return;
  }
  let t = bitcast<f32>(best);
  lidarRange[r] = t;
  lidarBox[r] = box;
  lidarPoints[r] = vec4f(lidar.origin + t * rayDirs[r].xyz, 1.0);
}
