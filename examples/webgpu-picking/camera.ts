/**
 * An orbit camera in float64 with the few 4×4 operations the example needs (column-major, as
 * WGSL's mat4x4f and `rayFromScreen` take them; WebGPU clip space, z in [0, 1]).
 */
export type M4 = Float64Array;
type N16 = [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number];

export function multiply(a: M4, b: M4): M4 {
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

/** The inverse of a 4×4 matrix (cofactors; the matrices here are always invertible). */
export function invert(m: M4): M4 {
  const [a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33] = Array.from(m, (v) => v) as N16;
  const b00 = a00 * a11 - a01 * a10, b01 = a00 * a12 - a02 * a10, b02 = a00 * a13 - a03 * a10;
  const b03 = a01 * a12 - a02 * a11, b04 = a01 * a13 - a03 * a11, b05 = a02 * a13 - a03 * a12;
  const b06 = a20 * a31 - a21 * a30, b07 = a20 * a32 - a22 * a30, b08 = a20 * a33 - a23 * a30;
  const b09 = a21 * a32 - a22 * a31, b10 = a21 * a33 - a23 * a31, b11 = a22 * a33 - a23 * a32;
  const inv = 1 / (b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06);
  return Float64Array.of(
    (a11 * b11 - a12 * b10 + a13 * b09) * inv, (a02 * b10 - a01 * b11 - a03 * b09) * inv,
    (a31 * b05 - a32 * b04 + a33 * b03) * inv, (a22 * b04 - a21 * b05 - a23 * b03) * inv,
    (a12 * b08 - a10 * b11 - a13 * b07) * inv, (a00 * b11 - a02 * b08 + a03 * b07) * inv,
    (a32 * b02 - a30 * b05 - a33 * b01) * inv, (a20 * b05 - a22 * b02 + a23 * b01) * inv,
    (a10 * b10 - a11 * b08 + a13 * b06) * inv, (a01 * b08 - a00 * b10 - a03 * b06) * inv,
    (a30 * b04 - a31 * b02 + a33 * b00) * inv, (a21 * b02 - a20 * b04 - a23 * b00) * inv,
    (a11 * b07 - a10 * b09 - a12 * b06) * inv, (a00 * b09 - a01 * b07 + a02 * b06) * inv,
    (a31 * b01 - a30 * b03 - a32 * b00) * inv, (a20 * b03 - a21 * b01 + a22 * b00) * inv,
  );
}

export function translation(x: number, y: number, z: number): M4 {
  return Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1);
}

/** Perspective projection onto WebGPU's clip space (near → z = 0, far → z = 1). */
export function perspective(fovY: number, aspect: number, near: number, far: number): M4 {
  const f = 1 / Math.tan(fovY / 2);
  return Float64Array.of(f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, far / (near - far), -1, 0, 0, (near * far) / (near - far), 0);
}

/** View matrix of an eye looking at `target`, y up. */
export function lookAt(eye: readonly number[], target: readonly number[]): M4 {
  const sub = (a: readonly number[], b: readonly number[]): number[] => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
  const norm = (a: number[]): number[] => {
    const l = Math.hypot(a[0]!, a[1]!, a[2]!);
    return [a[0]! / l, a[1]! / l, a[2]! / l];
  };
  const cross = (a: number[], b: number[]): number[] => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
  const dot = (a: readonly number[], b: readonly number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
  const z = norm(sub(eye, target));
  const x = norm(cross([0, 1, 0], z));
  const y = cross(z, x);
  return Float64Array.of(x[0]!, y[0]!, z[0]!, 0, x[1]!, y[1]!, z[1]!, 0, x[2]!, y[2]!, z[2]!, 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1);
}

/** Orbits `target` at `distance`; yaw about y, pitch above the horizon (radians). */
export class OrbitCamera {
  yaw = 0.75;
  pitch = 0.45;
  width = 1;
  height = 1;

  constructor(public distance: number, readonly target: readonly [number, number, number] = [0, 0, 0], readonly fovY = (55 * Math.PI) / 180) {}

  get eye(): [number, number, number] {
    const [tx, ty, tz] = this.target;
    const c = Math.cos(this.pitch);
    return [tx + this.distance * c * Math.sin(this.yaw), ty + this.distance * Math.sin(this.pitch), tz + this.distance * c * Math.cos(this.yaw)];
  }

  /** Projection × view, world coordinates. */
  get viewProj(): M4 {
    const near = Math.max(0.05, this.distance / 500);
    return multiply(perspective(this.fovY, this.width / this.height, near, this.distance * 4), lookAt(this.eye, this.target));
  }
}
