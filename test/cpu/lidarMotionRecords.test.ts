/**
 * The raster method's motion records (src/lidar/motionRecords.ts): for every record, every ray
 * whose image column it covers starts within δ of its reference position, its frame within γ of
 * the reference frame, its time within Δτ; and its direction, taken into the reference frame,
 * within γ of its nominal direction there and within the azimuth pad of its nominal azimuth —
 * the bounds shaders/lidar/raster.wgsl (motionPrint) sweeps footprints by.
 */
import { describe, expect, it } from 'vitest';
import { linearElevations, type LidarDescription, type LidarPose } from '../../src/index.ts';
import { mulberry32 } from '../../src/judge/index.ts';
import { lidarRays } from '../../src/reference/lidar.ts';
import { lidarColumnShifts } from '../../src/lidar/LidarSensor.ts';
import { frameAngle, lidarMotionRecords, motionChunkWidth } from '../../src/lidar/motionRecords.ts';
import { columnFrames, hasPerLaserData, isFullTurn, poseAxes } from '../../src/core/lidar.ts';

const deg = Math.PI / 180;

function quatZ(angle: number): [number, number, number, number] {
  return [0, 0, Math.sin(angle / 2), Math.cos(angle / 2)];
}

describe('frameAngle', () => {
  it('is the rotation angle between two frames, exact near 0 and near π', () => {
    const base = poseAxes({ origin: [0, 0, 0], rotation: [0.2, -0.1, 0.3, 0.927] });
    for (const angle of [0, 1e-9, 1e-4, 0.3, 2, Math.PI - 1e-6]) {
      // A turn by `angle` about a tilted axis, applied after the base frame.
      const k = [0.48, -0.6, 0.64];
      const s = Math.sin(angle / 2);
      const q: [number, number, number, number] = [k[0]! * s, k[1]! * s, k[2]! * s, Math.cos(angle / 2)];
      const turned = poseAxes({ origin: [0, 0, 0], rotation: q });
      // Compose: the turned frame's axes expressed through the base frame (R_base · R_q).
      const axes = turned.map((t) => [0, 1, 2].map((i) => base[0][i]! * t[0] + base[1][i]! * t[1] + base[2][i]! * t[2])) as never;
      expect(frameAngle(base, axes)).toBeCloseTo(angle, angle < 1e-3 ? 12 : 9);
    }
  });
});

type Sensor = { desc: LidarDescription; pose: LidarPose; poseEnd: LidarPose };

function sensors(): Sensor[] {
  const rnd = mulberry32(7);
  const out: Sensor[] = [];
  for (let k = 0; k < 24; k++) {
    const C = 2 + Math.floor(rnd() * 14);
    const A = [7, 64, 200, 513, 1024][k % 5]!;
    const partial = k % 3 === 1;
    const clockwise = k % 4 >= 2;
    const span = (partial ? (40 + rnd() * 280) * deg : 2 * Math.PI) * (clockwise ? -1 : 1);
    const start = rnd() * 2 * Math.PI;
    const desc: LidarDescription = {
      elevations: linearElevations(C, -30 - rnd() * 50, 10 + rnd() * 70), azimuthSteps: A, azimuthStart: start, azimuthEnd: start + span,
      maxRange: 100, sweepTime: 0.1,
      ...(k % 2 === 0 ? { azimuthOffsets: Array.from({ length: C }, () => (rnd() - 0.5) * 16 * deg) } : {}),
      ...(k % 5 < 2 ? { beamOriginOffset: rnd() * 0.05 } : {}),
      // Per-laser data: beam origins up to ±3 cm off the circle, firings anywhere in the column's period.
      ...(k % 3 === 0 ? {
        verticalOffsets: Array.from({ length: C }, () => (rnd() - 0.5) * 0.06),
        firingTimeOffsets: Array.from({ length: C }, (_, c) => (c === 0 ? 0 : rnd() * 0.999 * (0.1 / A))),
      } : {}),
    };
    const pose: LidarPose = { origin: [1e5 * rnd(), -3e4, 10], rotation: [0.1 * rnd(), 0, Math.sin(rnd()), 1] };
    const turn = k % 6 === 5 ? 0 : (rnd() - 0.5) * 0.8;
    const q = pose.rotation!;
    const end: [number, number, number, number] = k % 7 === 3 ? [q[0], q[1], q[2], q[3]] : (() => {
      const z = quatZ(turn);
      // q ∘ z (a turn about the sensor's own up axis), plus a little pitch.
      return [q[3] * z[0] + q[0] * z[3] + q[1] * z[2] - q[2] * z[1] + 0.02, q[3] * z[1] - q[0] * z[2] + q[1] * z[3] + q[2] * z[0], q[3] * z[2] + q[0] * z[1] - q[1] * z[0] + q[2] * z[3], q[3] * z[3] - q[0] * z[0] - q[1] * z[1] - q[2] * z[2]];
    })();
    const poseEnd: LidarPose = { origin: [pose.origin[0] + (rnd() - 0.5) * 6, pose.origin[1] + (rnd() - 0.5) * 6, pose.origin[2]], rotation: end };
    out.push({ desc, pose, poseEnd });
  }
  return out;
}

