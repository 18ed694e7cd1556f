/**
 * The GPU LiDAR sensor, raster method (src/lidar/LidarSensor.ts): the sweep's rays are generated on the
 * GPU from a 64-byte pose and every box is rasterised into the range image over the rays that
 * can hit it; no tree. It serves only the LiDAR workload (`buildLidar`), answering in the
 * workload's ray order (azimuth-major, bench/page/scenes.ts lidarRays).
 */
import { linearElevations, type BoxArray, type RayArray } from '../../../src/index.ts';
import { gpuVersion, uploaded } from './gpuScene.ts';
import { timeGpu } from '../measure.ts';
import { LIDAR } from '../scenes.ts';
import type { Implementation, KernelTiming } from './types.ts';

export const gpuRaster: Implementation = {
  name: 'gpu-raster',
  kind: 'gpu',
  bruteForce: false,
  device: 'gpu',

  version: gpuVersion,

  async buildLidar(boxes: BoxArray, elevations: number, azimuths: number) {
    const { g, set } = await uploaded(boxes);
    const sensor = await g.createLidar({
      elevations: linearElevations(elevations, LIDAR.minElevationDeg, LIDAR.maxElevationDeg), azimuthSteps: azimuths, maxRange: LIDAR.maxDistance,
    }, { method: 'raster' });
    const pose = { origin: [0, 0, 0] as const };
    const check = (rays: RayArray): void => {
      if (rays.count !== elevations * azimuths) {
        throw new Error(`gpu-raster answers whole sweeps only (${elevations * azimuths} rays, got ${rays.count})`);
      }
    };
    return {
      origin: set.origin,
      async closestHit(rays: RayArray) {
        check(rays);
        const sweep = await g.lidarSweep(sensor, set, pose);
        // Sensor ray c · azimuths + a is the workload's ray a · elevations + c.
        const box = new Int32Array(rays.count);
        const t = new Float32Array(rays.count);
        for (let c = 0; c < elevations; c++) {
          for (let a = 0; a < azimuths; a++) {
            const k = a * elevations + c;
            const r = c * azimuths + a;
            box[k] = sweep.box[r]!;
            t[k] = sweep.range[r]! < 0 ? Infinity : sweep.range[r]!;
          }
        }
        return { box, t };
      },
      async timeKernel(rays: RayArray, runs: number): Promise<KernelTiming> {
        check(rays);
        const k = await timeGpu(g.ctx.device, (enc, ts) => sensor.encodeSweep(enc, set, undefined, pose, ts ? { timestampWrites: ts } : {}), runs, 0);
        return { samples: k.samples, wallSamples: k.wallSamples, timing: k.timing };
      },
      destroy: () => {
        sensor.destroy();
        set.destroy();
      },
    };
  },
};
