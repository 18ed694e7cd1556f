// wire.wgsl — one-pixel wireframes of every box, instanced from a BoxSet's buffer: 12 edges
// (24 vertices, line-list) per box, either the box itself (D.sel.w = 0) or its world AABB
// (D.sel.w = 1), so the AABB toggle shows how much empty space an AABB claims around a turned box.
// `vsCulled` draws a FrustumCuller's visible list with the culler's drawIndexedIndirect
// arguments, which are sized for 36 indices per box: vertices 24..35 are dropped.
// Bindings: 0 Draw, 1 boxes (Obb), 2 visible (culled only).

@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> visible: array<u32>;

struct Out {
  @builtin(position) pos: vec4f,
  @location(0) rel: vec3f,
}

@vertex
fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Out {
  return wireVertex(vi, ii);
}

@vertex
fn vsCulled(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Out {
  if (vi >= 24u) {
    var out: Out;
    out.pos = culled();
    out.rel = vec3f(0.0);
    return out;
  }
  return wireVertex(vi, visible[ii]);
}

fn wireVertex(vi: u32, ii: u32) -> Out {
  let b = boxes[ii];
  var p: vec3f;
  if (D.sel.w == 1u) {
    p = edgePoint(b.center, vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0), boxAabbHalf(b), vi / 2u, vi % 2u);
  } else {
    p = edgePoint(b.center, b.u, b.v, cross(b.u, b.v), vec3f(b.hx, b.hy, b.hz), vi / 2u, vi % 2u);
  }
  var out: Out;
  out.pos = D.mvp * vec4f(p, 1.0);
  out.rel = p - D.eye.xyz;
  return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4f {
  return vec4f(fogged(D.color.rgb, length(in.rel)), D.color.a);
}
