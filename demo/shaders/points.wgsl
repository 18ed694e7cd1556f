// points.wgsl — the LiDAR point cloud straight from LidarSensor.pointsBuffer (vec4f per ray:
// xyz relative to the set's origin, w = 1 for a return), bound as a per-instance vertex
// buffer: each return is a small square, coloured by its distance from the sensor (D.p0.xyz)
// over the sensor's range (D.scale). `beam` draws the rays of the azimuth the sensor is
// pointing at now (D.sel.y of D.sel.x azimuths), reading the same buffer as storage.
// Bindings: 0 Draw, 1 points (beam only).

struct Out {
  @builtin(position) pos: vec4f,
  @location(0) color: vec4f,
}

// Turbo-like colour map: near = red, far = blue.
fn ramp(x: f32) -> vec3f {
  let t = clamp(x, 0.0, 1.0);
  let r = clamp(1.6 - abs(4.0 * t - 0.6) , 0.0, 1.0);
  let g = clamp(1.5 - abs(4.0 * t - 2.0), 0.0, 1.0);
  let b = clamp(1.6 - abs(4.0 * t - 3.4), 0.0, 1.0);
  return vec3f(max(r, 0.15 * (1.0 - t)), g, max(b, 0.2 * t));
}

@vertex
fn vs(@builtin(vertex_index) vi: u32, @location(0) p: vec4f) -> Out {
  var out: Out;
  if (p.w < 0.5) {
    out.pos = culled();
    out.color = vec4f(0.0);
    return out;
  }
  // Nudge towards the eye so a point on a face wins the depth test against that face.
  let toEye = D.eye.xyz - p.xyz;
  let q = p.xyz + normalize(toEye) * min(0.004 * length(toEye), 0.5);
  let c = D.mvp * vec4f(q, 1.0);
  var quad = array<vec2f, 6>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0));
  out.pos = vec4f(c.xy + quad[vi] * D.width / D.viewport * c.w, c.z, c.w);
  out.color = vec4f(ramp(distance(p.xyz, D.p0.xyz) / D.scale), 1.0);
  return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4f {
  return in.color;
}

@group(0) @binding(1) var<storage, read> points: array<vec4f>;

@vertex
fn beam(@builtin(vertex_index) vi: u32, @builtin(instance_index) channel: u32) -> Out {
  var out: Out;
  let p = points[channel * D.sel.x + D.sel.y];
  if (p.w < 0.5) {
    out.pos = culled();
    out.color = vec4f(0.0);
    return out;
  }
  out.pos = wideLine(D.mvp * vec4f(D.p0.xyz, 1.0), D.mvp * vec4f(p.xyz, 1.0), vi, D.width);
  out.color = D.color;
  return out;
}
