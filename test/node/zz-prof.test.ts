import { it } from 'vitest';
import { openNodeGpu } from './shared.ts';
import { movingBoxes } from '../../bench/page/scenes.ts';

it('profile all-pairs grid', async () => {
  const gpu = await openNodeGpu();
  const n = Number(process.env.N ?? 100000);
  const scene = movingBoxes(n);
  const set = gpu.createBoxSet(scene.frame(0));
  for (let f = 1; f <= 6; f++) {
    const boxes = scene.frame(f);
    const t0 = performance.now();
    await set.set(boxes);
    await gpu.ctx.device.queue.onSubmittedWorkDone();
    const t1 = performance.now();
    const prof: [string, number][] = [];
    (globalThis as any).__prof = prof;
    const r = await gpu.allPairs(set, { accel: (process.env.ACCEL ?? 'grid') as 'grid' });
    const t2 = performance.now();
    (globalThis as any).__prof = undefined;
    let last = t1;
    console.log(`f${f} set ${(t1 - t0).toFixed(1)} allPairs ${(t2 - t1).toFixed(1)} pairs ${r.count} | ` + prof.map(([l, t]) => { const s = `${l} ${(t - last).toFixed(1)}`; last = t; return s; }).join(', '));
  }
  gpu.destroy();
}, 600000);
