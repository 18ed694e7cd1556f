// types.wgsl — the structs shared by every kernel, and the only place they are declared.
// Each member carries its byte offset and size; src/layout/ holds the same numbers as offset
// tables for the TS packers, and test/cpu/layout.test.ts reflects the linked kernels with
// wgsl_reflect and fails if the two ever differ.
// Constants (EPS_DIR, F32_MAX, FACE_*, HIT_FLAG_*, BOX_TILE, …) are emitted from
// src/constants.ts by the link manifest (src/runtime/shaders.ts) ahead of this chunk.

// An oriented box: centre, half extents and the first two axes; w = cross(u, v) (right-handed).
struct Obb {
  center: vec3f,     // offset(0) size(12)
  hx: f32,           // offset(12) size(4)
  u: vec3f,          // offset(16) size(12)
  hy: f32,           // offset(28) size(4)
  v: vec3f,          // offset(32) size(12)
  hz: f32,           // offset(44) size(4)
}                    // size(48)

// A ray: unit direction; maxDistance is F32_MAX for "unbounded"; mask is ANDed with the box
// mask; exclude is a box index the ray must not hit (NO_BOX for none).
struct Ray {
  origin: vec3f,     // offset(0) size(12)
  maxDistance: f32,  // offset(12) size(4)
  direction: vec3f,  // offset(16) size(12)
  mask: u32,         // offset(28) size(4)
  exclude: u32,      // offset(32) size(4)
}                    // size(48)

// Closest hit of one ray: box = NO_BOX on a miss; face = FACE_NONE when there is no face.
struct Hit {
  t: f32,            // offset(0) size(4)
  box: u32,          // offset(4) size(4)
  face: u32,         // offset(8) size(4)
  flags: u32,        // offset(12) size(4)
}                    // size(16)

// World hit point and outward normal, written when the caller asks for them (render input).
struct HitGeometry {
  point: vec3f,      // offset(0) size(12)
  t: f32,            // offset(12) size(4)
  normal: vec3f,     // offset(16) size(12)
  box: u32,          // offset(28) size(4)
}                    // size(32)

// One entry of the all-hits list: faceFlags = face | (flags << 8).
struct HitRecord {
  ray: u32,          // offset(0) size(4)
  box: u32,          // offset(4) size(4)
  t: f32,            // offset(8) size(4)
  faceFlags: u32,    // offset(12) size(4)
}                    // size(16)

// SAT result of one pair: overlap is 1 when gap <= tolerance.
struct PairResult {
  gap: f32,          // offset(0) size(4)
  axis: u32,         // offset(4) size(4)
  overlap: u32,      // offset(8) size(4)
}                    // size(12)

// Uniform parameters of the ray batch kernels.
struct RayParams {
  rayCount: u32,     // offset(0) size(4)
  boxCount: u32,     // offset(4) size(4)
  flags: u32,        // offset(8) size(4)  RAY_OPT_* bits
  capacity: u32,     // offset(12) size(4) all-hits list capacity
}                    // size(16)

// Uniform parameters of the box-pair kernels. offsetB = originB − originA moves set B into
// set A's floating-origin frame (zero when both sides come from one set).
struct PairParams {
  offsetB: vec3f,    // offset(0) size(12)
  tolerance: f32,    // offset(12) size(4)
  countA: u32,       // offset(16) size(4)
  countB: u32,       // offset(20) size(4)
  pairCount: u32,    // offset(24) size(4)
  flags: u32,        // offset(28) size(4) PAIR_OPT_* bits
  capacity: u32,     // offset(32) size(4) pair list capacity
}                    // size(48)

// The state of a pair list recorded into the caller's encoder (pairs/status.wgsl): count pairs
// valid in the list (min(found, capacity)), found overlapping pairs appended (more than the
// capacity: overflow), candidates the broad phase listed, overflow PAIR_LIST_OVERFLOW_* bits (0:
// the list is complete), dispatch workgroups of 64 for one invocation per valid pair (x at most
// 65,535; dispatchWorkgroupsIndirect at byte 16).
struct PairListStatus {
  count: u32,        // offset(0) size(4)
  found: u32,        // offset(4) size(4)
  candidates: u32,   // offset(8) size(4)
  overflow: u32,     // offset(12) size(4)
  dispatch: vec3u,   // offset(16) size(12)
}                    // size(32)

// A BVH node (internal nodes only; leaves are boxes). left/right: an internal node index, or
// BVH_LEAF | box index. AABBs are in the set's floating-origin frame.
struct BvhNode {
  min: vec3f,        // offset(0) size(12)
  left: u32,         // offset(12) size(4)
  max: vec3f,        // offset(16) size(12)
  right: u32,        // offset(28) size(4)
}                    // size(32)

// Uniform parameters of the BVH build kernels.
struct BvhParams {
  count: u32,        // offset(0) size(4) boxes (leaves)
  partials: u32,     // offset(4) size(4) workgroups of the bounds reduction
}                    // size(8)

