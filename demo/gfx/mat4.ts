/**
 * The few 4×4 matrix operations the demo needs, column-major float64 (the layout WGSL's mat4x4f
 * and `rayFromScreen` expect), with WebGPU's clip-space depth range z ∈ [0, 1].
 */

/** A column-major 4×4 matrix. */
export type Mat4 = Float64Array;
export type V3 = readonly [number, number, number];

/** a · b. */
export function multiply(a: Mat4, b: Mat4): Mat4 {
  const out = new Float64Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) {
        s += a[k * 4 + r]! * b[c * 4 + k]!;
      }
      out[c * 4 + r] = s;
    }
  }
  return out;
}

/** Perspective projection to WebGPU clip space (near → z = 0, far → z = 1). */
export function perspective(fovyRad: number, aspect: number, near: number, far: number): Mat4 {
  const f = 1 / Math.tan(fovyRad / 2);
  const m = new Float64Array(16);
  m[0] = f / aspect;
  m[5] = f;
  m[10] = far / (near - far);
  m[11] = -1;
  m[14] = (near * far) / (near - far);
  return m;
}

/** A right-handed view matrix looking from `eye` at `target`. */
export function lookAt(eye: V3, target: V3, up: V3): Mat4 {
  const z = normalize([eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]]);
  const x = normalize(cross(up, z));
  const y = cross(z, x);
  const m = new Float64Array(16);
  m[0] = x[0]; m[4] = x[1]; m[8] = x[2];
  m[1] = y[0]; m[5] = y[1]; m[9] = y[2];
  m[2] = z[0]; m[6] = z[1]; m[10] = z[2];
  m[12] = -dot(x, eye);
  m[13] = -dot(y, eye);
  m[14] = -dot(z, eye);
  m[15] = 1;
  return m;
}

/** The inverse (cofactor expansion); throws on a singular matrix. */
export function invert(m: Mat4): Mat4 {
  const a = (i: number): number => m[i]!;
  const inv = new Float64Array(16);
  inv[0] = a(5) * a(10) * a(15) - a(5) * a(11) * a(14) - a(9) * a(6) * a(15) + a(9) * a(7) * a(14) + a(13) * a(6) * a(11) - a(13) * a(7) * a(10);
  inv[4] = -a(4) * a(10) * a(15) + a(4) * a(11) * a(14) + a(8) * a(6) * a(15) - a(8) * a(7) * a(14) - a(12) * a(6) * a(11) + a(12) * a(7) * a(10);
  inv[8] = a(4) * a(9) * a(15) - a(4) * a(11) * a(13) - a(8) * a(5) * a(15) + a(8) * a(7) * a(13) + a(12) * a(5) * a(11) - a(12) * a(7) * a(9);
  inv[12] = -a(4) * a(9) * a(14) + a(4) * a(10) * a(13) + a(8) * a(5) * a(14) - a(8) * a(6) * a(13) - a(12) * a(5) * a(10) + a(12) * a(6) * a(9);
  inv[1] = -a(1) * a(10) * a(15) + a(1) * a(11) * a(14) + a(9) * a(2) * a(15) - a(9) * a(3) * a(14) - a(13) * a(2) * a(11) + a(13) * a(3) * a(10);
  inv[5] = a(0) * a(10) * a(15) - a(0) * a(11) * a(14) - a(8) * a(2) * a(15) + a(8) * a(3) * a(14) + a(12) * a(2) * a(11) - a(12) * a(3) * a(10);
  inv[9] = -a(0) * a(9) * a(15) + a(0) * a(11) * a(13) + a(8) * a(1) * a(15) - a(8) * a(3) * a(13) - a(12) * a(1) * a(11) + a(12) * a(3) * a(9);
  inv[13] = a(0) * a(9) * a(14) - a(0) * a(10) * a(13) - a(8) * a(1) * a(14) + a(8) * a(2) * a(13) + a(12) * a(1) * a(10) - a(12) * a(2) * a(9);
  inv[2] = a(1) * a(6) * a(15) - a(1) * a(7) * a(14) - a(5) * a(2) * a(15) + a(5) * a(3) * a(14) + a(13) * a(2) * a(7) - a(13) * a(3) * a(6);
  inv[6] = -a(0) * a(6) * a(15) + a(0) * a(7) * a(14) + a(4) * a(2) * a(15) - a(4) * a(3) * a(14) - a(12) * a(2) * a(7) + a(12) * a(3) * a(6);
  inv[10] = a(0) * a(5) * a(15) - a(0) * a(7) * a(13) - a(4) * a(1) * a(15) + a(4) * a(3) * a(13) + a(12) * a(1) * a(7) - a(12) * a(3) * a(5);
  inv[14] = -a(0) * a(5) * a(14) + a(0) * a(6) * a(13) + a(4) * a(1) * a(14) - a(4) * a(2) * a(13) - a(12) * a(1) * a(6) + a(12) * a(2) * a(5);
  inv[3] = -a(1) * a(6) * a(11) + a(1) * a(7) * a(10) + a(5) * a(2) * a(11) - a(5) * a(3) * a(10) - a(9) * a(2) * a(7) + a(9) * a(3) * a(6);
  inv[7] = a(0) * a(6) * a(11) - a(0) * a(7) * a(10) - a(4) * a(2) * a(11) + a(4) * a(3) * a(10) + a(8) * a(2) * a(7) - a(8) * a(3) * a(6);
  inv[11] = -a(0) * a(5) * a(11) + a(0) * a(7) * a(9) + a(4) * a(1) * a(11) - a(4) * a(3) * a(9) - a(8) * a(1) * a(7) + a(8) * a(3) * a(5);
  inv[15] = a(0) * a(5) * a(10) - a(0) * a(6) * a(9) - a(4) * a(1) * a(10) + a(4) * a(2) * a(9) + a(8) * a(1) * a(6) - a(8) * a(2) * a(5);
  const det = a(0) * inv[0]! + a(1) * inv[4]! + a(2) * inv[8]! + a(3) * inv[12]!;
  if (det === 0 || !Number.isFinite(det)) {
    throw new RangeError('invert: singular matrix');
  }
  for (let i = 0; i < 16; i++) {
    inv[i]! /= det;
  }
  return inv;
}

/** m · translate(t): a matrix for geometry stored relative to `t` (a set's floating origin). */
export function translated(m: Mat4, t: V3): Mat4 {
  const out = m.slice();
  for (let r = 0; r < 4; r++) {
    out[12 + r] = m[r]! * t[0] + m[4 + r]! * t[1] + m[8 + r]! * t[2] + m[12 + r]!;
  }
  return out;
}

/** Projects a world point to canvas pixels (origin top-left, y down); undefined behind the eye. */
export function project(viewProj: Mat4, p: V3, width: number, height: number): [number, number] | undefined {
  const m = (i: number): number => viewProj[i]!;
  const x = m(0) * p[0] + m(4) * p[1] + m(8) * p[2] + m(12);
  const y = m(1) * p[0] + m(5) * p[1] + m(9) * p[2] + m(13);
  const w = m(3) * p[0] + m(7) * p[1] + m(11) * p[2] + m(15);
  if (!(w > 0)) {
    return undefined;
  }
  return [((x / w + 1) / 2) * width, ((1 - y / w) / 2) * height];
}

export function cross(a: V3, b: V3): [number, number, number] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

export function dot(a: V3, b: V3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function normalize(a: V3): [number, number, number] {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
}
