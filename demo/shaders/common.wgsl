// common.wgsl — what every demo render shader shares: the library's Obb / Hit / HitGeometry
// records (same layout as shaders/common/types.wgsl, which the compute kernels write), the
// per-draw uniform, and screen-space wide lines. Prepended to each demo shader by
// demo/gfx/renderer.ts.

struct Obb {
  center: vec3f,
  hx: f32,
  u: vec3f,
  hy: f32,
  v: vec3f,
  hz: f32,
}

struct Hit {
  t: f32,
  box: u32,
  face: u32,
  flags: u32,
}

struct HitGeometry {
  point: vec3f,
  t: f32,
  normal: vec3f,
  box: u32,
}

// Per draw (demo/gfx/renderer.ts packs it): positions are relative to the draw's origin, and
// mvp = projection × view × translate(origin) in float64 on the host.
struct Draw {
  mvp: mat4x4f,        // offset(0)
  eye: vec4f,          // offset(64)  xyz: camera in the draw's frame; w: fog distance
  color: vec4f,        // offset(80)  base colour or tint
  color2: vec4f,       // offset(96)  highlight colour
  viewport: vec2f,     // offset(112) pixels
  width: f32,          // offset(120) line width or point size, pixels
  scale: f32,          // offset(124) normal length, max range, …
  sel: vec4u,          // offset(128) selected boxes and flags (per shader)
  p0: vec4f,           // offset(144) sensor position, …
}                      // size(160)

const NO_BOX: u32 = 0xffffffffu;
const HIT_FLAG_INSIDE: u32 = 2u; // src/constants.ts
const BACKGROUND: vec3f = vec3f(0.055, 0.065, 0.085);

@group(0) @binding(0) var<uniform> D: Draw;

fn boxAxis(b: Obb, k: u32) -> vec3f {
  if (k == 0u) { return b.u; }
  if (k == 1u) { return b.v; }
  return cross(b.u, b.v);
}

fn boxHalf(b: Obb, k: u32) -> f32 {
  if (k == 0u) { return b.hx; }
  if (k == 1u) { return b.hy; }
  return b.hz;
}

// Corner i of a box: bit k of i set = +half extent along axis k (as obbCorners in src/core).
fn boxCorner(b: Obb, i: u32) -> vec3f {
  let s = vec3f(select(-1.0, 1.0, (i & 1u) != 0u), select(-1.0, 1.0, (i & 2u) != 0u), select(-1.0, 1.0, (i & 4u) != 0u));
  return b.center + b.u * (s.x * b.hx) + b.v * (s.y * b.hy) + cross(b.u, b.v) * (s.z * b.hz);
}

// Half extents of the box's world AABB.
fn boxAabbHalf(b: Obb) -> vec3f {
  return abs(b.u) * b.hx + abs(b.v) * b.hy + abs(cross(b.u, b.v)) * b.hz;
}

// Edge e (0..11) of a box with half extents h along axes a0, a1, a2: 4 edges along each axis,
// endpoint `end` (0 or 1).
fn edgePoint(c: vec3f, a0: vec3f, a1: vec3f, a2: vec3f, h: vec3f, e: u32, end: u32) -> vec3f {
  let k = e / 4u;
  let j = e % 4u;
  var axes = array<vec3f, 3>(a0 * h.x, a1 * h.y, a2 * h.z);
  let along = axes[k] * select(-1.0, 1.0, end == 1u);
  let s0 = select(-1.0, 1.0, (j & 1u) != 0u);
  let s1 = select(-1.0, 1.0, (j & 2u) != 0u);
  return c + along + axes[(k + 1u) % 3u] * s0 + axes[(k + 2u) % 3u] * s1;
}

// A point that the rasteriser drops (outside the depth range).
fn culled() -> vec4f {
  return vec4f(0.0, 0.0, 2.0, 1.0);
}

// Corner `corner` (0..5, two triangles) of a screen-space quad `width` pixels wide around the
// segment a–b (clip space), clipped to the near plane (z >= 0) first so the divide is safe.
fn wideLine(a0: vec4f, b0: vec4f, corner: u32, width: f32) -> vec4f {
  var a = a0;
  var b = b0;
  if (a.z < 0.0 && b.z < 0.0) {
    return culled();
  }
  if (a.z < 0.0) {
    a = mix(a, b, a.z / (a.z - b.z));
  }
  if (b.z < 0.0) {
    b = mix(b, a, b.z / (b.z - a.z));
  }
  let sa = a.xy / a.w;
  let sb = b.xy / b.w;
  var d = (sb - sa) * D.viewport;
  if (dot(d, d) < 1e-6) {
    d = vec2f(1.0, 0.0);
  }
  d = normalize(d);
  let n = vec2f(-d.y, d.x) * width / D.viewport;
  let atB = corner == 1u || corner == 2u || corner == 4u;
  let side = select(-1.0, 1.0, corner == 2u || corner == 4u || corner == 5u);
  let p = select(a, b, atB);
  // Extend half a width past each end so joints close.
  let ext = d * width / D.viewport * select(-1.0, 1.0, atB);
  let s = select(sa, sb, atB) + n * side + ext;
  return vec4f(s * p.w, p.z, p.w);
}

// Fog towards the background with distance (views put the far plane where it is complete).
fn fogged(color: vec3f, dist: f32) -> vec3f {
  let f = 1.0 - exp(-pow(dist / D.eye.w, 2.0));
  return mix(color, BACKGROUND, clamp(f, 0.0, 1.0));
}
