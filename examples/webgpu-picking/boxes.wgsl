// boxes.wgsl — the example's whole render pipeline: instanced solid boxes read straight from the
// BoxSet's GPU buffer (instance i is box i, 36 vertices: 6 faces × 2 triangles, no vertex
// buffer), flat-lit per face. The box that this frame's GPU pick hit (hits[0].box, written by
// the library's closest-hit kernel earlier in the same command encoder) is drawn amber, its
// entered face (hits[0].face) brighter: the highlight never leaves the GPU.
// Bindings: 0 the frame's uniform, 1 boxes (the library's Obb records), 2 hits (Hit records).
// The structs Obb and Hit are the library's own (shaders/common/types.wgsl), linked ahead of this
// file by `linkShader` (webgpu-obb/advanced) with the constants, so the layouts cannot drift:
//   Obb { center: vec3f (relative to the set's floating origin), hx, u: vec3f, hy, v: vec3f, hz }
//     with the third axis cross(u, v);
//   Hit { t, box (NO_BOX on a miss), face (2 × axis + 1 on the − side: FACE_POS_U = 0 …), flags }.

struct Frame {
  mvp: mat4x4f,   // projection × view × translate(set origin), composed in float64 on the host
}

const HIGHLIGHT: vec3f = vec3f(0.92, 0.68, 0.22);
const HIGHLIGHT_FACE: vec3f = vec3f(1.0, 0.86, 0.45);

@group(0) @binding(0) var<uniform> F: Frame;
@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> hits: array<Hit>;

struct Out {
  @builtin(position) pos: vec4f,
  @location(0) color: vec3f,
  @location(1) @interpolate(flat) normal: vec3f,
}

fn boxAxis(b: Obb, k: u32) -> vec3f {
  if (k == 0u) { return b.u; }
  if (k == 1u) { return b.v; }
  return cross(b.u, b.v);
}

fn halfExtent(b: Obb, k: u32) -> f32 {
  if (k == 0u) { return b.hx; }
  if (k == 1u) { return b.hy; }
  return b.hz;
}

// A cool grey-blue per box (blue ≥ red, so the amber highlight stands out).
fn baseColor(i: u32) -> vec3f {
  var h = i * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  let r = f32(h & 255u) / 255.0;
  return mix(vec3f(0.30, 0.40, 0.55), vec3f(0.45, 0.62, 0.70), r);
}

@vertex
fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Out {
  let b = boxes[ii];
  let face = vi / 6u;
  let k = face / 2u;
  let sgn = select(1.0, -1.0, (face & 1u) == 1u);
  // Two triangles per face, anticlockwise seen from outside (swapped on the − faces).
  var quad = array<vec2f, 6>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0));
  var q = quad[vi % 6u];
  if (sgn < 0.0) {
    q = vec2f(q.y, q.x);
  }
  let a1 = (k + 1u) % 3u;
  let a2 = (k + 2u) % 3u;
  let n = boxAxis(b, k) * sgn;
  let p = b.center + n * halfExtent(b, k) + boxAxis(b, a1) * (q.x * halfExtent(b, a1)) + boxAxis(b, a2) * (q.y * halfExtent(b, a2));
  var c = baseColor(ii);
  let hit = hits[0];
  if (hit.box == ii) {
    c = select(HIGHLIGHT, HIGHLIGHT_FACE, hit.face == face);
  }
  var out: Out;
  out.pos = F.mvp * vec4f(p, 1.0);
  out.color = c;
  out.normal = n;
  return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4f {
  let l = normalize(vec3f(0.4, 0.85, 0.35));
  let diffuse = max(dot(in.normal, l), 0.0);
  let sky = 0.5 + 0.5 * in.normal.y;
  return vec4f(in.color * (0.35 + 0.5 * diffuse + 0.2 * sky), 1.0);
}