// Uniform parameters of the raster LiDAR kernels: the sensor pose (origin relative to the set's
// floating origin, and the sensor's axes in world space), the scan pattern's size, the range
// window, the smallest and largest residual azimuth offset, the LIDAR_CLOCKWISE /
// LIDAR_PER_RAY_AZIMUTH / LIDAR_PARTIAL / LIDAR_MOTION / LIDAR_LIFT flags, the field's span (radians,
// signed), the beam-origin offset (and a static sweep's bound on its beam origins' distance), and with LIDAR_MOTION the number of moving boxes and the columns per
// chunk of the sweep's motion records (lidar/raster.wgsl).
struct LidarParams {
  origin: vec3f,     // offset(0) size(12)
  maxRange: f32,     // offset(12) size(4)
  axisX: vec3f,      // offset(16) size(12)
  channels: u32,     // offset(28) size(4)
  axisY: vec3f,      // offset(32) size(12)
  azimuths: u32,     // offset(44) size(4)
  axisZ: vec3f,      // offset(48) size(12)
  mask: u32,         // offset(60) size(4)
  minRange: f32,     // offset(64) size(4)
  offsetMin: f32,    // offset(68) size(4)
  offsetMax: f32,    // offset(72) size(4)
  flags: u32,        // offset(76) size(4)
  span: f32,         // offset(80) size(4)
  beamOffset: f32,   // offset(84) size(4)
  moving: u32,       // offset(88) size(4)
  chunkWidth: u32,   // offset(92) size(4)
  frameRows: u32,    // offset(96) size(4): frames per column in the setup table (1, or C: per ray)
  timeRows: u32,     // offset(100) size(4): firing times per column of the moving boxes (firingGroups)
  originGrow: f32,   // offset(104) size(4): how far a static sweep's beam origins lie from the sensor origin, at most
  pad1: u32,         // offset(108) size(4)
}                    // size(112)

// Uniform parameters of a LiDAR sweep by the tree (lidar/tree.wgsl): the sensor's size, the
// sweep's mask, how many boxes move (their table holds movingCount boxes per column), the range
// window.
struct LidarSweepParams {
  channels: u32,       // offset(0) size(4)
  azimuths: u32,       // offset(4) size(4)
  mask: u32,           // offset(8) size(4)
  movingCount: u32,    // offset(12) size(4)
  minRange: f32,       // offset(16) size(4)
  maxRange: f32,       // offset(20) size(4)
  frameRows: u32,      // offset(24) size(4): frames per column in the setup table (1, or C: per ray)
  frameCols: u32,      // offset(28) size(4): frames per row (the azimuths, or 1: a still sweep's one frame per channel)
}                      // size(32)

// Uniform parameters of frustum culling: six planes (xyz = inward normal, w = offset, in the
// set's floating-origin frame; a point p is inside when dot(n, p) + w >= 0 for all six), and
// the draw call the visible list feeds.
struct FrustumParams {
  planes: array<vec4f, 6>,  // offset(0) size(96)
  count: u32,               // offset(96) size(4)
  indexCount: u32,          // offset(100) size(4)
  firstIndex: u32,          // offset(104) size(4)
  baseVertex: i32,          // offset(108) size(4)
}                           // size(112)

// Uniform parameters of the all-pairs grid (gridCount, gridScatter, gridPairs): lo is the grid's
// corner in the set's floating-origin frame, invCell 1 / the cell size, dims the cells per axis,
// reach at least half the widest padded box AABB (with a margin for float32 rounding).
struct GridParams {
  lo: vec3f,         // offset(0) size(12)
  invCell: f32,      // offset(12) size(4)
  dims: vec3u,       // offset(16) size(12)
  cells: u32,        // offset(28) size(4)
  reach: f32,        // offset(32) size(4)
}                    // size(48)

// Uniform parameters of a sparse update (scatterBoxes, scatterMasks): how many entries.
struct ScatterParams {
  count: u32,        // offset(0) size(4)
}                    // size(4)

// Uniform parameters of the derivation of a GPU-sourced set's boxes (boxes/derive.wgsl): the
// set's floating origin split into two floats (originHi = f32(origin), originLo =
// f32(origin − originHi): positions are re-based by (x − originHi) − originLo), the boxes to
// derive, the caller's layout (DERIVE_LAYOUT_*), the set's one local box (centre and half size,
// when not per instance), and where the records and the per-instance local boxes lie in their
// bindings, in 4-byte words.
struct DeriveParams {
  originHi: vec3f,     // offset(0) size(12)
  count: u32,          // offset(12) size(4)
  originLo: vec3f,     // offset(16) size(12)
  sourceLayout: u32,   // offset(28) size(4)  DERIVE_LAYOUT_*
  localCenter: vec3f,  // offset(32) size(12)
  recordFirst: u32,    // offset(44) size(4)  word of record 0 in `source`
  localHalf: vec3f,    // offset(48) size(12)
  recordStride: u32,   // offset(60) size(4)  words from one record to the next
  localFirst: u32,     // offset(64) size(4)  word of local box 0 in `localBoxes`
  localStride: u32,    // offset(68) size(4)  words from one local box to the next
  flags: u32,          // offset(72) size(4)  DERIVE_OPT_* bits
  pad: u32,            // offset(76) size(4)
}                      // size(80)
