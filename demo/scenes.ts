/**
 * The demo's seeded scenes, shared with its test (test/gpu/demo.test.ts regenerates them in Node
 * to compute the float64 reference): a city of buildings, parked cars and crates; the path of
 * the LiDAR car through it; boxes tumbling in a volume. Pure functions, no DOM, no GPU.
 */
import { BOX_F64, type BoxArray } from 'webgpu-obb';
import { mulberry32, writeQuaternionAxes, type Rng } from 'webgpu-obb/judge';

/** Street grid: block pitch and road width, metres. z is up; the ground's top is z = 0. */
export const CITY = { pitch: 48, road: 12, parkingLane: 4.3, kerb: 0.15 } as const;

/** What a city box is (for colours and the panel). */
export const KIND = { ground: 0, block: 1, building: 2, car: 3, crate: 4 } as const;
export const KIND_NAMES = ['ground', 'pavement', 'building', 'car', 'crate'] as const;

export interface City {
  readonly boxes: BoxArray;
  /** RGBA8 per box (r in the low byte), as the box shader unpacks it. */
  readonly colors: Uint32Array;
  readonly kind: Uint8Array;
  /** Blocks per side of the street grid (even, so streets run through x = 0 and y = 0). */
  readonly grid: number;
}

/** Packs linear RGB in [0, 1] (alpha 1) as the box shader reads it. */
export function rgba(r: number, g: number, b: number): number {
  const c = (v: number): number => Math.max(0, Math.min(255, Math.round(v * 255)));
  return (c(r) | (c(g) << 8) | (c(b) << 16) | (255 << 24)) >>> 0;
}

const BUILDING_COLORS: readonly (readonly [number, number, number])[] = [
  [0.8, 0.77, 0.72], [0.63, 0.67, 0.73], [0.86, 0.81, 0.7], [0.56, 0.6, 0.66], [0.72, 0.74, 0.8], [0.47, 0.6, 0.74], [0.76, 0.66, 0.58],
];
const CAR_COLORS: readonly (readonly [number, number, number])[] = [
  [0.82, 0.16, 0.12], [0.16, 0.36, 0.78], [0.93, 0.93, 0.9], [0.16, 0.16, 0.18], [0.66, 0.68, 0.71], [0.96, 0.76, 0.12], [0.2, 0.55, 0.35],
];
const CRATE_COLORS: readonly (readonly [number, number, number])[] = [[0.74, 0.54, 0.3], [0.92, 0.46, 0.12], [0.6, 0.42, 0.24]];

/** Writes one box record: centre, half extents, and a rotation about z by `yaw` then about a random tilt. */
function writeBox(data: Float64Array, i: number, c: readonly number[], h: readonly number[], q: readonly [number, number, number, number]): void {
  const o = i * BOX_F64.STRIDE;
  data[o] = c[0]!;
  data[o + 1] = c[1]!;
  data[o + 2] = c[2]!;
  data[o + 3] = h[0]!;
  data[o + 4] = h[1]!;
  data[o + 5] = h[2]!;
  writeQuaternionAxes(data, o, q[0], q[1], q[2], q[3]);
}

const yawQuat = (yaw: number): [number, number, number, number] => [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)];

