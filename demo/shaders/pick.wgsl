// pick.wgsl — what the GPU pick of this frame found, drawn from the hit buffers the compute
// pass just wrote (no readback): the outline of the entered face, the hit point (a small
// cross) and the outward normal. With D.sel.w = 1 it draws instead the AABB of the box that
// AABB picking chose (the pick over the boxes' bounding boxes), for comparison.
// Bindings: 0 Draw, 1 boxes (Obb), 2 hits (Hit), 3 geometry (HitGeometry).
// 12 segments × 6 vertices; D.scale: marker size in world units per metre of distance.

@group(0) @binding(1) var<storage, read> boxes: array<Obb>;
@group(0) @binding(2) var<storage, read> hits: array<Hit>;
@group(0) @binding(3) var<storage, read> geometry: array<HitGeometry>;

struct Out {
  @builtin(position) pos: vec4f,
  @location(0) color: vec4f,
}

@vertex
fn vs(@builtin(vertex_index) vi: u32) -> Out {
  var out: Out;
  out.pos = culled();
  out.color = D.color;
  let hit = hits[0];
  if (hit.box == NO_BOX) {
    return out;
  }
  let g = geometry[0];
  let b = boxes[hit.box];
  let seg = vi / 6u;
  let corner = vi % 6u;
  let size = D.scale * max(distance(g.point, D.eye.xyz), 1.0);
  var a: vec3f;
  var c: vec3f;
  var width = D.width;
  if (D.sel.w == 1u) {
    // The AABB of the box that AABB picking chose.
    a = edgePoint(b.center, vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0), boxAabbHalf(b), seg, 0u);
    c = edgePoint(b.center, vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0), boxAabbHalf(b), seg, 1u);
    out.color = D.color2;
    width = D.width * 0.75;
  } else if (seg < 4u) {
    // The entered face's border, lifted off the face a little so it is not hidden by it.
    if (hit.face > 5u) {
      return out;
    }
    let k = hit.face / 2u;
    let sgn = select(1.0, -1.0, (hit.face & 1u) == 1u);
    let n = boxAxis(b, k) * sgn;
    let a1 = boxAxis(b, (k + 1u) % 3u) * boxHalf(b, (k + 1u) % 3u);
    let a2 = boxAxis(b, (k + 2u) % 3u) * boxHalf(b, (k + 2u) % 3u);
    let fc = b.center + n * (boxHalf(b, k) + size * 0.05);
    var q = array<vec2f, 5>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0), vec2f(-1.0, -1.0));
    a = fc + a1 * q[seg].x + a2 * q[seg].y;
    c = fc + a1 * q[seg + 1u].x + a2 * q[seg + 1u].y;
  } else if (seg == 4u) {
    // The outward normal at the hit point (none when the ray starts inside the box).
    if ((hit.flags & HIT_FLAG_INSIDE) != 0u) {
      return out;
    }
    a = g.point;
    c = g.point + g.normal * size * 8.0;
    out.color = D.color2;
  } else if (seg < 8u) {
    // The hit point: a cross along the world axes.
    var e = vec3f(0.0);
    e[seg - 5u] = size * 1.5;
    a = g.point - e;
    c = g.point + e;
    out.color = vec4f(1.0, 1.0, 1.0, 1.0);
  } else {
    return out;
  }
  out.pos = wideLine(D.mvp * vec4f(a, 1.0), D.mvp * vec4f(c, 1.0), corner, width);
  return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4f {
  return in.color;
}
