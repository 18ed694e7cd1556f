/**
 * Per-laser data in the float64 oracle (src/core/lidar.ts, src/reference/lidar.ts): each
 * channel's beam-origin height v_c (verticalOffsets) and firing time f_c (firingTimeOffsets).
 * Ray (c, a) fires at τ_a + f_c from n · (cos θ, sin θ, 0) + (0, 0, v_c), θ = θ_a + span · f_c / T,
 * in the frame of the pose at that time, against the moving boxes at that time.
 */
import { describe, expect, it } from 'vitest';
import { checkLidar, columnFrames, firingGroups, type LidarDescription } from '../../src/core/lidar.ts';
import { LIDAR_PRESETS, lidarPreset } from '../../src/core/lidarPresets.ts';
import { boxArrayFrom } from '../../src/core/canonical.ts';
import { lidarPointFields, lidarRays, lidarSweepReference } from '../../src/reference/lidar.ts';
import { ValidationError } from '../../src/errors.ts';
import { parseScene } from '../../src/files/scene.ts';

/** A wall: the plane x = 10 facing the sensor, 40 m wide and high. */
const WALL = boxArrayFrom([{ center: [10.5, 0, 0], halfExtents: [0.5, 20, 20], rotation: [0, 0, 0, 1] }]);

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field ?? '';
  }
  throw new Error('no ValidationError');
}

describe('vertical beam-origin offsets', () => {
  it('a VLP-16 laser with +11.2 mm hits a wall 11.2 mm higher, at the same range', () => {
    // sweepTime 0: the preset's vertical offsets without its firing times (tested below).
    const still = lidarPreset('velodyne-vlp16', { columns: 360, sweepTime: 0 });
    const plain = lidarPreset('velodyne-vlp16', { columns: 360, sweepTime: 0, perLaser: false });
    const c = LIDAR_PRESETS['velodyne-vlp16']!.verticalOffsets!.indexOf(0.0112);
    expect(c).toBeGreaterThanOrEqual(0);
    expect(still.verticalOffsets![c]).toBe(0.0112);
    const A = still.azimuthSteps;
    const pose = { origin: [0, 0, 0] as [number, number, number] };
    const withOffset = lidarSweepReference(WALL, still, pose);
    const without = lidarSweepReference(WALL, plain, pose);
    const r = c * A;
    expect(withOffset.box[r]).toBe(0);
    expect(withOffset.range[r]).toBe(without.range[r]);
    const f1 = lidarPointFields(WALL, still, pose, {}, withOffset.range, withOffset.box);
    const f0 = lidarPointFields(WALL, plain, pose, {}, without.range, without.box);
    expect(f1.sensorXyz[3 * r]).toBe(f0.sensorXyz[3 * r]);
    expect(f1.sensorXyz[3 * r + 2]! - f0.sensorXyz[3 * r + 2]!).toBeCloseTo(0.0112, 15);
    expect(f1.worldXyz[3 * r + 2]! - f0.worldXyz[3 * r + 2]!).toBeCloseTo(0.0112, 15);
    // The ray itself starts 11.2 mm up (the VLP-16 has no beam-origin circle).
    expect(lidarRays(still, pose).data[7 * r + 2]).toBe(0.0112);
  });

  it('lifts the beam origin along the sensor\'s own z axis, on top of the beam-origin circle', () => {
    const desc: LidarDescription = { elevations: [0.1, -0.1], azimuthSteps: 8, maxRange: 50, beamOriginOffset: 0.05, verticalOffsets: [0.02, -0.01] };
    // A sensor rolled 90° about x: its z axis is the world's −y.
    const pose = { origin: [1, 2, 3] as [number, number, number], rotation: [Math.SQRT1_2, 0, 0, Math.SQRT1_2] as [number, number, number, number] };
    const rays = lidarRays(desc, pose);
    for (let c = 0; c < 2; c++) {
      for (let a = 0; a < 8; a++) {
        const theta = (2 * Math.PI * a) / 8;
        const v = desc.verticalOffsets![c]!;
        const o = rays.data.subarray(7 * (c * 8 + a));
        // Sensor-frame origin (n cos θ, n sin θ, v) → world (x, −v, y) + pose.
        expect(o[0]).toBeCloseTo(1 + 0.05 * Math.cos(theta), 14);
        expect(o[1]).toBeCloseTo(2 - v, 14);
        expect(o[2]).toBeCloseTo(3 + 0.05 * Math.sin(theta), 14);
      }
    }
  });
});