describe('lidarMotionRecords', () => {
  it('every ray of a record\'s columns lies within its bounds (24 sensors: offsets, beam origins, per-laser heights and firing times, partial and clockwise fields, turning and moving)', () => {
    let checked = 0;
    const failures: string[] = [];
    for (const [k, { desc, pose, poseEnd }] of sensors().entries()) {
      const A = desc.azimuthSteps;
      const C = desc.elevations.length;
      // Each channel's firings with per-laser data (every ray's own frame), else the columns'.
      const rows = hasPerLaserData(desc) ? Array.from({ length: C }, (_, c) => columnFrames(desc, pose, poseEnd, c)) : [columnFrames(desc, pose, poseEnd)];
      const frames = rows[0]!;
      const { shift } = lidarColumnShifts(desc);
      const width = motionChunkWidth(A);
      const records = lidarMotionRecords(desc, rows.length > 1 ? rows : frames, width, shift);
      expect(records.length).toBe(1 + Math.ceil(A / width));
      const rays = lidarRays(desc, pose, poseEnd);
      const full = isFullTurn(desc);
      const steepest = Math.max(...desc.elevations.map(Math.abs));
      for (let c = 0; c < C; c++) {
        for (let a = 0; a < A; a++) {
          const image = full ? (((a + shift[c]!) % A) + A) % A : a;
          for (const r of [0, 1 + Math.floor(image / width)]) {
            const rec = records[r]!;
            const ref = frames[rec.column]!;
            const f = rows[rows.length > 1 ? c : 0]![a]!;
            const o = rays.data.subarray(7 * (c * A + a));
            // Starts within δ of the reference position.
            const bad: string[] = [];
            if (Math.hypot(o[0]! - ref.position[0], o[1]! - ref.position[1], o[2]! - ref.position[2]) > rec.grow + 1e-9) {
              bad.push('origin');
            }
            if (frameAngle(ref.axes, f.axes) > rec.turn + 1e-12) {
              bad.push('frame');
            }
            if (Math.abs(f.time - ref.time) > rec.timeSpread + 1e-15) {
              bad.push('time');
            }
            // The direction in the reference frame, against the nominal one (the ray's own
            // sensor-frame direction read in the reference frame).
            const d = [o[3]!, o[4]!, o[5]!];
            const inRef = ref.axes.map((x) => x[0] * d[0]! + x[1] * d[1]! + x[2] * d[2]!);
            const inOwn = f.axes.map((x) => x[0] * d[0]! + x[1] * d[1]! + x[2] * d[2]!);
            const cos = inRef[0]! * inOwn[0]! + inRef[1]! * inOwn[1]! + inRef[2]! * inOwn[2]!;
            if (Math.acos(Math.min(1, cos)) > rec.turn + 1e-7) {
              bad.push('direction');
            }
            if (rec.azimuthPad < 3) {
              const diff = Math.atan2(inRef[1]!, inRef[0]!) - Math.atan2(inOwn[1]!, inOwn[0]!);
              if (Math.abs(diff - 2 * Math.PI * Math.round(diff / (2 * Math.PI))) > rec.azimuthPad + 1e-7) {
                bad.push('azimuth');
              }
            } else if (rec.turn + steepest <= Math.PI / 2 - 2e-3) {
              bad.push('pad');
            }
            if (bad.length > 0) {
              failures.push(`sensor ${k}, ray (${c}, ${a}), record ${r}: ${bad.join(', ')}`);
            }
            checked++;
          }
        }
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(checked).toBeGreaterThan(100_000);
  }, 60_000);

  it('a sensor that does not move or turn: δ is the beam-origin offset, no turn, no azimuth pad; a turning one has both', () => {
    const desc: LidarDescription = { elevations: linearElevations(8, -20, 20), azimuthSteps: 256, maxRange: 50, sweepTime: 0.1, beamOriginOffset: 0.02 };
    const pose: LidarPose = { origin: [10, 20, 2], rotation: quatZ(0.4) };
    const still = lidarMotionRecords(desc, columnFrames(desc, pose, pose), 8, new Int32Array(8));
    for (const r of still) {
      expect(r.turn).toBe(0);
      expect(r.azimuthPad).toBe(0);
      expect(r.grow).toBeCloseTo(0.02, 12);
    }
    const turning = lidarMotionRecords(desc, columnFrames(desc, pose, { origin: [12, 20, 2], rotation: quatZ(0.5) }), 8, new Int32Array(8));
    // The whole sweep turns 0.1 rad; a chunk of 8 of 256 columns turns 1/32 of that, half each way.
    expect(turning[0]!.turn).toBeGreaterThan(0.049);
    expect(turning[0]!.turn).toBeLessThan(0.051);
    expect(turning[1]!.turn).toBeLessThan(0.1 / 32);
    expect(turning[1]!.grow).toBeLessThan(0.02 + 2 / 32);
    expect(turning[0]!.azimuthPad).toBeGreaterThan(turning[0]!.turn);
  });
});
