// segments.wgsl — wide line segments given by the host (rays, edges, axes): one instance per
// segment (a, b, RGBA8 colour, width in CSS pixels; D.width = device pixels per CSS pixel), six
// vertices each.
// Bindings: 0 Draw. Vertex buffer (per instance): a float32x3, b float32x3, colour unorm8x4, width float32.

struct Out {
  @builtin(position) pos: vec4f,
  @location(0) color: vec4f,
}

@vertex
fn vs(@builtin(vertex_index) vi: u32, @location(0) a: vec3f, @location(1) b: vec3f, @location(2) color: vec4f, @location(3) width: f32) -> Out {
  var out: Out;
  out.pos = wideLine(D.mvp * vec4f(a, 1.0), D.mvp * vec4f(b, 1.0), vi, width * D.width);
  out.color = color;
  return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4f {
  return in.color;
}