function randomQuat(rnd: Rng): [number, number, number, number] {
  const u1 = rnd(), u2 = rnd() * 2 * Math.PI, u3 = rnd() * 2 * Math.PI;
  const a = Math.sqrt(1 - u1), b = Math.sqrt(u1);
  return [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
}

function shade(base: readonly [number, number, number], rnd: Rng, spread = 0.08): number {
  const f = 1 + (rnd() * 2 - 1) * spread;
  return rgba(base[0] * f, base[1] * f, base[2] * f);
}

const pick = <T>(list: readonly T[], rnd: Rng): T => list[Math.floor(rnd() * list.length)]!;

/**
 * A city of exactly `n` boxes (n ≥ 1): box 0 is the ground; then, block by block from the centre
 * outwards, a pavement slab, buildings (taller downtown, a third of them turned at random),
 * cars parked along the kerbs and crates tumbled at random in the yards. Each block draws from
 * its own seeded generator, so a bigger city keeps the same centre.
 *
 * @example
 * const city = cityScene(100_000, 7); city.boxes.count // 100000
 */
export function cityScene(n: number, seed: number): City {
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`cityScene: n must be a positive integer (got ${n})`);
  }
  const { pitch: P, road } = CITY;
  const S = P - road;
  const perBlock = 20;
  let grid = Math.ceil(Math.sqrt(Math.max(1, (n - 1) / perBlock))) + 1;
  grid += grid % 2;
  const data = new Float64Array(n * BOX_F64.STRIDE);
  const colors = new Uint32Array(n);
  const kind = new Uint8Array(n);
  const half = (grid * P) / 2;
  writeBox(data, 0, [0, 0, -0.5], [half + 40, half + 40, 0.5], [0, 0, 0, 1]);
  colors[0] = rgba(0.2, 0.215, 0.23);
  kind[0] = KIND.ground;
  let count = 1;
  const add = (k: number, color: number, c: readonly number[], h: readonly number[], q: readonly [number, number, number, number]): boolean => {
    if (count >= n) {
      return false;
    }
    writeBox(data, count, c, h, q);
    colors[count] = color;
    kind[count] = k;
    count++;
    return true;
  };
  const blocks: [number, number, number][] = [];
  for (let i = 0; i < grid; i++) {
    for (let j = 0; j < grid; j++) {
      const cx = (i - grid / 2 + 0.5) * P;
      const cy = (j - grid / 2 + 0.5) * P;
      blocks.push([i, j, Math.hypot(cx, cy)]);
    }
  }
  blocks.sort((a, b) => a[2] - b[2] || a[0] - b[0] || a[1] - b[1]);
  for (const [i, j, r] of blocks) {
    if (count >= n) {
      break;
    }
    // Seeded by the block's position relative to the centre, so a bigger city keeps its centre.
    const rnd = mulberry32((seed * 2654435761) ^ ((i - grid / 2) * 73856093) ^ ((j - grid / 2) * 19349663));
    const x0 = (i - grid / 2) * P + road / 2;
    const y0 = (j - grid / 2) * P + road / 2;
    const k = CITY.kerb / 2;
    add(KIND.block, shade([0.42, 0.43, 0.42], rnd, 0.03), [x0 + S / 2, y0 + S / 2, k], [S / 2, S / 2, k], [0, 0, 0, 1]);
    // Buildings on a 3 × 3 grid of 12 m lots; taller near the centre.
    const tall = 8 + 50 * Math.exp(-r / 300);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        if (rnd() < 0.22) {
          continue;
        }
        const turned = rnd() < 0.33;
        const lim = turned ? 4.1 : 5.6;
        const hx = 2.5 + rnd() * (lim - 2.5);
        const hy = 2.5 + rnd() * (lim - 2.5);
        const hz = 2 + rnd() * rnd() * tall;
        const yaw = turned ? rnd() * Math.PI : (rnd() - 0.5) * 0.1;
        add(KIND.building, shade(pick(BUILDING_COLORS, rnd), rnd), [x0 + 6 + 12 * a, y0 + 6 + 12 * b, CITY.kerb + hz], [hx, hy, hz], yawQuat(yaw));
      }
    }
    // Two cars parked along each kerb of the block, nose either way, slightly askew.
    for (let side = 0; side < 4; side++) {
      for (let c = 0; c < 2; c++) {
        const along = 5 + c * 17 + rnd() * 9;
        const lane = road / 2 - CITY.parkingLane;
        const [cx, cy, yaw0] =
          side === 0 ? [x0 + along, y0 - lane, 0]
            : side === 1 ? [x0 + along, y0 + S + lane, 0]
              : side === 2 ? [x0 - lane, y0 + along, Math.PI / 2]
                : [x0 + S + lane, y0 + along, Math.PI / 2];
        const yaw = yaw0 + (rnd() < 0.5 ? Math.PI : 0) + (rnd() - 0.5) * 0.12;
        const len = 1.9 + rnd() * 0.6;
        const h = 0.65 + rnd() * 0.25;
        add(KIND.car, shade(pick(CAR_COLORS, rnd), rnd, 0.05), [cx, cy, h + 0.05], [len, 0.85 + rnd() * 0.1, h], yawQuat(yaw));
      }
    }
    // Crates in the yards, tumbled at random.
    for (let c = 0; c < 6; c++) {
      const s = 0.3 + rnd() * 0.6;
      add(KIND.crate, shade(pick(CRATE_COLORS, rnd), rnd), [x0 + 1 + rnd() * (S - 2), y0 + 1 + rnd() * (S - 2), CITY.kerb + s * 0.8],
        [s * (0.7 + rnd() * 0.6), s * (0.7 + rnd() * 0.6), s], randomQuat(rnd));
    }
  }
  if (count < n) {
    throw new Error(`cityScene: grid ${grid} too small for ${n} boxes`);
  }
  return { boxes: { count: n, data }, colors, kind, grid };
}

/** Where the LiDAR car is at arc length `s` (metres) of its loop, and which way it faces. */
export interface CarPose {
  readonly position: [number, number, number];
  readonly yaw: number;
}

/**
 * The car's loop: the street centrelines around the four central blocks (a 96 m square with
 * rounded corners), driven anticlockwise. Parked cars stand 4.3 m off the centreline, so the
 * lane is clear.
 */
