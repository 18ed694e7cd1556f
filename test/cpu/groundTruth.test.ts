/**
 * A sweep's ground truth (src/files/groundTruth.ts): boxes in the sensor frame at the sweep start
 * with OpenPCDet's x y z dx dy dz heading, checked on hand-made cases (a yawed sensor and a yawed
 * box, a box with roll, a box whose vertical axis is u), against the sweep's own points (every
 * return on a box lies inside its reported box), the seen / in-range rule and the class ids; and
 * the two writers read back (OpenPCDet lines, JSON).
 */
import { describe, expect, it } from 'vitest';
import { boxArrayFrom } from '../../src/core/canonical.ts';
import type { LidarDescription, LidarPose } from '../../src/core/lidar.ts';
import { lidarPointFields, lidarSweepReference } from '../../src/reference/lidar.ts';
import { lidarGroundTruth, writeGroundTruthJson, writeOpenPcdetLabels, type LidarGroundTruthBox } from '../../src/files/groundTruth.ts';

const yawQ = (yaw: number): [number, number, number, number] => [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)];

/** Rotates v by the unit quaternion q. */
function rotate(q: readonly number[], v: readonly number[]): [number, number, number] {
  const [x, y, z, w] = q as [number, number, number, number];
  const [vx, vy, vz] = v as [number, number, number];
  // v + 2w (q × v) + 2 q × (q × v)
  const cx = y * vz - z * vy;
  const cy = z * vx - x * vz;
  const cz = x * vy - y * vx;
  return [vx + 2 * (w * cx + y * cz - z * cy), vy + 2 * (w * cy + z * cx - x * cz), vz + 2 * (w * cz + x * cy - y * cx)];
}