describe('firing-time offsets', () => {
  const T = 0.1;
  const A = 1000;
  const f = 20e-6;
  const turn = (2 * Math.PI * f) / T;
  const desc: LidarDescription = { elevations: [0, 0], azimuthSteps: A, maxRange: 50, sweepTime: T, firingTimeOffsets: [0, f] };

  it('turn the ray by span · f / T: the hit on a wall moves by 10 · tan(turn) sideways', () => {
    const pose = { origin: [0, 0, 0] as [number, number, number] };
    const ref = lidarSweepReference(WALL, desc, pose);
    expect(ref.range[0]).toBe(10);
    expect(ref.range[A]).toBeCloseTo(10 / Math.cos(turn), 12);
    const fields = lidarPointFields(WALL, desc, pose, {}, ref.range, ref.box);
    expect(fields.sensorXyz[3 * A + 1]).toBeCloseTo(10 * Math.tan(turn), 12);
    expect(fields.time[0]).toBe(0);
    expect(fields.time[A]).toBe(f);
    expect(fields.time[A + 7]).toBeCloseTo((7 * T) / A + f, 18);
    // The same direction as an azimuth offset of the turn: the turn is part of the channel's offset.
    const asOffset = lidarRays({ elevations: [0, 0], azimuthSteps: A, maxRange: 50, sweepTime: T, azimuthOffsets: [0, turn] }, pose);
    const fired = lidarRays(desc, pose);
    for (const r of [A, A + 1, A + 499, 2 * A - 1]) {
      for (let k = 3; k < 6; k++) {
        expect(fired.data[7 * r + k]).toBeCloseTo(asOffset.data[7 * r + k]!, 15);
      }
    }
  });

  it('a clockwise sensor turns the other way, and a beam origin on the circle turns with the head', () => {
    const cw: LidarDescription = { ...desc, azimuthStart: 0, azimuthEnd: -2 * Math.PI, beamOriginOffset: 0.1 };
    const rays = lidarRays(cw, { origin: [0, 0, 0] });
    // Column 0, channel 1: origin 0.1 (cos(−turn), sin(−turn), 0).
    expect(rays.data[7 * A]).toBeCloseTo(0.1 * Math.cos(turn), 15);
    expect(rays.data[7 * A + 1]).toBeCloseTo(-0.1 * Math.sin(turn), 15);
    expect(Math.atan2(rays.data[7 * A + 4]!, rays.data[7 * A + 3]!)).toBeCloseTo(-turn, 14);
  });

  it('meet the moving boxes and the moving sensor where they are at τ_a + f_c', () => {
    // The wall comes at 100 m/s: channel 1 fires 20 µs later, when it is 2 mm nearer.
    const motion = { boxMotion: { boxes: [0], velocity: [-100, 0, 0] } };
    const ref = lidarSweepReference(WALL, desc, { origin: [0, 0, 0] }, motion);
    expect(ref.range[0]).toBe(10);
    expect(ref.range[A]! * Math.cos(turn)).toBeCloseTo(10 - 100 * f, 12);
    const a = 3;
    const theta = (2 * Math.PI * a) / A;
    expect(ref.range[a]! * Math.cos(theta)).toBeCloseTo(10 - (100 * a * T) / A, 12);
    expect(ref.range[A + a]! * Math.cos(theta + turn)).toBeCloseTo(10 - 100 * ((a * T) / A + f), 12);
    // A sensor driving at 50 m/s towards the static wall: 1 mm nearer for channel 1.
    const drive = { poseEnd: { origin: [5, 0, 0] as [number, number, number] } };
    const moved = lidarSweepReference(WALL, desc, { origin: [0, 0, 0] }, drive);
    expect(moved.range[A]! * Math.cos(turn)).toBeCloseTo(10 - 50 * f, 12);
    const frames = columnFrames(desc, { origin: [0, 0, 0] }, drive.poseEnd, 1);
    expect(frames[0]!.time).toBe(f);
    expect(frames[0]!.position[0]).toBeCloseTo(50 * f, 15);
    expect(frames[0]!.angle).toBeCloseTo(turn, 15);
  });

  it('group the channels by firing time', () => {
    expect(firingGroups({ ...desc, elevations: [0, 0, 0, 0], firingTimeOffsets: [0, f, 0, f / 2] })).toEqual({ group: Int32Array.from([0, 1, 0, 2]), offsets: [0, f, f / 2] });
    expect(firingGroups({ elevations: [0, 0], azimuthSteps: 4, maxRange: 1 }).offsets).toEqual([0]);
  });
});

