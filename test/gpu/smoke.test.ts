import { afterAll, beforeAll, expect, it } from 'vitest';
import { openGpuPage, type GpuPage } from './harness.ts';

let gpu: GpuPage;
beforeAll(async () => { gpu = await openGpuPage(); });
afterAll(async () => { await gpu?.close(); });

it('one ray hits one box', async () => {
  const r = await gpu.call<{ box: number; t: number; face: number; adapter: string }>('smoke', 'oneRay');
  console.log(r);
  expect(r.box).toBe(0);
  expect(r.t).toBe(9);
  expect(r.face).toBe(1);
});
