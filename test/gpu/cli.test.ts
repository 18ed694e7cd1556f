/**
 * The `webgpu-obb` command on the GPU, end to end: the built command (`node bin/webgpu-obb.js`,
 * which needs `npm run build`) launches headless Chromium itself, so this file needs no harness.
 * A machine without a browser or adapter makes the command exit 3, and the tests fail (never skip).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAT_AXIS_NAMES } from '../../src/constants.ts';
import { BOX_F64, RAY_F64 } from '../../src/core/types.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/scenes/generate.ts';
import type { RayResult, SceneResult } from '../../src/files/results.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'webgpu-obb.js');

/** These tests run the built command: say so when dist/ is older than the sources. */
function warnIfStale(): void {
  const built = statSync(join(root, 'dist', 'cli.js')).mtimeMs;
  const newest = ['src', 'shaders']
    .flatMap((d) => readdirSync(join(root, d), { recursive: true, encoding: 'utf8' }).map((f) => join(root, d, f)))
    .reduce((m, f) => Math.max(m, statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0), 0);
  if (newest > built) {
    console.warn('dist/ is older than src/ or shaders/: these tests run the built command; run `npm run build`');
  }
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A scene file from the seeded generators: boxes dense enough to overlap, rays, pairs, all pairs. */
function makeScene(seed: number): Record<string, unknown> {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(300, rnd, { extent: 6, halfMin: 0.2, halfMax: 1 });
  const rays = randomRays(600, boxes, rnd, { extent: 12 });
  const vec = (d: Float64Array, o: number): number[] => [d[o] ?? NaN, d[o + 1] ?? NaN, d[o + 2] ?? NaN];
  const boxJson = Array.from({ length: boxes.count }, (_, i) => {
    const o = i * BOX_F64.STRIDE;
    const d = boxes.data;
    return { center: vec(d, o), halfExtents: vec(d, o + BOX_F64.HALF), axes: [vec(d, o + BOX_F64.U), vec(d, o + BOX_F64.V), vec(d, o + BOX_F64.W)] };
  });
  const rayJson: Record<string, unknown>[] = Array.from({ length: rays.count }, (_, r) => {
    const o = r * RAY_F64.STRIDE;
    const d = rays.data;
    // A third of the rays get a finite max distance; the rest are unbounded (absent or null).
    const kind = r % 3;
    return {
      origin: vec(d, o),
      direction: vec(d, o + RAY_F64.DIR),
      ...(kind === 0 ? { maxDistance: 8 } : kind === 1 ? { maxDistance: null } : {}),
    };
  });
  // Fixed cases: origin inside box 0 (t = 0, no normal) and a ray pointing away from everything.
  rayJson.push({ origin: boxJson[0]?.center, direction: [0, 0, 1] });
  rayJson.push({ origin: [0, 0, 100], direction: [0, 0, 1] });
  const pairs = Array.from({ length: 200 }, () => [Math.floor(rnd() * boxes.count), Math.floor(rnd() * boxes.count)]);
  return { boxes: boxJson, rays: rayJson, pairs, allPairs: true };
}

function isVec3(v: unknown): boolean {
  return Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

/** Checks one result file against the format of docs/design.md, "Scene and result files"; returns a list of problems. */
function formatProblems(result: Record<string, unknown>, rays: number, pairs: number): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok && problems.length < 20) {
      problems.push(what);
    }
  };
  check(JSON.stringify(Object.keys(result)) === JSON.stringify(['backend', 'adapter', 'scene', 'rays', 'pairs', 'allPairs']), `keys ${Object.keys(result).join(',')}`);
  check(result['backend'] === 'gpu', 'backend');
  check(typeof result['adapter'] === 'string' && result['adapter'] !== '', 'adapter');
  const rayList = result['rays'] as RayResult[];
  check(Array.isArray(rayList) && rayList.length === rays, 'rays length');
  rayList.forEach((h, r) => {
    if (!h.hit) {
      check(JSON.stringify(h) === '{"hit":false}', `rays[${r}] miss ${JSON.stringify(h)}`);
      return;
    }
    const keys = Object.keys(h).join(',');
    check(keys === 'hit,box,t,point,normal,inside' || (keys === 'hit,box,t,point,inside' && h.inside), `rays[${r}] keys ${keys}`);
    check(Number.isInteger(h.box) && h.box >= 0 && h.box < 300, `rays[${r}].box`);
    check(typeof h.t === 'number' && h.t >= 0, `rays[${r}].t`);
    check(isVec3(h.point), `rays[${r}].point`);
    check(typeof h.inside === 'boolean', `rays[${r}].inside`);
    if (h.normal) {
      check(isVec3(h.normal) && Math.abs(Math.hypot(...h.normal) - 1) < 1e-5, `rays[${r}].normal ${JSON.stringify(h.normal)}`);
    }
  });
  const pairList = result['pairs'] as Record<string, unknown>[];
  check(Array.isArray(pairList) && pairList.length === pairs, 'pairs length');
  pairList.forEach((p, k) => {
    check(Object.keys(p).join(',') === 'overlap,gap,axis', `pairs[${k}] keys`);
    check(typeof p['overlap'] === 'boolean' && typeof p['gap'] === 'number', `pairs[${k}] types`);
    check((SAT_AXIS_NAMES as readonly unknown[]).includes(p['axis']), `pairs[${k}].axis ${String(p['axis'])}`);
  });
  const all = result['allPairs'] as [number, number][];
  check(Array.isArray(all), 'allPairs');
  all.forEach((p, k) => {
    const prev = all[k - 1];
    check(Array.isArray(p) && p.length === 2 && p[0] < p[1], `allPairs[${k}] ${JSON.stringify(p)}`);
    check(!prev || prev[0] < p[0] || (prev[0] === p[0] && prev[1] < p[1]), `allPairs[${k}] order`);
  });
  return problems;
}

