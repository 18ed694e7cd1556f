/**
 * The host side of the raster LiDAR method (src/lidar/LidarSensor.ts, shaders/lidar/raster.wgsl):
 * the error bound of the kernel's atan polynomial, the sorted channel table, and which channel
 * tables the method accepts. The sweeps themselves are compared with the reference in
 * test/gpu/bvh.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { lidarKernelTables, lidarRasterizable } from '../../../src/lidar/LidarSensor.ts';
import { lidarTables, linearElevations } from '../../../src/reference/lidar.ts';

const f = Math.fround;

/** atanUnit of shaders/lidar/raster.wgsl, every operation rounded to f32 as the GPU does. */
function atanUnitF32(x: number): number {
  const x2 = f(x * x);
  const coeffs = [0.99997726, -0.33262347, 0.19354346, -0.11643287, 0.05265332, -0.0117212];
  let p = f(coeffs[5]!);
  for (let k = 4; k >= 0; k--) {
    p = f(f(coeffs[k]!) + f(x2 * p));
  }
  return f(f(x) * p);
}

describe('raster LiDAR, host side', () => {
  it('atanUnit is within 1e-5 rad of atan on [-1, 1] in f32 (the kernel pads angles by 2e-4)', () => {
    let worst = 0;
    for (let k = 0; k <= 2_000_000; k++) {
      const x = f(-1 + k / 1_000_000);
      worst = Math.max(worst, Math.abs(atanUnitF32(x) - Math.atan(x)));
    }
    console.log(`atanUnit worst error on [-1, 1]: ${worst.toExponential(2)} rad`);
    expect(worst).toBeLessThan(1e-5);
  });

  it('appends the channels in ascending sin e, ties by channel, after the cos/sin tables', () => {
    const deg = Math.PI / 180;
    const desc = { elevations: [10, -30, 80, 10, -2].map((e) => e * deg), azimuthSteps: 5, maxRange: 100 };
    const t = lidarKernelTables(desc);
    const base = lidarTables(desc);
    expect(t.length).toBe(base.length + 2 * 5);
    expect(Array.from(t.subarray(0, base.length))).toEqual(Array.from(base, f));
    const sorted = Array.from({ length: 5 }, (_, k) => [t[base.length + 2 * k]!, t[base.length + 2 * k + 1]!]);
    expect(sorted.map(([, c]) => c)).toEqual([1, 4, 0, 3, 2]);
    expect(sorted.map(([s]) => s)).toEqual([-30, -2, 10, 10, 80].map((e) => f(Math.sin(e * deg))));
  });

  it('serves channel tables strictly inside ±89.9°, of fewer than 65,536 channels, only', () => {
    const deg = Math.PI / 180;
    expect(lidarRasterizable({ elevations: linearElevations(128, -25, 15), azimuthSteps: 2048, maxRange: 200 })).toBe(true);
    expect(lidarRasterizable({ elevations: [89.8 * deg, -89.8 * deg], azimuthSteps: 8, maxRange: 1 })).toBe(true);
    expect(lidarRasterizable({ elevations: [0, 90 * deg], azimuthSteps: 8, maxRange: 1 })).toBe(false);
    expect(lidarRasterizable({ elevations: [120 * deg], azimuthSteps: 8, maxRange: 1 })).toBe(false);
    expect(lidarRasterizable({ elevations: new Array<number>(65_535).fill(0), azimuthSteps: 8, maxRange: 1 })).toBe(true);
    expect(lidarRasterizable({ elevations: new Array<number>(65_536).fill(0), azimuthSteps: 8, maxRange: 1 })).toBe(false);
  });
});
