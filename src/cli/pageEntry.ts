/**
 * Browser entry of the CLI's GPU backend (built by Vite as `dist/page.js`). src/cli/gpuRunner.ts
 * serves it on 127.0.0.1, opens it in headless Chromium and calls the two functions it publishes:
 *
 * - `webgpuObbInit()`: acquires the device and compiles every kernel; answers the adapter name,
 *   or `{ ok: false, kind: 'no-adapter' }` when WebGPU has no adapter.
 * - `webgpuObbRunScene(sceneJson)`: parses the scene with the same code as Node and runs it;
 *   answers the raw results as plain arrays ({@link GpuSceneRaw}). Progress goes to
 *   `window.webgpuObbProgress` when Node exposed it.
 *
 * Errors never escape as exceptions (Puppeteer would turn them into long protocol messages);
 * they come back as `{ ok: false, kind, name, message }`.
 */
import { ObbGpu } from '../ObbGpu.ts';
import { parseScene } from '../files/scene.ts';
import { type GpuSceneRaw } from '../files/results.ts';
import { runSceneGpuRaw } from './run.ts';
import type { Accel } from '../ObbGpu.ts';

/** What a page call answers. */
export type PageOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly kind: 'no-webgpu' | 'no-adapter' | 'error'; readonly name: string; readonly message: string };

declare global {
  interface Window {
    webgpuObbInit?: () => Promise<PageOutcome<{ adapter: string }>>;
    webgpuObbRunScene?: (sceneJson: unknown, accel?: Accel) => Promise<PageOutcome<GpuSceneRaw>>;
    webgpuObbProgress?: (message: string) => Promise<void>;
  }
}

let gpu: ObbGpu | undefined;

function failure(error: unknown): PageOutcome<never> {
  const e = error instanceof Error ? error : new Error(String(error));
  const noAdapter = /no adapter/i.test(e.message);
  return { ok: false, kind: noAdapter ? 'no-adapter' : 'error', name: e.name, message: e.message };
}

window.webgpuObbInit = async () => {
  if (!('gpu' in navigator) || !navigator.gpu) {
    return { ok: false, kind: 'no-webgpu', name: 'Error', message: 'navigator.gpu is missing: this browser has WebGPU disabled' };
  }
  try {
    gpu ??= await ObbGpu.create({ label: 'webgpu-obb-cli' });
    return { ok: true, value: { adapter: gpu.adapterName } };
  } catch (error) {
    return failure(error);
  }
};

window.webgpuObbRunScene = async (sceneJson: unknown, accel: Accel = 'auto') => {
  try {
    const init = await window.webgpuObbInit?.();
    if (!init?.ok) {
      return init ?? failure(new Error('webgpuObbInit is missing'));
    }
    if (!gpu) {
      throw new Error('webgpu-obb invariant failed: no GPU after a successful init');
    }
    const progress = (message: string): void => {
      // Fire and forget: a progress line must not hold the scene up for a round trip to Node.
      // Its only rejection is Node having gone (the page closing mid-run), which the run's own
      // await reports; dropped here so it does not surface as an unhandled rejection.
      window.webgpuObbProgress?.(message).catch(() => undefined);
    };
    return { ok: true, value: await runSceneGpuRaw(parseScene(sceneJson), gpu, progress, accel) };
  } catch (error) {
    return failure(error);
  }
};