describe('webgpu-obb on the GPU (seed 7)', () => {
  let dir = '';
  let sceneFile = '';
  let scene: Record<string, unknown> = {};

  beforeAll(() => {
    if (!existsSync(join(root, 'dist', 'cli.js')) || !existsSync(join(root, 'dist', 'page.js'))) {
      throw new Error('dist/ is missing: run `npm run build` first (`npm test` does it for you)');
    }
    warnIfStale();
    dir = mkdtempSync(join(tmpdir(), 'webgpu-obb-cli-gpu-'));
    scene = makeScene(7);
    sceneFile = join(dir, 'scene.json');
    writeFileSync(sceneFile, JSON.stringify(scene));
  });

  afterAll(() => {
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('run --backend gpu writes a result in the design format that agrees with --backend cpu', async () => {
    const out = join(dir, 'gpu.json');
    const gpu = await cli(dir, 'run', sceneFile, '--backend', 'gpu', '--out', out);
    // Exit 3 means no browser or no adapter: a failure here, never a skip.
    expect(gpu.code, `webgpu-obb run --backend gpu failed:\n${gpu.stderr}`).toBe(0);
    expect(gpu.stdout).toBe('');
    expect(gpu.stderr).toMatch(/^adapter: /m);
    expect(gpu.stderr).toMatch(/^closest hit: 602 rays × 300 boxes…$/m);
    expect(gpu.stderr).toMatch(/^done in /m);
    console.log(gpu.stderr.trim());

    const result = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    const rayCount = (scene['rays'] as unknown[]).length;
    expect(formatProblems(result, rayCount, 200)).toEqual([]);

    const cpuRun = await cli(dir, 'run', sceneFile, '--backend', 'cpu', '-q');
    expect(cpuRun.code, cpuRun.stderr).toBe(0);
    const cpu = JSON.parse(cpuRun.stdout) as SceneResult;
    const g = result as unknown as SceneResult;
    const boxOf = (h: RayResult): number => (h.hit ? h.box : -1);
    expect(g.rays?.map(boxOf)).toEqual(cpu.rays?.map(boxOf));
    expect(g.pairs?.map((p) => p.overlap)).toEqual(cpu.pairs?.map((p) => p.overlap));
    expect(g.allPairs).toEqual(cpu.allPairs);
    // The scene is dense enough that every query has something to say.
    expect(g.rays?.filter((h) => h.hit).length).toBeGreaterThan(100);
    expect(g.allPairs?.length).toBeGreaterThan(10);
    expect(g.rays?.at(-2)).toMatchObject({ hit: true, t: 0, inside: true });
    expect(g.rays?.at(-2)).not.toHaveProperty('normal');
    expect(g.rays?.at(-1)).toEqual({ hit: false });
  });

  it('verify prints the comparator report and exits 0 with no mismatch', async () => {
    const r = await cli(dir, 'verify', sceneFile, '--quiet');
    expect(r.code, `webgpu-obb verify failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toBe('');
    console.log(r.stdout.trim());
    expect(r.stdout).toMatch(/^adapter: /m);
    expect(r.stdout).toMatch(/^closestHit: 602 cases — .* 0 mismatch/m);
    expect(r.stdout).toMatch(/^obbPairs: 200 cases — .* 0 mismatch/m);
    expect(r.stdout).toMatch(/^allPairs: 44850 cases — .* 0 mismatch/m);
    expect(r.stdout).toMatch(/^OK: 0 mismatch, \d+ ambiguous in 45652 cases/m);
  });

  it('--accel bvh walks the GPU-built BVH: verify passes and the hits equal --accel brute', async () => {
    const v = await cli(dir, 'verify', sceneFile, '--accel', 'bvh');
    expect(v.code, `${v.stdout}\n${v.stderr}`).toBe(0);
    expect(v.stderr).toMatch(/^closest hit: 602 rays × 300 boxes \(BVH\)…$/m);
    expect(v.stderr).toMatch(/^all pairs: 300 boxes \(BVH\)…$/m);
    expect(v.stdout).toMatch(/^OK: 0 mismatch/m);
    const bvh = await cli(dir, 'run', sceneFile, '--accel', 'bvh', '-q');
    const brute = await cli(dir, 'run', sceneFile, '--accel', 'brute', '-q');
    expect(bvh.code, bvh.stderr).toBe(0);
    expect(brute.code, brute.stderr).toBe(0);
    const a = JSON.parse(bvh.stdout) as SceneResult;
    const b = JSON.parse(brute.stdout) as SceneResult;
    const boxOf = (h: RayResult): number => (h.hit ? h.box : -1);
    expect(a.rays?.map(boxOf)).toEqual(b.rays?.map(boxOf));
    expect(a.allPairs).toEqual(b.allPairs);
  });
});