describe('lidarGroundTruth: frames, size and heading', () => {
  it('an upright box, sensor moved and yawed: centre in the sensor frame, the box\'s own extents, heading = box yaw − sensor yaw', () => {
    const boxes = boxArrayFrom([{ center: [20, 10, 1], halfExtents: [2.25, 1, 0.75], rotation: yawQ(0.9) }]);
    const pose: LidarPose = { origin: [10, 10, 2], rotation: yawQ(0.4) };
    const [t] = lidarGroundTruth(boxes, pose, [7]);
    expect(t!.id).toBe(0);
    expect(t!.points).toBe(7);
    expect(t!.classId).toBe(0);
    // (10, 0, −1) in the world, turned by −0.4 about z.
    expect(t!.center[0]).toBeCloseTo(10 * Math.cos(0.4), 12);
    expect(t!.center[1]).toBeCloseTo(-10 * Math.sin(0.4), 12);
    expect(t!.center[2]).toBeCloseTo(-1, 12);
    expect(t!.size).toEqual([4.5, 2, 1.5]);
    expect(t!.extents).toEqual([4.5, 2, 1.5]);
    expect(t!.heading).toBeCloseTo(0.5, 12);
    // rotation turns the sensor's x onto the box's u, in the sensor frame.
    const u = rotate(t!.rotation, [1, 0, 0]);
    expect(u[0]).toBeCloseTo(Math.cos(0.5), 12);
    expect(u[1]).toBeCloseTo(Math.sin(0.5), 12);
    expect(u[2]).toBeCloseTo(0, 12);
    // The sensor is (−10, 0, 1) from the centre: beyond the box along u, v and w.
    expect(t!.distance).toBeCloseTo(Math.hypot(10 * Math.cos(0.9) - 2.25, 10 * Math.sin(0.9) - 1, 1 - 0.75), 12);
  });

  it('heading stays in (−π, π] and keeps the sign of the box\'s u', () => {
    const boxes = boxArrayFrom([
      { center: [5, 0, 0], halfExtents: [1, 1, 1], rotation: yawQ(Math.PI) },
      { center: [5, 5, 0], halfExtents: [1, 1, 1], rotation: yawQ(-Math.PI / 2) },
    ]);
    const truth = lidarGroundTruth(boxes, { origin: [0, 0, 0] }, [1, 1]);
    expect(truth[0]!.heading).toBeCloseTo(Math.PI, 12);
    expect(truth[0]!.heading).toBeLessThanOrEqual(Math.PI);
    expect(truth[0]!.heading).toBeGreaterThan(0);
    expect(truth[1]!.heading).toBeCloseTo(-Math.PI / 2, 12);
  });

  it('a box with roll: the smallest upright box with its heading that holds it, and its exact orientation', () => {
    const roll = 0.3;
    const yaw = 0.7;
    // Yaw, then roll about the box's own u.
    const q = [Math.cos(yaw / 2) * Math.sin(roll / 2), Math.sin(yaw / 2) * Math.sin(roll / 2), Math.sin(yaw / 2) * Math.cos(roll / 2), Math.cos(yaw / 2) * Math.cos(roll / 2)] as [number, number, number, number];
    const h = [2, 1, 0.5] as const;
    const boxes = boxArrayFrom([{ center: [10, -4, 1], halfExtents: [...h], rotation: q }]);
    const [t] = lidarGroundTruth(boxes, { origin: [0, 0, 0] }, [3]);
    expect(t!.heading).toBeCloseTo(yaw, 12);
    // Rolled about u: dx is u's extent, dy and dz mix v and w.
    expect(t!.size[0]).toBeCloseTo(2 * h[0], 12);
    expect(t!.size[1]).toBeCloseTo(2 * (h[1] * Math.cos(roll) + h[2] * Math.sin(roll)), 12);
    expect(t!.size[2]).toBeCloseTo(2 * (h[1] * Math.sin(roll) + h[2] * Math.cos(roll)), 12);
    expect(t!.extents).toEqual([4, 2, 1]);
    for (const [axis, k] of [[[1, 0, 0], 0], [[0, 1, 0], 1], [[0, 0, 1], 2]] as const) {
      const mine = rotate(t!.rotation, axis);
      const theirs = rotate(q, axis);
      for (let i = 0; i < 3; i++) {
        expect(mine[i], `axis ${k}`).toBeCloseTo(theirs[i]!, 12);
      }
    }
  });

  it('a box standing on its u axis: u is the vertical one, v gives the heading', () => {
    // u along z, v along −x, w along −y (a right-handed frame).
    const boxes = boxArrayFrom([{ center: [3, 3, 3], halfExtents: [3, 1, 0.5], axes: [[0, 0, 1], [-1, 0, 0], [0, -1, 0]] }]);
    const [t] = lidarGroundTruth(boxes, { origin: [0, 0, 0] }, [1]);
    expect(t!.size).toEqual([2, 1, 6]);
    expect(t!.heading).toBeCloseTo(Math.PI, 12);
  });

  it('seen boxes by default; with maxRange also the hidden ones within range of the sensor; class ids per box', () => {
    const boxes = boxArrayFrom([
      { center: [10, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] },
      { center: [30, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }, // behind box 0
      { center: [0, 80, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }, // 79 m away
    ]);
    const pose = { origin: [0, 0, 0] as [number, number, number] };
    const counts = [12, 0, 0];
    expect(lidarGroundTruth(boxes, pose, counts).map((t) => t.id)).toEqual([0]);
    expect(lidarGroundTruth(boxes, pose, counts, { maxRange: 50 }).map((t) => t.id)).toEqual([0, 1]);
    const all = lidarGroundTruth(boxes, pose, counts, { maxRange: 79, classIds: new Uint16Array([2, 5, 7]) });
    expect(all.map((t) => [t.id, t.points, t.classId, t.distance])).toEqual([[0, 12, 2, 9], [1, 0, 5, 29], [2, 0, 7, 79]]);
  });

  it('refuses what does not fit, naming it', () => {
    const boxes = boxArrayFrom([{ center: [10, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
    const pose = { origin: [0, 0, 0] as [number, number, number] };
    expect(() => lidarGroundTruth(boxes, pose, [1, 2])).toThrow(/^returnsPerBox must hold one count per box \(1; got 2\)/);
    expect(() => lidarGroundTruth(boxes, pose, [1.5])).toThrow(/^returnsPerBox\[0\] must be a count/);
    expect(() => lidarGroundTruth(boxes, pose, [1], { classIds: [] })).toThrow(/^classIds must hold one class id per box/);
    expect(() => lidarGroundTruth(boxes, pose, [1], { classIds: [-1] })).toThrow(/^classIds\[0\] must be an integer/);
    expect(() => lidarGroundTruth(boxes, pose, [1], { maxRange: -1 })).toThrow(/^maxRange must be/);
    expect(() => lidarGroundTruth([] as unknown as typeof boxes, pose, [1])).toThrow(/^boxes must be a BoxArray/);
    expect(() => lidarGroundTruth(boxes, { origin: [0, 0] } as unknown as LidarPose, [1])).toThrow(/pose\.origin/);
  });
});

describe('lidarGroundTruth against the sweep\'s own points', () => {
  it('every return on a box lies inside the box it reports (sensor frame, static scene)', () => {
    const boxes = boxArrayFrom([
      { center: [0, 0, -0.5], halfExtents: [40, 40, 0.5], rotation: [0, 0, 0, 1] },
      { center: [12, 3, 1], halfExtents: [2.3, 1, 1], rotation: yawQ(0.6) },
      { center: [-8, -9, 4], halfExtents: [3, 3, 4], rotation: yawQ(-0.2) },
      { center: [4, -10, 0.9], halfExtents: [0.3, 0.3, 0.9], rotation: [0.1, 0, 0, Math.sqrt(0.99)] },
    ]);
    const desc: LidarDescription = { elevations: Array.from({ length: 16 }, (_, c) => ((c - 10) * Math.PI) / 180), azimuthSteps: 720, maxRange: 60 };
    const pose: LidarPose = { origin: [1, 2, 1.8], rotation: yawQ(0.35) };
    const ref = lidarSweepReference(boxes, desc, pose, {});
    const cloud = lidarPointFields(boxes, desc, pose, {}, ref.range, ref.box);
    const truth = lidarGroundTruth(boxes, pose, ref.returnsPerBox, { classIds: [0, 1, 2, 3] });
    expect(truth.map((t) => t.id)).toEqual([0, 1, 2, 3]);
    const byId = new Map(truth.map((t) => [t.id, t]));
    let checked = 0;
    for (let r = 0; r < cloud.box.length; r++) {
      const b = cloud.box[r]!;
      if (b < 0) {
        continue;
      }
      const t: LidarGroundTruthBox = byId.get(b)!;
      const p = [0, 1, 2].map((k) => cloud.sensorXyz[3 * r + k]! - t.center[k]!);
      // Into the box's frame: the inverse rotation.
      const inv = [-t.rotation[0], -t.rotation[1], -t.rotation[2], t.rotation[3]];
      const local = rotate(inv, p);
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(local[k]!)).toBeLessThanOrEqual(t.extents[k]! / 2 + 1e-9);
      }
      checked++;
    }
    expect(checked).toBe(truth.reduce((s, t) => s + t.points, 0));
    expect(checked).toBeGreaterThan(1000);
  });
});

describe('writers', () => {
  const boxes = boxArrayFrom([
    { center: [20, 10, 1], halfExtents: [2.25, 1, 0.75], rotation: yawQ(0.9) },
    { center: [5, -3, 0.9], halfExtents: [0.3, 0.3, 0.9], rotation: [0, 0, 0, 1] },
  ]);
  const truth = lidarGroundTruth(boxes, { origin: [10, 10, 2], rotation: yawQ(0.4) }, [7, 2], { classIds: [0, 1] });

  it('OpenPCDet labels: one line per box, x y z dx dy dz heading class_name, numbers that read back exactly', () => {
    const text = writeOpenPcdetLabels(truth, ['Vehicle', 'Pedestrian']);
    const lines = text.trimEnd().split('\n');
    expect(text.endsWith('\n')).toBe(true);
    expect(lines).toHaveLength(2);
    lines.forEach((line, i) => {
      const parts = line.split(' ');
      expect(parts).toHaveLength(8);
      const numbers = parts.slice(0, 7).map(Number);
      expect(numbers).toEqual([...truth[i]!.center, ...truth[i]!.size, truth[i]!.heading]);
      expect(parts[7]).toBe(['Vehicle', 'Pedestrian'][i]);
    });
    expect(() => writeOpenPcdetLabels(truth, ['Vehicle'])).toThrow(/^classNames\[1\] must be a class name without whitespace \(box 1; got undefined\)/);
    expect(() => writeOpenPcdetLabels(truth, ['Vehicle', 'Traffic cone'])).toThrow(/classNames\[1\]/);
    expect(writeOpenPcdetLabels([], [])).toBe('');
  });

  it('JSON: frame, reference time, stamp and every field of each box, exactly', () => {
    const json = JSON.parse(writeGroundTruthJson(truth, { classNames: ['Vehicle', 'Pedestrian'], stamp: 12.5, frameId: 'lidar_top' })) as {
      frame: string; reference: string; stamp: number; boxes: (LidarGroundTruthBox & { class: string })[];
    };
    expect(json.frame).toBe('lidar_top');
    expect(json.reference).toBe('sweep start (tau = 0)');
    expect(json.stamp).toBe(12.5);
    expect(json.boxes).toEqual(truth.map((t, i) => ({ ...t, class: ['Vehicle', 'Pedestrian'][i] })));
    expect(JSON.parse(writeGroundTruthJson([]))).toEqual({ frame: 'sensor', reference: 'sweep start (tau = 0)', boxes: [] });
  });
});
