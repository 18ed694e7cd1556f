/**
 * The Node runtime itself: finding a Vulkan loader and driver (with fake machines), the typed
 * errors that say what is missing, the main entry never loading Dawn, the stability conditions
 * of issue #7 (see the "Lifetime" note in src/node/runtime.ts), and `webgpu-obb --runtime node`.
 *
 * The child-process tests run the built package (dist/, from `npm run build`, which `npm test`
 * runs first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ObbGpu } from '../../src/index.ts';
import { compareClosestHits, comparePairs, mulberry32, publishedSatPairs, randomBoxes, randomRays } from '../../src/judge/index.ts';
import { findVulkan, NodeGpuUnavailableError, nodeGpu, type VulkanProbe } from '../../src/node/runtime.ts';
import { openNodeGpu, scoped, TEST_DRIVER } from './shared.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A fake Linux machine: these files exist, these names load. */
function machine(files: string[], loadable: string[] = [], env: Record<string, string> = {}): VulkanProbe {
  const set = new Set(files);
  return {
    platform: 'linux',
    env,
    isFile: (p) => set.has(p),
    listDir: (d) => [...new Set(files.filter((f) => f.startsWith(`${d}/`)).map((f) => f.slice(d.length + 1).split('/')[0] ?? ''))],
    canLoad: (p) => loadable.includes(p),
    home: '/home/u',
  };
}

const CHROMIUM = ['/usr/lib/chromium/vk_swiftshader_icd.json', '/usr/lib/chromium/libvulkan.so.1'];

function missing(fn: () => unknown): NodeGpuUnavailableError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(NodeGpuUnavailableError);
    return error as NodeGpuUnavailableError;
  }
  throw new Error('expected a NodeGpuUnavailableError');
}

