/**
 * The benchmark scenes: the seeded generators of src/scenes (shared with the tests), placed the
 * way each workload means them. Sizes change between quick and full mode; the scenes' meaning
 * (density, camera, sensor) does not.
 */
import { BOX_F64, RAY_F64, type BoxArray, type RayArray } from '../../src/index.ts';
import { mulberry32, publishedSatPairs, randomBoxes } from '../../src/judge/index.ts';

export const SEEDS = { picking: 8101, lidar: 8102, moving: 8103, pairs: 11423 } as const;

/** Half-size of the picking cube: constant density, so 10k and 1M boxes are the same scene, larger. */
export function pickingExtent(n: number): number {
  return 50 * Math.cbrt(n / 10_000);
}

/**
 * Picking scene: `n` randomly rotated boxes (half extents 0.2–2) in a cube that grows with n^(1/3)
 * (about 10% of the volume filled).
 */
export function pickingScene(n: number): BoxArray {
  return randomBoxes(n, mulberry32(SEEDS.picking), { extent: pickingExtent(n), halfMin: 0.2, halfMax: 2 });
}

/**
 * Mouse-picking rays as an editor casts them: one eye outside the scene (so no ray starts inside a
 * box), looking at the centre, through uniformly random pixels of a 60° × 16:9 view. Ray 0 of
 * every count is the same ray.
 */
export function pickingRays(count: number, n: number): RayArray {
  const e = pickingExtent(n);
  const eye = [0, -2.2 * e, 1.0 * e] as const;
  const len = Math.hypot(eye[0], eye[1], eye[2]);
  const f = [-eye[0] / len, -eye[1] / len, -eye[2] / len] as const;
  // right = f × z, up = right × f
  let r: [number, number, number] = [f[1], -f[0], 0];
  const rl = Math.hypot(r[0], r[1], r[2]);
  r = [r[0] / rl, r[1] / rl, r[2] / rl];
  const u = [r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]] as const;
  const th = Math.tan(Math.PI / 6);
  const aspect = 16 / 9;
  const rnd = mulberry32(SEEDS.picking + 1);
  const data = new Float64Array(count * RAY_F64.STRIDE);
  for (let i = 0; i < count; i++) {
    const sx = (2 * rnd() - 1) * th * aspect;
    const sy = (2 * rnd() - 1) * th;
    const dx = f[0] + sx * r[0] + sy * u[0];
    const dy = f[1] + sx * r[1] + sy * u[1];
    const dz = f[2] + sx * r[2] + sy * u[2];
    const dl = Math.hypot(dx, dy, dz);
    const o = i * RAY_F64.STRIDE;
    data.set([eye[0], eye[1], eye[2], dx / dl, dy / dl, dz / dl, Infinity], o);
  }
  return { count, data };
}

/** The LiDAR sweep of the issue: 128 × 2,048 rays, elevation −25°…+15°, max distance 200. */
export const LIDAR = { elevations: 128, azimuths: 2048, minElevationDeg: -25, maxElevationDeg: 15, maxDistance: 200 } as const;

/**
 * LiDAR scene: `n` boxes (half extents 0.25–2.5, yawed, pitched and rolled at random) over a
 * 400 m × 400 m area, centres between 3 m below and 3 m above the sensor, none within 8 m of it
 * horizontally (boxes there are pushed outwards), so the sensor is never inside a box.
 */
export function lidarScene(n: number): BoxArray {
  const boxes = randomBoxes(n, mulberry32(SEEDS.lidar), { extent: 200, halfMin: 0.25, halfMax: 2.5 });
  const d = boxes.data;
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    d[o + 2] = (d[o + 2]! / 200) * 3;
    const h = Math.hypot(d[o]!, d[o + 1]!);
    if (h < 8) {
      const s = h > 1e-9 ? (h + 8) / h : 1;
      d[o] = h > 1e-9 ? d[o]! * s : 8 + d[o]!;
      d[o + 1] = d[o + 1]! * s;
    }
  }
  return boxes;
}

/**
 * One sweep from the sensor at the origin: `elevations` channels evenly from −25° to +15°, times
 * `azimuths` steps around the full circle, channel-major within each azimuth step.
 */
export function lidarRays(elevations: number, azimuths: number): RayArray {
  const count = elevations * azimuths;
  const data = new Float64Array(count * RAY_F64.STRIDE);
  const lo = (LIDAR.minElevationDeg * Math.PI) / 180;
  const hi = (LIDAR.maxElevationDeg * Math.PI) / 180;
  let k = 0;
  for (let a = 0; a < azimuths; a++) {
    const az = (2 * Math.PI * a) / azimuths;
    for (let e = 0; e < elevations; e++) {
      const el = elevations > 1 ? lo + ((hi - lo) * e) / (elevations - 1) : lo;
      const o = k++ * RAY_F64.STRIDE;
      data.set([0, 0, 0, Math.cos(el) * Math.cos(az), Math.cos(el) * Math.sin(az), Math.sin(el), LIDAR.maxDistance], o);
    }
  }
  return { count, data };
}

