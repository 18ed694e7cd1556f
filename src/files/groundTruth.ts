/**
 * Ground truth of one LiDAR sweep for a dataset: the boxes the sweep saw (at least one return),
 * and optionally every box in range, in the sensor frame at the sweep's reference time, with their
 * return counts and class ids; and two writers, OpenPCDet's custom-dataset labels and JSON.
 * Browser- and Node-safe (no `node:` imports, no I/O); float64 throughout.
 *
 * Conventions (docs/lidar.md, "Ground truth"):
 * - Frame: the sensor's at the sweep's reference time, the sweep start τ = 0 (its pose `pose`;
 *   x forward, y left, z up, as OpenPCDet's unified normative coordinate). A point p in world
 *   coordinates is e_k · (p − origin) on sensor axis k, the frame the point clouds' sensor-frame
 *   points use at τ = 0.
 * - Moving boxes: where they are at τ = 0, which is where the set holds them (a box's velocity
 *   moves it from there during the sweep). "Seen" means at least one return on the box at any
 *   time during the sweep (the sweep's `returnsPerBox`).
 * - Centre: the box's centre. Size and heading follow OpenPCDet's box (x y z dx dy dz heading):
 *   heading is the yaw about the sensor's z of the box's heading axis, dx dy dz are full extents
 *   along that axis, its left normal in the sensor's xy-plane, and z. The vertical axis is the
 *   box axis most nearly along the sensor's z (ties: the first of u, v, w); the heading axis is the
 *   first of the other two, as given (its sign is kept: heading in (−π, π]). For an upright box
 *   (one axis along the sensor's z) dx dy dz are its own extents. A box with roll or pitch is
 *   reported as the smallest box with that heading and no roll or pitch that contains it
 *   (dx = 2 Σ_j h_j |a_j · ĥ|, and so on), and its exact orientation is `rotation`; a box within
 *   1e-12 of upright (a tilt under 1.5e-6 rad) has its own extents.
 *
 * @example
 * const sweep = await gpu.lidarSweep(sensor, set, pose);
 * const classIds = new Uint16Array(set.count); // 0 = Car for every box here
 * const truth = lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox, { classIds, maxRange: 120 });
 * writeOpenPcdetLabels(truth, ['Car', 'Pedestrian', 'Building']); // "12.5 -3.1 0.8 4.5 1.9 1.6 0.3 Car\n…"
 */
import { BOX_F64, type BoxArray, type Vec3 } from '../core/types.ts';
import { checkPose, poseAxes, type LidarPose } from '../core/lidar.ts';
import { detAtan2, detCos, detHypot, detSin } from '../core/detmath.ts';

/**
 * One box of a sweep's ground truth, in the sensor frame at the sweep's start (τ = 0).
 *
 * @example
 * const [first] = lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox);
 * if (first) console.log(first.id, first.points, first.center, first.size, first.heading);
 */
export interface LidarGroundTruthBox {
  /** The box's index in the set: the instance id the point clouds' `label` holds. */
  readonly id: number;
  /** The class id the caller gave for the box (0 without `classIds`). */
  readonly classId: number;
  /** Returns on the box in the sweep (0 for a box listed only as in range). */
  readonly points: number;
  /** Centre, sensor frame, world units. */
  readonly center: Vec3;
  /** dx dy dz: full extents along the heading axis, its left normal and the sensor's z. */
  readonly size: Vec3;
  /** Yaw of the heading axis about the sensor's z, radians in (−π, π], 0 along +x, counterclockwise. */
  readonly heading: number;
  /** The box's exact orientation in the sensor frame: the unit quaternion [x, y, z, w] turning the sensor's axes onto the box's u, v, w. */
  readonly rotation: readonly [number, number, number, number];
  /** Full extents along the box's own u, v, w (2 × its half extents). */
  readonly extents: Vec3;
  /** Distance from the sensor's origin to the nearest point of the box (0 inside it). */
  readonly distance: number;
}

/**
 * Options of {@link lidarGroundTruth}.
 *
 * @example
 * const options: LidarGroundTruthOptions = { classIds: new Uint16Array([0, 0, 1]), maxRange: 100 };
 */
export interface LidarGroundTruthOptions {
  /** A class id per box of the set (a `Uint16Array` or numbers, integers 0 … 65535); default 0 for every box. */
  readonly classIds?: ArrayLike<number>;
  /**
   * Also list the boxes without a return whose nearest point lies within this distance of the
   * sensor's origin (e.g. the sensor's `maxRange`). Default: the seen boxes only.
   */
  readonly maxRange?: number;
}