describe('finding Vulkan (fake machines)', () => {
  it('CPU-only Debian with Chromium: SwiftShader and the loader Chromium bundles', () => {
    const { setup, setEnv, preload } = findVulkan('auto', machine(CHROMIUM, ['/usr/lib/chromium/libvulkan.so.1']));
    expect(setup.driverSource).toBe('swiftshader');
    expect(setup.drivers).toEqual(['/usr/lib/chromium/vk_swiftshader_icd.json']);
    expect(setEnv).toEqual({ VK_DRIVER_FILES: '/usr/lib/chromium/vk_swiftshader_icd.json', VK_ICD_FILENAMES: '/usr/lib/chromium/vk_swiftshader_icd.json' });
    expect(preload).toBe('/usr/lib/chromium/libvulkan.so.1');
  });

  it('a system driver and loader win in auto mode; swiftshader mode still picks SwiftShader', () => {
    const m = machine([...CHROMIUM, '/usr/share/vulkan/icd.d/nvidia_icd.json'], ['libvulkan.so.1']);
    const auto = findVulkan('auto', m);
    expect(auto.setup.driverSource).toBe('system');
    expect(auto.setup.drivers).toEqual(['/usr/share/vulkan/icd.d/nvidia_icd.json']);
    expect(auto.setEnv).toEqual({});
    expect(auto.preload).toBeUndefined();
    expect(auto.setup.loader).toBe('libvulkan.so.1');
    const ss = findVulkan('swiftshader', m);
    expect(ss.setup.driverSource).toBe('swiftshader');
    expect(ss.preload).toBeUndefined();
  });

  it('VK_DRIVER_FILES set by the caller is kept as it is', () => {
    const m = machine([...CHROMIUM, '/opt/icd/x.json'], ['libvulkan.so.1'], { VK_DRIVER_FILES: '/opt/icd/x.json' });
    const r = findVulkan('swiftshader', m);
    expect(r.setup.driverSource).toBe('env');
    expect(r.setup.drivers).toEqual(['/opt/icd/x.json']);
    expect(r.setEnv).toEqual({});
  });

  it('a path names the manifest to use', () => {
    const r = findVulkan('/opt/icd/x.json', machine(['/opt/icd/x.json'], ['libvulkan.so.1']));
    expect(r.setup.driverSource).toBe('option');
    expect(r.setEnv['VK_DRIVER_FILES']).toBe('/opt/icd/x.json');
  });

  it('Chrome in Puppeteer\'s cache is found too', () => {
    const dir = '/home/u/.cache/puppeteer/chrome/linux-131.0.6778.85/chrome-linux64';
    const r = findVulkan('auto', machine([`${dir}/vk_swiftshader_icd.json`, `${dir}/libvulkan.so.1`, '/home/u/.cache/puppeteer/chrome/linux-131.0.6778.85/x'], [`${dir}/libvulkan.so.1`]));
    expect(r.setup.drivers).toEqual([`${dir}/vk_swiftshader_icd.json`]);
    expect(r.preload).toBe(`${dir}/libvulkan.so.1`);
  });

  it('no driver at all: a typed error that says what to install', () => {
    const e = missing(() => findVulkan('auto', machine([], ['libvulkan.so.1'])));
    expect(e.missing).toBe('driver');
    expect(e.message).toMatch(/No Vulkan driver found/);
    expect(e.message).toMatch(/\/usr\/share\/vulkan\/icd\.d/);
    expect(e.message).toMatch(/\/usr\/lib\/chromium/);
    expect(e.message).toMatch(/apt-get install -y chromium/);
    expect(missing(() => findVulkan('system', machine(CHROMIUM, ['libvulkan.so.1']))).message).toMatch(/No system Vulkan driver/);
  });

  it('VK_DRIVER_FILES naming a missing file is an error, not a silent fallback', () => {
    const e = missing(() => findVulkan('auto', machine(CHROMIUM, ['libvulkan.so.1'], { VK_DRIVER_FILES: '/nope.json' })));
    expect(e.missing).toBe('driver');
    expect(e.message).toMatch(/VK_DRIVER_FILES names no existing ICD manifest \(\/nope\.json\)/);
  });

  it('a driver but no loader: says to install libvulkan1 or Chromium', () => {
    const e = missing(() => findVulkan('auto', machine(['/usr/share/vulkan/icd.d/lvp_icd.x86_64.json'])));
    expect(e.missing).toBe('loader');
    expect(e.message).toMatch(/libvulkan\.so\.1/);
    expect(e.message).toMatch(/apt-get install -y libvulkan1/);
  });

  it('not Linux: Dawn\'s native backend, nothing to set', () => {
    const r = findVulkan('auto', { ...machine([]), platform: 'darwin' });
    expect(r.setup.driverSource).toBe('native');
    expect(r.setEnv).toEqual({});
  });
});

