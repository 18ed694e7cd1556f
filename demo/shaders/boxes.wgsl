// boxes.wgsl — instanced solid boxes straight from a BoxSet's GPU buffer (no copy): instance i
// is box i, 36 vertices (6 faces × 2 triangles). Flat lighting per face, edges darkened in the
// fragment shader (distance to the face border in pixels), distance fog. Box i is highlighted
// when it is the box of hits[0] (the GPU pick of this very frame, no readback) or one of the
// selected boxes D.sel.x / D.sel.y.
// `vsCulled` draws the visible list of a FrustumCuller instead (drawIndexedIndirect with the
// culler's arguments): instance i is box visible[i].
// Bindings: 0 Draw, 1 boxes (Obb), 2 colours (RGBA8 per box), 3 hits (Hit), 4 visible (culled only).
// D.sel.z bit 0: highlight hits[0].box; bit 1: per-box colours are multiplied by D.color.

@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> colors: array<u32>;
@group(0) @binding(3) var<storage, read> hits: array<Hit>;
@group(0) @binding(4) var<storage, read> visible: array<u32>;

struct Out {
  @builtin(position) pos: vec4f,
  @location(0) color: vec3f,
  @location(1) rel: vec3f,
  @location(2) @interpolate(flat) normal: vec3f,
  // Face coordinates in metres (x, y) and the face's half sizes (z, w), for the edge lines.
  @location(3) face: vec4f,
}

@vertex
fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Out {
  return boxVertex(vi, ii);
}

@vertex
fn vsCulled(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Out {
  return boxVertex(vi, visible[ii]);
}

fn boxVertex(vi: u32, ii: u32) -> Out {
  let b = boxes[ii];
  let f = vi / 6u;
  let k = f / 2u;
  let sgn = select(1.0, -1.0, (f & 1u) == 1u);
  let a1 = (k + 1u) % 3u;
  let a2 = (k + 2u) % 3u;
  // Two triangles per face, anticlockwise seen from outside (reversed for the − faces).
  var quad = array<vec2f, 6>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0));
  var q = quad[vi % 6u];
  if (sgn < 0.0) {
    q = vec2f(q.y, q.x);
  }
  let n = boxAxis(b, k) * sgn;
  let h1 = boxHalf(b, a1);
  let h2 = boxHalf(b, a2);
  let p = b.center + n * boxHalf(b, k) + boxAxis(b, a1) * (q.x * h1) + boxAxis(b, a2) * (q.y * h2);
  var c = unpack4x8unorm(colors[ii]).rgb;
  if ((D.sel.z & 2u) != 0u) {
    c = c * D.color.rgb;
  }
  if (((D.sel.z & 1u) != 0u && ii == hits[0].box) || ii == D.sel.x || ii == D.sel.y) {
    c = D.color2.rgb;
  }
  var out: Out;
  out.pos = D.mvp * vec4f(p, 1.0);
  out.color = c;
  out.rel = p - D.eye.xyz;
  out.normal = n;
  out.face = vec4f(q.x * h1, q.y * h2, h1, h2);
  return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4f {
  let l = normalize(vec3f(0.45, 0.3, 0.85));
  let diffuse = max(dot(in.normal, l), 0.0);
  let sky = 0.5 + 0.5 * in.normal.z;
  var c = in.color * (0.32 + 0.5 * diffuse + 0.22 * sky);
  // Darken a band about one pixel wide along the face's border.
  let e = in.face.zw - abs(in.face.xy);
  let px = max(fwidth(in.face.xy), vec2f(1e-6));
  let edge = min(e.x / px.x, e.y / px.y);
  c = mix(c * 0.55, c, smoothstep(0.5, 1.5, edge));
  return vec4f(fogged(c, length(in.rel)), 1.0);
}