/** Half-size of the moving-boxes cube: about one overlapping partner per box at every n. */
export function movingExtent(n: number): number {
  return 20 * Math.cbrt(n / 10_000);
}

/** Moving boxes: frame `f` of `n` boxes drifting (≤ 0.5 per frame) and spinning (≤ 0.1 rad per frame). */
export interface MovingBoxes {
  readonly count: number;
  frame(f: number): BoxArray;
}

/**
 * `n` boxes (half extents 0.1–1, random rotations) drifting through a cube that wraps around, so
 * the density and the number of overlapping pairs stay about the same from frame to frame.
 */
export function movingBoxes(n: number): MovingBoxes {
  const e = movingExtent(n);
  const rnd = mulberry32(SEEDS.moving);
  const base = randomBoxes(n, rnd, { extent: e, halfMin: 0.1, halfMax: 1 });
  const motion = new Float64Array(n * 7); // velocity (3), unit spin axis (3), spin per frame (1)
  for (let i = 0; i < n; i++) {
    const m = i * 7;
    motion[m] = rnd() - 0.5;
    motion[m + 1] = rnd() - 0.5;
    motion[m + 2] = rnd() - 0.5;
    const z = 2 * rnd() - 1, phi = 2 * Math.PI * rnd(), s = Math.sqrt(1 - z * z);
    motion[m + 3] = s * Math.cos(phi);
    motion[m + 4] = s * Math.sin(phi);
    motion[m + 5] = z;
    motion[m + 6] = 0.1 * rnd();
  }
  const wrap = (x: number): number => ((((x + e) % (2 * e)) + 2 * e) % (2 * e)) - e;
  return {
    count: n,
    frame(f: number): BoxArray {
      const data = base.data.slice();
      for (let i = 0; i < n; i++) {
        const o = i * BOX_F64.STRIDE;
        const m = i * 7;
        for (let k = 0; k < 3; k++) {
          data[o + k] = wrap(data[o + k]! + motion[m + k]! * f);
        }
        const kx = motion[m + 3]!, ky = motion[m + 4]!, kz = motion[m + 5]!;
        const th = motion[m + 6]! * f;
        const c = Math.cos(th), s = Math.sin(th);
        for (let a = 0; a < 3; a++) {
          // Rodrigues: v' = v cos θ + (k × v) sin θ + k (k · v)(1 − cos θ)
          const p = o + BOX_F64.U + 3 * a;
          const vx = data[p]!, vy = data[p + 1]!, vz = data[p + 2]!;
          const kd = kx * vx + ky * vy + kz * vz;
          data[p] = vx * c + (ky * vz - kz * vy) * s + kx * kd * (1 - c);
          data[p + 1] = vy * c + (kz * vx - kx * vz) * s + ky * kd * (1 - c);
          data[p + 2] = vz * c + (kx * vy - ky * vx) * s + kz * kd * (1 - c);
        }
      }
      return { count: n, data };
    },
  };
}

/** The published SAT suite's distribution (the tests' seed): pair k is (2k, 2k + 1). */
export function satPairScene(pairs: number): { boxes: BoxArray; list: Uint32Array } {
  return { boxes: publishedSatPairs(pairs, mulberry32(SEEDS.pairs)), list: Uint32Array.from({ length: 2 * pairs }, (_, i) => i) };
}

/** Rays `[first, first + count)` of `rays`, sharing its memory. */
export function raySlice(rays: RayArray, count: number, first = 0): RayArray {
  const c = Math.max(0, Math.min(count, rays.count - first));
  return { count: c, data: rays.data.subarray(first * RAY_F64.STRIDE, (first + c) * RAY_F64.STRIDE) };
}

/** Unit quaternion [x, y, z, w] of the rotation whose columns are the box's axes u, v, w (Shepperd). */
export function quaternionOf(data: Float64Array, o: number): [number, number, number, number] {
  const u = o + BOX_F64.U, v = o + BOX_F64.V, w = o + BOX_F64.W;
  // Rotation matrix m[row][col]: columns are u, v, w.
  const m00 = data[u]!, m10 = data[u + 1]!, m20 = data[u + 2]!;
  const m01 = data[v]!, m11 = data[v + 1]!, m21 = data[v + 2]!;
  const m02 = data[w]!, m12 = data[w + 1]!, m22 = data[w + 2]!;
  const tr = m00 + m11 + m22;
  let x: number, y: number, z: number, q: number;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    q = 0.25 * s; x = (m21 - m12) / s; y = (m02 - m20) / s; z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    q = (m21 - m12) / s; x = 0.25 * s; y = (m01 + m10) / s; z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    q = (m02 - m20) / s; x = (m01 + m10) / s; y = 0.25 * s; z = (m12 + m21) / s;
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    q = (m10 - m01) / s; x = (m02 + m20) / s; y = (m12 + m21) / s; z = 0.25 * s;
  }
  const l = Math.hypot(x, y, z, q);
  return [x / l, y / l, z / l, q / l];
}