describe('validation', () => {
  const base: LidarDescription = { elevations: [0, 0.1], azimuthSteps: 100, maxRange: 50, sweepTime: 0.1 };
  it.each([
    ['verticalOffsets', { verticalOffsets: [0.01] }],
    ['verticalOffsets', { verticalOffsets: [0.01, Number.NaN] }],
    ['verticalOffsets', { verticalOffsets: 'high' }],
    ['firingTimeOffsets', { firingTimeOffsets: [0, 0.001] }],
    ['firingTimeOffsets', { firingTimeOffsets: [-1e-6, 0] }],
    ['firingTimeOffsets', { firingTimeOffsets: [0, 1e-6, 2e-6] }],
    ['firingTimeOffsets', { sweepTime: 0, firingTimeOffsets: [0, 1e-6] }],
  ])('refuses a bad %s by name (%j)', (field, extra) => {
    expect(fieldOf(() => checkLidar({ ...base, ...extra } as LidarDescription))).toBe(field);
  });

  it('takes offsets inside the ranges: firing times up to just below sweepTime / columns, zeros at sweepTime 0', () => {
    expect(() => checkLidar({ ...base, verticalOffsets: [-0.02, 0.3], firingTimeOffsets: [0, 0.001 * (1 - 1e-12)] })).not.toThrow();
    expect(() => checkLidar({ ...base, sweepTime: 0, firingTimeOffsets: [0, 0] })).not.toThrow();
  });
});

describe('scene files', () => {
  const boxes = [{ center: [10.5, 0, 0], halfExtents: [0.5, 20, 20], rotation: [0, 0, 0, 1] }];
  const sensor = { elevationsDeg: [-1, 1], columns: 100, maxRange: 50, sweepTime: 0.1 };

  it('carry verticalOffsets (world units) and firingTimeOffsets (seconds) as given; a preset by name carries its tables', () => {
    const scene = parseScene({ boxes, lidars: [{ sensor: { ...sensor, verticalOffsets: [0.0112, -0.0112], firingTimeOffsets: [0, 2.304e-6] }, pose: { position: [0, 0, 0] } }, { sensor: 'velodyne-vlp16', pose: { position: [0, 0, 0] } }] });
    expect(scene.lidars![0]!.desc.verticalOffsets).toEqual([0.0112, -0.0112]);
    expect(scene.lidars![0]!.desc.firingTimeOffsets).toEqual([0, 2.304e-6]);
    expect(scene.lidars![1]!.desc.verticalOffsets).toEqual(LIDAR_PRESETS['velodyne-vlp16']!.verticalOffsets);
  });

  it.each([
    ['verticalOffsets', [0.01]],
    ['verticalOffsets', 'up'],
    ['firingTimeOffsets', [0, 0.01]],
  ])('refuse a bad %s naming it (%j)', (key, value) => {
    expect(() => parseScene({ boxes, lidars: [{ sensor: { ...sensor, [key]: value }, pose: { position: [0, 0, 0] } }] })).toThrow(new RegExp(`lidars\\[0\\]\\.sensor\\.${key}`));
  });
});