describe('Dawn in this process', () => {
  let gpu: ObbGpu;
  beforeAll(async () => {
    gpu = await openNodeGpu();
  });
  afterAll(() => {
    gpu?.destroy();
  });

  it('has an adapter (a machine without one fails here, never skips)', async () => {
    const { gpu: dawn, vulkan } = await nodeGpu({ driver: TEST_DRIVER });
    console.log(`vulkan: ${vulkan.summary}`);
    const adapter = await dawn.requestAdapter();
    expect(adapter).not.toBeNull();
    expect(gpu.adapterName.length).toBeGreaterThan(0);
    if (TEST_DRIVER === 'swiftshader') {
      expect(gpu.ctx.adapter.isFallbackAdapter).toBe(true);
      expect(gpu.adapterName).toMatch(/swiftshader/i);
    }
  });

  it('a different driver choice after Dawn started is refused', async () => {
    await expect(nodeGpu({ driver: TEST_DRIVER === 'swiftshader' ? 'system' : 'swiftshader' })).rejects.toThrow(/chosen once per process/);
  });

  // The conditions of the crash in issue #7: dispatch + mapAsync cycles of a 1M-test kernel, with
  // garbage collections forced between them (the Dawn GPU object is held by the runtime), several
  // queries in flight at once, each with its own staging buffer.
  it('30 cycles of 16,384 rays × 64 boxes (1M tests, 4 in flight) + 20,000 SAT pairs, GC forced each cycle', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    await scoped(gpu, async () => {
      const rnd = mulberry32(77);
      const boxes = randomBoxes(64, rnd, { extent: 20, halfMin: 0.1, halfMax: 2 });
      const rays = randomRays(16_384, boxes, rnd, { extent: 25 });
      const set = gpu.createBoxSet(boxes);
      const pairBoxes = publishedSatPairs(20_000, mulberry32(11423));
      const pairSet = gpu.createBoxSet(pairBoxes);
      const pairs = Uint32Array.from({ length: 40_000 }, (_, i) => i);
      try {
        for (let cycle = 0; cycle < 30; cycle++) {
          gc();
          const [hits, , , last] = await Promise.all([
            gpu.closestHit(set, rays), gpu.anyHit(set, rays), gpu.closestHit(set, rays), gpu.obbPairs(pairSet, pairs),
          ]);
          if (cycle === 0 || cycle === 29) {
            expect(compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, hits).mismatch).toBe(0);
            expect(comparePairs({ a: pairSet.boxes, pairs, origin: pairSet.origin }, last).mismatch).toBe(0);
          }
        }
      } finally {
        set.destroy();
        pairSet.destroy();
      }
    });
    expect(gpu.ctx.liveBuffers).toBeLessThan(64);
  });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function node(args: string[], env: Record<string, string | undefined> = {}, cwd = root): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('the built package in a child process', () => {
  let dir: string;
  beforeAll(() => {
    expect(existsSync(join(root, 'dist', 'node.js')), 'dist/node.js is missing: run `npm run build`').toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'webgpu-obb-node-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  // Exit while dispatches and readbacks are still in flight, with and without destroy(), with
  // GCs forced: the process must end normally (this is what crashed when the GPU object was lost).
  // The script also shows that importing the main entry does not load Dawn (dawn.node is mapped
  // only once the node entry starts it).
  it.each(['exit', 'drain', 'destroy'])('ends cleanly with work in flight (%s); the main entry never loads Dawn', async (how) => {
    const script = `
      import { readFileSync } from 'node:fs';
      // Whether dawn.node is mapped into this process (Linux only; elsewhere the expected answer).
      const dawn = (elsewhere) => process.platform === 'linux' ? readFileSync('/proc/self/maps', 'utf8').includes('dawn.node') : elsewhere;
      const main = await import(${JSON.stringify(join(root, 'dist', 'index.js'))});
      const { mulberry32, randomBoxes, randomRays } = await import(${JSON.stringify(join(root, 'dist', 'judge.js'))});
      const before = dawn(false) || 'createNodeGpu' in main;
      const { createNodeGpu } = await import(${JSON.stringify(join(root, 'dist', 'node.js'))});
      const gpu = await createNodeGpu({ driver: ${JSON.stringify(TEST_DRIVER)} });
      console.log(JSON.stringify({ before, after: dawn(true) }));
      const rnd = mulberry32(3);
      const boxes = randomBoxes(64, rnd, { extent: 20, halfMin: 0.1, halfMax: 2 });
      const rays = randomRays(16384, boxes, rnd, { extent: 25 });
      const set = gpu.createBoxSet(boxes);
      for (let i = 0; i < 3; i++) { globalThis.gc(); await gpu.closestHit(set, rays); }
      const pending = [gpu.closestHit(set, rays), gpu.anyHit(set, rays)];
      globalThis.gc();
      if (${JSON.stringify(how)} === 'exit') { setTimeout(() => process.exit(0), 5); }
      if (${JSON.stringify(how)} === 'destroy') { await Promise.allSettled(pending); gpu.destroy(); }`;
    const r = await node(['--expose-gc', '--input-type=module', '-e', script]);
    expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code: 0, signal: null });
    expect(JSON.parse(r.stdout.split('\n')[0] ?? '')).toEqual({ before: false, after: true });
  });

  function sceneFile(): string {
    const rnd = mulberry32(21);
    const boxes = randomBoxes(200, rnd, { extent: 6, halfMin: 0.2, halfMax: 1 });
    const rays = randomRays(400, boxes, rnd, { extent: 12 });
    const v = (d: Float64Array, o: number): number[] => [d[o]!, d[o + 1]!, d[o + 2]!];
    const scene = {
      boxes: Array.from({ length: boxes.count }, (_, i) => ({
        center: v(boxes.data, i * 15), halfExtents: v(boxes.data, i * 15 + 3),
        axes: [v(boxes.data, i * 15 + 6), v(boxes.data, i * 15 + 9), v(boxes.data, i * 15 + 12)],
      })),
      rays: Array.from({ length: rays.count }, (_, r) => ({ origin: v(rays.data, r * 7), direction: v(rays.data, r * 7 + 3) })),
      pairs: Array.from({ length: 150 }, (_, k) => [k, k + 1]),
      allPairs: true,
    };
    const file = join(dir, 'scene.json');
    writeFileSync(file, JSON.stringify(scene));
    return file;
  }

  it('webgpu-obb run --runtime node: the result file, with the same decisions as the CPU backend', async () => {
    const scene = sceneFile();
    const gpu = await node([join(root, 'bin', 'webgpu-obb.js'), 'run', scene, '--runtime', 'node']);
    expect(gpu.code, gpu.stderr).toBe(0);
    expect(gpu.stderr).toMatch(/vulkan: /);
    const cpu = await node([join(root, 'bin', 'webgpu-obb.js'), 'run', scene, '--backend', 'cpu', '--quiet']);
    expect(cpu.code, cpu.stderr).toBe(0);
    type Result = { backend: string; adapter: string; rays: { hit: boolean; box?: number }[]; pairs: { overlap: boolean }[]; allPairs: number[][] };
    const g = JSON.parse(gpu.stdout) as Result;
    const c = JSON.parse(cpu.stdout) as Result;
    expect(g.backend).toBe('gpu');
    if (TEST_DRIVER === 'swiftshader') {
      expect(g.adapter).toMatch(/swiftshader/i);
    }
    expect(g.rays).toHaveLength(400);
    expect(g.pairs).toHaveLength(150);
    expect(g.allPairs.length).toBeGreaterThan(20);
    // `verify` below proves every case; these random scenes have no ambiguous case, so the
    // decisions are equal outright.
    expect(g.rays.map((r) => r.box ?? -1)).toEqual(c.rays.map((r) => r.box ?? -1));
    expect(g.pairs.map((p) => p.overlap)).toEqual(c.pairs.map((p) => p.overlap));
    expect(g.allPairs).toEqual(c.allPairs);
  });

  it('webgpu-obb verify --runtime node: zero mismatches', async () => {
    const r = await node([join(root, 'bin', 'webgpu-obb.js'), 'verify', sceneFile(), '--runtime', 'node', '--quiet']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/0 mismatch/);
  });

  it('exit 3 with the reason when no driver or no package is there; 2 for --browser with --runtime node', async () => {
    const scene = sceneFile();
    const bin = join(root, 'bin', 'webgpu-obb.js');
    const noDriver = await node([bin, 'run', scene, '--runtime', 'node'], { VK_DRIVER_FILES: '/nonexistent/icd.json' });
    expect(noDriver.code).toBe(3);
    expect(noDriver.stderr).toMatch(/VK_DRIVER_FILES names no existing ICD manifest \(\/nonexistent\/icd\.json\)/);
    const noPackage = await node([bin, 'run', scene, '--runtime', 'node'], { WEBGPU_OBB_WEBGPU: '/nonexistent/webgpu' });
    expect(noPackage.code).toBe(3);
    expect(noPackage.stderr).toMatch(/optional dependency `webgpu`/);
    const usage = await node([bin, 'run', scene, '--runtime', 'node', '--browser', '/usr/bin/chromium']);
    expect(usage.code).toBe(2);
    const badRuntime = await node([bin, 'run', scene, '--runtime', 'deno']);
    expect(badRuntime.code).toBe(2);
    expect(badRuntime.stderr).toMatch(/--runtime must be browser or node/);
  });
});