/** Quaternion [x, y, z, w] of the rotation whose matrix has columns a, b, c (right-handed, orthonormal). */
function matrixQuaternion(a: Vec3, b: Vec3, c: Vec3): [number, number, number, number] {
  // Shepperd's method: branch on the largest of the trace and the diagonal, for accuracy.
  const [m00, m10, m20] = a;
  const [m01, m11, m21] = b;
  const [m02, m12, m22] = c;
  const trace = m00 + m11 + m22;
  let q: [number, number, number, number];
  if (trace > 0) {
    const s = 2 * Math.sqrt(1 + trace);
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4];
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    q = [s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    q = [(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    q = [(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s];
  }
  const len = detHypot(q[0], q[1], q[2], q[3]);
  const sign = q[3] < 0 ? -1 : 1; // w ≥ 0: one of the two quaternions of the rotation
  return [(sign * q[0]) / len + 0, (sign * q[1]) / len + 0, (sign * q[2]) / len + 0, (sign * q[3]) / len + 0];
}

const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/**
 * The sweep's ground truth: every box with at least one return (`returnsPerBox[i] > 0`), and with
 * `maxRange` every other box whose nearest point is within that distance of the sensor's origin,
 * each in the sensor frame of `pose` (the sensor's pose at the sweep start, τ = 0) with its return
 * count, class id, centre, size and heading (the module's conventions), in box order. `boxes` are
 * the set's boxes (`set.boxes`, or a scene's), moving boxes where they are at τ = 0. Throws a
 * RangeError naming the argument that does not fit.
 *
 * @example
 * const sweep = await gpu.lidarSweep(sensor, set, pose);
 * const seen = lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox);
 * const classIds = [0, 0, 1, 2]; // one per box of the set
 * const all = lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox, { maxRange: 120, classIds });
 */
export function lidarGroundTruth(
  boxes: BoxArray, pose: LidarPose, returnsPerBox: ArrayLike<number>, options: LidarGroundTruthOptions = {},
): LidarGroundTruthBox[] {
  if (typeof boxes !== 'object' || boxes === null || !(boxes.data instanceof Float64Array) || !Number.isInteger(boxes.count) || boxes.data.length < boxes.count * BOX_F64.STRIDE) {
    throw new RangeError('boxes must be a BoxArray (the set\'s boxes: set.boxes)');
  }
  checkPose(pose);
  const n = boxes.count;
  if (typeof returnsPerBox !== 'object' || returnsPerBox === null || returnsPerBox.length !== n) {
    throw new RangeError(`returnsPerBox must hold one count per box (${n}; got ${returnsPerBox?.length ?? 'none'})`);
  }
  const { classIds, maxRange } = options;
  if (classIds !== undefined && (typeof classIds !== 'object' || classIds === null || classIds.length !== n)) {
    throw new RangeError(`classIds must hold one class id per box (${n}; got ${classIds?.length ?? 'none'})`);
  }
  if (maxRange !== undefined && !(typeof maxRange === 'number' && maxRange >= 0)) {
    throw new RangeError(`maxRange must be a number >= 0 (got ${String(maxRange)})`);
  }
  const [ex, ey, ez] = poseAxes(pose);
  const o = pose.origin;
  const d = boxes.data;
  const S = BOX_F64.STRIDE;
  const out: LidarGroundTruthBox[] = [];
  for (let i = 0; i < n; i++) {
    const points = returnsPerBox[i]!;
    if (!Number.isInteger(points) || points < 0) {
      throw new RangeError(`returnsPerBox[${i}] must be a count (got ${String(points)})`);
    }
    const b = i * S;
    const c: Vec3 = [d[b + BOX_F64.CENTER]!, d[b + BOX_F64.CENTER + 1]!, d[b + BOX_F64.CENTER + 2]!];
    const h: Vec3 = [d[b + BOX_F64.HALF]!, d[b + BOX_F64.HALF + 1]!, d[b + BOX_F64.HALF + 2]!];
    const worldAxes = [BOX_F64.U, BOX_F64.V, BOX_F64.W].map((k): Vec3 => [d[b + k]!, d[b + k + 1]!, d[b + k + 2]!]);
    // Nearest point of the box to the sensor's origin, in the box's frame.
    const rel: Vec3 = [o[0] - c[0], o[1] - c[1], o[2] - c[2]];
    let gap2 = 0;
    for (let j = 0; j < 3; j++) {
      const q = dot(rel, worldAxes[j]!);
      const excess = Math.abs(q) - h[j]!;
      if (excess > 0) {
        gap2 += excess * excess;
      }
    }
    const distance = Math.sqrt(gap2);
    if (points === 0 && !(maxRange !== undefined && distance <= maxRange)) {
      continue;
    }
    const classId = classIds === undefined ? 0 : classIds[i]!;
    if (!Number.isInteger(classId) || classId < 0 || classId > 0xffff) {
      throw new RangeError(`classIds[${i}] must be an integer in 0 … 65535 (got ${String(classId)})`);
    }
    const toSensor = (p: Vec3): Vec3 => [dot(p, ex), dot(p, ey), dot(p, ez)];
    const center = toSensor([c[0] - o[0], c[1] - o[1], c[2] - o[2]]);
    const axes = worldAxes.map(toSensor);
    // The vertical axis: most nearly along the sensor's z; the heading axis: the first other one.
    let vertical = 0;
    for (let j = 1; j < 3; j++) {
      if (Math.abs(axes[j]![2]) > Math.abs(axes[vertical]![2])) {
        vertical = j;
      }
    }
    const along = axes[vertical === 0 ? 1 : 0]!;
    const heading = detAtan2(along[1], along[0]);
    const hx: Vec3 = [detCos(heading), detSin(heading), 0];
    const hy: Vec3 = [-hx[1], hx[0], 0];
    const extent = (dir: Vec3): number => 2 * (h[0] * Math.abs(dot(axes[0]!, dir)) + h[1] * Math.abs(dot(axes[1]!, dir)) + h[2] * Math.abs(dot(axes[2]!, dir)));
    // Upright: the vertical axis within 1e-12 of the sensor's z (a tilt under 1.5e-6 rad, where the
    // sums below differ from the box's own extents by less than 1e-6 of them): its own extents,
    // exactly, rather than sums a rounding error away from them.
    const upright = 1 - Math.abs(axes[vertical]![2]) <= 1e-12;
    const size: Vec3 = upright
      ? [2 * h[vertical === 0 ? 1 : 0]!, 2 * h[vertical === 2 ? 1 : 2]!, 2 * h[vertical]!]
      : [extent(hx), extent(hy), extent([0, 0, 1])];
    const [u, v] = axes as [Vec3, Vec3, Vec3];
    const w: Vec3 = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    out.push({
      id: i, classId, points, center, size, heading: heading === -Math.PI ? Math.PI : heading,
      rotation: matrixQuaternion(u, v, w), extents: [2 * h[0], 2 * h[1], 2 * h[2]], distance,
    });
  }
  return out;
}

/** A number as the shortest decimal that reads back as the same float64 (no exponent for ordinary sizes). */
function decimal(x: number): string {
  return String(x + 0);
}

/**
 * The ground truth as OpenPCDet custom-dataset labels: one line per box,
 * `x y z dx dy dz heading class_name` (docs/CUSTOM_DATASET_TUTORIAL.md of open-mmlab/OpenPCDet,
 * "Label format"), in the sensor frame, numbers as the shortest decimals that read back as the
 * same float64. `classNames[classId]` names each box's class; a missing name, or one with
 * whitespace, throws a RangeError.
 *
 * @example
 * import { writeFileSync } from 'node:fs';
 * const truth = lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox, { classIds: [0, 1] });
 * writeFileSync('labels/000042.txt', writeOpenPcdetLabels(truth, ['Vehicle', 'Pedestrian']));
 */
export function writeOpenPcdetLabels(truth: readonly LidarGroundTruthBox[], classNames: readonly string[]): string {
  return truth.map((t) => {
    const name = classNames[t.classId];
    if (typeof name !== 'string' || name === '' || /\s/.test(name)) {
      throw new RangeError(`classNames[${t.classId}] must be a class name without whitespace (box ${t.id}; got ${JSON.stringify(name)})`);
    }
    return `${[...t.center, ...t.size, t.heading].map(decimal).join(' ')} ${name}\n`;
  }).join('');
}

/**
 * Options of {@link writeGroundTruthJson}.
 *
 * @example
 * const truth = lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox);
 * writeGroundTruthJson(truth, { classNames: ['Car'], stamp: 12.5, frameId: 'lidar_top' });
 */
export interface GroundTruthJsonOptions {
  /** Names of the class ids (written as `class` beside `classId`). */
  readonly classNames?: readonly string[];
  /** The sweep start's time, seconds (written as `stamp`). */
  readonly stamp?: number;
  /** The sensor frame's name (written as `frame`; default `"sensor"`). */
  readonly frameId?: string;
}

/**
 * The ground truth as JSON text: `{ "frame", "reference", "stamp"?, "boxes": [ … ] }`, one box per
 * line with every field of {@link LidarGroundTruthBox} (and `class` when `classNames` names it);
 * `reference` says the frame's time ("sweep start (tau = 0)"). Numbers are float64, written as the
 * shortest decimals that read back exactly.
 *
 * @example
 * const truth = lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox);
 * const json = JSON.parse(writeGroundTruthJson(truth, { classNames: ['Car'] })) as { boxes: LidarGroundTruthBox[] };
 * console.log(json.boxes[0]?.center); // [12.5, -3.1, 0.8]
 */
export function writeGroundTruthJson(truth: readonly LidarGroundTruthBox[], options: GroundTruthJsonOptions = {}): string {
  const head: Record<string, unknown> = { frame: options.frameId ?? 'sensor', reference: 'sweep start (tau = 0)' };
  if (options.stamp !== undefined) {
    head['stamp'] = options.stamp;
  }
  const lines = truth.map((t) => {
    const name = options.classNames?.[t.classId];
    const box = {
      id: t.id, classId: t.classId, ...(name === undefined ? {} : { class: name }), points: t.points,
      center: t.center, size: t.size, heading: t.heading, rotation: t.rotation, extents: t.extents, distance: t.distance,
    };
    return `    ${JSON.stringify(box)}`;
  });
  const headText = Object.entries(head).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`).join('');
  return `{\n${headText}  "boxes": [${lines.length ? `\n${lines.join(',\n')}\n  ` : ''}]\n}\n`;
}