export function carPose(s: number): CarPose {
  const L = CITY.pitch;
  const R = 10;
  const side = 2 * L - 2 * R;
  const arc = (Math.PI / 2) * R;
  const total = 4 * (side + arc);
  let u = ((s % total) + total) % total;
  // Start at the middle of the south street heading +x; corners turn left.
  const corners: [number, number, number][] = [[L - R, -L + R, -Math.PI / 2], [L - R, L - R, 0], [-L + R, L - R, Math.PI / 2], [-L + R, -L + R, Math.PI]];
  const starts: [number, number][] = [[-L + R, -L], [L, -L + R], [L - R, L], [-L, L - R]];
  for (let k = 0; k < 4; k++) {
    const dir = (k * Math.PI) / 2;
    if (u < side) {
      const [sx, sy] = starts[k]!;
      return { position: [sx + Math.cos(dir) * u, sy + Math.sin(dir) * u, 0], yaw: dir };
    }
    u -= side;
    if (u < arc) {
      const [cx, cy, a0] = corners[k]!;
      const a = a0 + u / R;
      return { position: [cx + R * Math.cos(a), cy + R * Math.sin(a), 0], yaw: dir + u / R };
    }
    u -= arc;
  }
  return { position: [starts[0]![0], starts[0]![1], 0], yaw: 0 };
}

/** The LiDAR sensor's pose on the car's roof at arc length `s`: origin and rotation quaternion. */
export function sensorPose(s: number): { origin: [number, number, number]; rotation: [number, number, number, number] } {
  const p = carPose(s);
  return { origin: [p.position[0], p.position[1], 2.05], rotation: yawQuat(p.yaw) };
}

/** The LiDAR car's body (not in the box set: the sensor must not see its own car). */
export const CAR_BODY = { halfExtents: [2.3, 0.95, 0.8] as const, z: 0.85 } as const;

/** Parameters of the tumbling boxes; positions at any time t come from {@link tumbleBoxes}. */
export interface TumbleScene {
  readonly count: number;
  /** Half-size of the cubic volume the boxes move in. */
  readonly extent: number;
  readonly params: Float64Array;
}

const TP = 23; // numbers per box: c0 3, amplitude 3, frequency 3, phase 3, half extents 3, spin axis 3, spin rate 1, q0 4

/**
 * `n` boxes with seeded motions: each centre swings on its own Lissajous curve inside a cube
 * sized for a constant density, and each box spins about its own axis.
 *
 * @example
 * const scene = tumbleScene(2000, 3); const boxes = tumbleBoxes(scene, 1.5);
 */
export function tumbleScene(n: number, seed: number): TumbleScene {
  const rnd = mulberry32(seed);
  const extent = 1.85 * Math.cbrt(n);
  const p = new Float64Array(n * TP);
  for (let i = 0; i < n; i++) {
    const o = i * TP;
    const flat = rnd() < 0.15;
    for (let k = 0; k < 3; k++) {
      const amp = 0.4 + rnd() * 2;
      p[o + 3 + k] = amp;
      p[o + k] = (rnd() * 2 - 1) * Math.max(0, extent - amp - 1);
      p[o + 6 + k] = 0.15 + rnd() * 0.4;
      p[o + 9 + k] = rnd() * 2 * Math.PI;
      p[o + 12 + k] = 0.2 + rnd() * 0.8;
    }
    if (flat) {
      p[o + 12 + Math.floor(rnd() * 3)] = 0.04;
    }
    const axis = randomQuat(rnd);
    const len = Math.hypot(axis[0], axis[1], axis[2]) || 1;
    p[o + 15] = axis[0] / len;
    p[o + 16] = axis[1] / len;
    p[o + 17] = axis[2] / len;
    p[o + 18] = (0.2 + rnd() * 0.8) * (rnd() < 0.5 ? -1 : 1);
    p.set(randomQuat(rnd), o + 19);
  }
  return { count: n, extent, params: p };
}

/** The tumbling boxes at time `t` (seconds), float64. */
export function tumbleBoxes(scene: TumbleScene, t: number): BoxArray {
  const n = scene.count;
  const p = scene.params;
  const data = new Float64Array(n * BOX_F64.STRIDE);
  for (let i = 0; i < n; i++) {
    const o = i * TP;
    const b = i * BOX_F64.STRIDE;
    for (let k = 0; k < 3; k++) {
      data[b + k] = p[o + k]! + p[o + 3 + k]! * Math.sin(p[o + 6 + k]! * t + p[o + 9 + k]!);
      data[b + 3 + k] = p[o + 12 + k]!;
    }
    const a = (p[o + 18]! * t) / 2;
    const s = Math.sin(a);
    const [ax, ay, az, aw] = [p[o + 15]! * s, p[o + 16]! * s, p[o + 17]! * s, Math.cos(a)];
    const [bx, by, bz, bw] = [p[o + 19]!, p[o + 20]!, p[o + 21]!, p[o + 22]!];
    // q = spin(t) ⊗ q0
    writeQuaternionAxes(data, b,
      aw * bx + ax * bw + ay * bz - az * by,
      aw * by - ax * bz + ay * bw + az * bx,
      aw * bz + ax * by - ay * bx + az * bw,
      aw * bw - ax * bx - ay * by - az * bz);
  }
  return { count: n, data };
}

/**
 * A float64 fingerprint of a box array (weighted sum of every number), so the test can check
 * that it regenerated exactly the boxes the page has.
 */
export function boxChecksum(boxes: BoxArray): number {
  let s = 0;
  const d = boxes.data;
  for (let i = 0; i < boxes.count * BOX_F64.STRIDE; i++) {
    s += d[i]! * ((i % 13) + 1);
  }
  return s;
}
