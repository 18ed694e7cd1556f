/**
 * The package as a user gets it: `npm pack` of the built repository, installed from the tarball
 * into fresh temporary projects (npm's cache reused, so a warm run takes seconds), then:
 *   - installs with no environment variables set, downloads no browser, pulls nothing but
 *     @webgpu/types; the CLI's CPU backend runs, its browser backend says how to add Puppeteer;
 *   - its package.json keeps `sideEffects: false` and `files`, and every `exports` entry (and
 *     every `typesVersions` path) resolves in the installed package, with its types;
 *   - (a) type-checks with TypeScript 5.9 (moduleResolution bundler, node16 and node) and 6
 *     (bundler, node16), strict, skipLibCheck false;
 *   - (b) a Vite app that creates ObbGpu and runs a closest-hit and an all-pairs query next to a
 *     three.js WebGPU canvas, built with `vite build`, opened in headless Chromium with the canvas
 *     flags: the answers equal the float64 reference, and the page logs no error;
 *   - (c) a Node script on `webgpu-obb/node` with the optional `webgpu` installed, and
 *     `require('webgpu-obb')` from CommonJS;
 *   - (d) the install's size without the optional packages and with them, the cold install time
 *     of the tarball, and what a Vite app pays for ObbGpu alone (minified and gzip), printed.
 * Needs `npm run build` first (`npm test` runs it) and the npm registry (or a warm cache).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/node/browser.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };

/** What the package.json's entry fields hold (the `exports` conditions, `typesVersions`). */
interface PackageEntries {
  name: string;
  sideEffects?: unknown;
  files?: string[];
  repository?: unknown;
  homepage?: unknown;
  bugs?: unknown;
  exports: Record<string, string | Record<string, string>>;
  typesVersions: Record<string, Record<string, string[]>>;
}

/** Versions the consumer projects install: TypeScript 5.9 (the last without WebGPU in lib.dom), and the repository's own Vite, three and webgpu. */
const VERSIONS = { typescript5: '5.9.3', vite: pkg.devDependencies['vite']!, three: pkg.devDependencies['three']!, typesThree: pkg.devDependencies['@types/three']!, webgpu: pkg.devDependencies['webgpu']!, puppeteer: pkg.devDependencies['puppeteer']! };

let work = '';
let tarball = '';

/** A clean environment: PATH and HOME (npm's cache) only, unless `extra` adds more. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? tmpdir(), ...extra };
}

function sh(cwd: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = cleanEnv(), timeout = 600_000): { code: number | null; out: string; ms: number } {
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, ms: performance.now() - t0 };
}

function ok(r: { code: number | null; out: string }, what: string): string {
  expect(r.code, `${what}:\n${r.out.slice(-3000)}`).toBe(0);
  return r.out;
}

/** The text files (JavaScript, declarations, Markdown, JSON) under `dir`. */
function textFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(js|mjs|cjs|ts|md|json)$/.test(f))
    .map((f) => join(dir, f));
}

/** Bytes under `dir` (files only). */
function du(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) {
      continue;
    }
    total += st.isDirectory() ? du(path) : st.isFile() ? st.size : 0;
  }
  return total;
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const kb = (bytes: number): string => `${(bytes / 1e3).toFixed(1)} kB`;

/** A fresh ESM project in work/<name> with the tarball and `deps` installed. */
function project(name: string, deps: readonly string[], env: NodeJS.ProcessEnv = cleanEnv()): { dir: string; ms: number } {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }, null, 2));
  const r = sh(dir, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...deps], env);
  ok(r, `npm install in ${name}`);
  return { dir, ms: r.ms };
}

beforeAll(() => {
  if (!statSync(join(root, 'dist', 'index.js'), { throwIfNoEntry: false })) {
    throw new Error('dist/ is missing: run `npm run build` first (`npm test` does it for you)');
  }
  work = mkdtempSync(join(tmpdir(), 'webgpu-obb-consumer-'));
  const out = ok(sh(root, 'npm', ['pack', '--pack-destination', work], cleanEnv()), 'npm pack');
  tarball = join(work, `webgpu-obb-${pkg.version}.tgz`);
  expect(statSync(tarball).size, out).toBeGreaterThan(0);
});

afterAll(() => {
  if (work) {
    rmSync(work, { recursive: true, force: true });
  }
});

describe('the packed tarball in a fresh project', () => {
  it('installs with no environment set, downloads no browser, and pulls only @webgpu/types; the CLI runs on the CPU and says how to add Puppeteer', () => {
    const { dir, ms } = project('bare', []);
    const modules = readdirSync(join(dir, 'node_modules')).filter((n) => !n.startsWith('.')).sort();
    expect(modules).toEqual(['@webgpu', 'webgpu-obb']);
    const files = ok(sh(dir, 'npm', ['ls', '--all', '--parseable']), 'npm ls').split('\n').filter(Boolean);
    expect(files.some((f) => /puppeteer|chrome|webgpu$/.test(f.replace(/.*node_modules\//, '')))).toBe(false);
    const shipped = readdirSync(join(dir, 'node_modules', 'webgpu-obb')).sort();
    expect(shipped).toEqual(['CHANGELOG.md', 'CONTRIBUTING.md', 'LICENSE', 'README.md', 'bin', 'dist', 'docs', 'package.json']);
    // Nothing shipped points outside the package: no ../shared, and every relative link of the
    // README and the docs names a file that is in it.
    const installed = join(dir, 'node_modules', 'webgpu-obb');
    for (const file of textFiles(installed)) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/\.\.\/shared/);
    }
    const docs = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', ...readdirSync(join(installed, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];
    expect(docs).toEqual(expect.arrayContaining(['docs/design.md', 'docs/guarantees.md', 'docs/verification.md', 'docs/performance.md']));
    for (const doc of docs) {
      const text = readFileSync(join(installed, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (!/^[a-z]+:/.test(target!)) {
          expect(statSync(join(installed, doc, '..', target!), { throwIfNoEntry: false }), `${doc} links ${target}`).toBeDefined();
        }
      }
    }
    console.log(`install of the tarball alone (cold npm install, warm cache): ${(ms / 1000).toFixed(1)} s; node_modules ${mb(du(join(dir, 'node_modules')))} (webgpu-obb ${mb(du(join(dir, 'node_modules', 'webgpu-obb')))})`);
    writeFileSync(join(dir, 'scene.json'), JSON.stringify({ boxes: [{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }], rays: [{ origin: [-10, 0, 0], direction: [1, 0, 0] }] }));
    const cpu = sh(dir, 'npx', ['webgpu-obb', 'run', 'scene.json', '--backend', 'cpu', '-q']);
    expect(JSON.parse(ok(cpu, 'webgpu-obb run --backend cpu'))).toMatchObject({ backend: 'cpu', rays: [{ hit: true, box: 0, t: 9 }] });
    const gpu = sh(dir, 'npx', ['webgpu-obb', 'run', 'scene.json', '-q']);
    expect(gpu.code).toBe(3);
    expect(gpu.out.trim().split('\n')).toHaveLength(1);
    expect(gpu.out).toMatch(/needs Puppeteer, which is not installed: `npm install puppeteer`/);
  });

  it('keeps sideEffects: false and files, and every exports entry resolves in the installed package, with its types', () => {
    const { dir } = project('entries', []);
    const installed = join(dir, 'node_modules', 'webgpu-obb');
    const meta = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as PackageEntries;
    expect(meta.sideEffects).toBe(false);
    expect(meta.files).toEqual(expect.arrayContaining(['dist', 'bin', 'README.md', 'LICENSE']));
    // The project has no public URL yet: repository, homepage and bugs come together or not at all.
    const links = [meta.repository, meta.homepage, meta.bugs].filter((v) => v !== undefined);
    expect([0, 3]).toContain(links.length);
    const entries = Object.keys(meta.exports).filter((k) => k !== './package.json');
    expect(entries).toEqual(expect.arrayContaining(['.', './advanced', './reference', './node', './three', './judge', './lidar']));
    // Every condition's file is in the tarball, and Node resolves each entry to its `import` file.
    const specifiers = entries.map((k) => (k === '.' ? meta.name : `${meta.name}/${k.slice(2)}`));
    for (const key of entries) {
      const target = meta.exports[key]!;
      expect(typeof target, key).toBe('object');
      const conditions = target as Record<string, string>;
      expect(Object.keys(conditions), key).toEqual(['types@<6', 'types', 'import', 'default']);
      for (const [condition, file] of Object.entries(conditions)) {
        expect(statSync(join(installed, file), { throwIfNoEntry: false })?.isFile(), `${key} ${condition}: ${file}`).toBe(true);
      }
    }
    const script = `for (const s of ${JSON.stringify(specifiers)}) console.log(s + ' ' + import.meta.resolve(s));`;
    const resolved = ok(sh(dir, process.execPath, ['--input-type=module', '-e', script]), 'import.meta.resolve of every entry').trim().split('\n');
    expect(resolved).toHaveLength(entries.length);
    entries.forEach((key, k) => {
      const url = resolved[k]!.split(' ')[1]!;
      expect(fileURLToPath(url), key).toBe(join(installed, (meta.exports[key] as Record<string, string>)['import']!));
    });
    // typesVersions (TypeScript with moduleResolution node): each subpath, in both trees.
    for (const [range, map] of Object.entries(meta.typesVersions)) {
      for (const key of entries.filter((k) => k !== '.')) {
        const paths = map[key.slice(2)];
        expect(paths, `typesVersions[${range}] lacks ${key.slice(2)}`).toBeDefined();
        for (const file of paths!) {
          expect(statSync(join(installed, file), { throwIfNoEntry: false })?.isFile(), `typesVersions[${range}].${key.slice(2)}: ${file}`).toBe(true);
        }
      }
    }
    console.log(`entries resolved in the tarball: ${specifiers.join(', ')}`);
  });
});

describe('a project using it (TypeScript 5.9 and 6, Vite, three.js, webgpu)', () => {
  let dir = '';
  beforeAll(() => {
    dir = project('app', [`typescript@${VERSIONS.typescript5}`, `vite@${VERSIONS.vite}`, `three@${VERSIONS.three}`, `@types/three@${VERSIONS.typesThree}`, `webgpu@${VERSIONS.webgpu}`]).dir;
    mkdirSync(join(dir, 'src'), { recursive: true });
  });

  it('(a) type-checks: TypeScript 5.9 (bundler, node16, node) and 6 (bundler, node16), strict, skipLibCheck false', () => {
    writeFileSync(join(dir, 'src', 'uses.ts'), `
import { ObbGpu, reference, rayArrayFrom, WebGpuUnavailableError, type GpuClosestHits, type BoxSet } from 'webgpu-obb';
import { closestHit } from 'webgpu-obb/reference';
import { compareClosestHits, UNIT_ROUNDOFF, type Comparison } from 'webgpu-obb/judge';
import { lidarPreset, writePcd, type LidarPointCloud } from 'webgpu-obb/lidar';
import { bindGroup, getKernel, KERNELS, type KernelName } from 'webgpu-obb/advanced';
import { createNodeGpu } from 'webgpu-obb/node';
import { ThreeBoxes, obbGpuFor, type SyncReport } from 'webgpu-obb/three';
import { Mesh, BoxGeometry, type Camera } from 'three';

export async function threeUses(camera: Camera): Promise<number> {
  const gpu = await obbGpuFor(undefined);
  const boxes = await ThreeBoxes.create(gpu, [new Mesh(new BoxGeometry())]);
  const report: SyncReport = await boxes.sync();
  const [hit] = await boxes.pickAt(0, 0, camera);
  return report.moved + (hit?.distance ?? 0) + (hit?.instanceId ?? 0);
}

export async function lidarUses(gpu: ObbGpu, set: BoxSet): Promise<number> {
  const sensor = await gpu.createLidar(lidarPreset('velodyne-vlp16'));
  const sweep = await gpu.lidarSweep(sensor, set, { origin: [0, 0, 1.8] }, { fields: true });
  const cloud: LidarPointCloud | undefined = sweep.fields;
  return cloud ? writePcd(cloud).byteLength : 0;
}

export async function uses(device?: GPUDevice): Promise<number> {
  const gpu = device ? await ObbGpu.create({ device }) : await createNodeGpu();
  const set: BoxSet = gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
  const rays = rayArrayFrom([{ origin: [-10, 0, 0], direction: [1, 0, 0] }]);
  const hits: GpuClosestHits = await gpu.closestHit(set, rays);
  const buffer: GPUBuffer = set.buffer;
  const name: KernelName = 'closestHit';
  const kernel = await getKernel(gpu.ctx.device, name);
  bindGroup(gpu.ctx.device, kernel, { params: buffer, boxes: buffer, boxMasks: buffer, rays: buffer, hits: buffer, geometry: buffer });
  const cpu = closestHit(set.boxes, rays);
  const cmp: Comparison = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin, unitRoundoff: UNIT_ROUNDOFF.f32 }, hits);
  return cmp.mismatch + cpu.count + KERNELS.closestHit.bindings.params[0]
    + reference.allPairs(set.boxes).length + (new WebGpuUnavailableError('no-adapter', '') instanceof Error ? 0 : 1);
}
`);
    const typescript6 = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const cases: [string, string, string][] = [
      ['5.9', 'bundler', 'ESNext'], ['5.9', 'node16', 'Node16'], ['5.9', 'node', 'ESNext'], ['6', 'bundler', 'ESNext'], ['6', 'node16', 'Node16'],
    ];
    for (const [ts, resolution, module] of cases) {
      writeFileSync(join(dir, `tsconfig.${resolution}.json`), JSON.stringify({
        compilerOptions: { target: 'ES2022', module, moduleResolution: resolution, lib: ['ES2022', 'DOM'], strict: true, skipLibCheck: false, noEmit: true },
        include: ['src/uses.ts'],
      }));
      const tsc = ts === '5.9' ? join(dir, 'node_modules', 'typescript', 'bin', 'tsc') : typescript6;
      const r = sh(dir, process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`]);
      ok(r, `TypeScript ${ts}, moduleResolution ${resolution}`);
    }
    console.log(`type-checked: ${cases.map(([ts, r]) => `TypeScript ${ts} ${r}`).join(', ')}`);
  });

  it('(b) a Vite app: closest hit and all pairs next to a three.js WebGPU canvas equal the reference in headless Chromium; what ObbGpu alone costs a bundle', async () => {
    writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><canvas id="view" width="256" height="256"></canvas><script type="module" src="/src/app.ts"></script></body></html>\n');
    writeFileSync(join(dir, 'src', 'app.ts'), `
import { ObbGpu } from 'webgpu-obb';
import { compareClosestHits, comparePairLists, mulberry32, randomBoxes, randomRays } from 'webgpu-obb/judge';
import { ThreeBoxes, obbGpuFor } from 'webgpu-obb/three';
import { BoxGeometry, Mesh, MeshBasicNodeMaterial, PerspectiveCamera, Raycaster, Scene, Vector2, WebGPURenderer } from 'three/webgpu';

declare global { interface Window { __result?: unknown } }

async function run(): Promise<unknown> {
  const renderer = new WebGPURenderer({ canvas: document.getElementById('view') as HTMLCanvasElement });
  await renderer.init();
  const scene = new Scene();
  const camera = new PerspectiveCamera(50, 1, 0.1, 100);
  camera.position.z = 4;
  scene.add(new Mesh(new BoxGeometry(), new MeshBasicNodeMaterial({ color: 0x3388ff })));
  renderer.render(scene, camera);
  const gpu = await ObbGpu.create();
  const rnd = mulberry32(14);
  const boxes = randomBoxes(300, rnd, { extent: 10, halfMin: 0.2, halfMax: 1.5 });
  const rays = randomRays(2000, boxes, rnd, { extent: 14, aimed: 0.8 });
  const set = gpu.createBoxSet(boxes);
  const hits = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, await gpu.closestHit(set, rays));
  const pairs = comparePairLists({ a: set.boxes, origin: set.origin }, (await gpu.allPairs(set)).pairs);
  renderer.render(scene, camera);
  set.destroy();
  gpu.destroy();
  // webgpu-obb/three on the renderer's own device: a pick at the centre equals three's.
  const shared = await obbGpuFor(renderer);
  const sceneBoxes = await ThreeBoxes.create(shared, [scene]);
  const [mine] = await sceneBoxes.pickAt(0, 0, camera);
  const raycaster = new Raycaster();
  raycaster.setFromCamera(new Vector2(0, 0), camera);
  const [theirs] = raycaster.intersectObject(scene, true);
  const three = { sameDevice: shared.ctx.device === (renderer.backend as unknown as { device: GPUDevice }).device, same: mine?.object === theirs?.object, distance: mine?.distance, threeDistance: theirs?.distance };
  sceneBoxes.destroy();
  shared.destroy();
  renderer.render(scene, camera);
  return { adapter: gpu.adapterName, hits: [hits.total, hits.agree, hits.ambiguous, hits.mismatch], pairs: [pairs.total, pairs.agree, pairs.ambiguous, pairs.mismatch], three };
}
run().then((r) => { window.__result = r; }, (e: unknown) => { window.__result = { error: String(e) }; });
`);
    ok(sh(dir, 'npx', ['vite', 'build', '--logLevel', 'warn']), 'vite build');
    const server = await serve(join(dir, 'dist'));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const withFlags = await openApp(url, true);
      console.log('Vite app next to a three.js WebGPU canvas (canvas flags):', JSON.stringify(withFlags.result));
      expect(withFlags.result.error).toBeUndefined();
      const [hTotal, hAgree, hAmbiguous, hMismatch] = withFlags.result.hits as [number, number, number, number];
      const [pTotal, pAgree, pAmbiguous, pMismatch] = withFlags.result.pairs as [number, number, number, number];
      expect(hTotal).toBe(2000);
      expect(hMismatch).toBe(0);
      expect(hAgree + hAmbiguous).toBe(hTotal);
      expect(pTotal).toBe(300 * 299 / 2);
      expect(pMismatch).toBe(0);
      expect(pAgree + pAmbiguous).toBe(pTotal);
      expect(withFlags.errors).toEqual([]);
      const three = withFlags.result.three!;
      expect(three.sameDevice).toBe(true);
      expect(three.same).toBe(true);
      expect(Math.abs(three.distance! - three.threeDistance!)).toBeLessThan(1e-4 * three.threeDistance!);
      // Without them Chromium may refuse the second WebGPU user of the page: then the app gets the
      // library's typed error, which names the flags, never a raw OperationError.
      const without = await openApp(url, false);
      console.log('the same app without the canvas flags:', JSON.stringify(without.result));
      if (without.result.error !== undefined) {
        expect(without.result.error).toMatch(/^WebGpuUnavailableError: .*--use-vulkan=swiftshader/);
      } else {
        expect(without.result.hits?.[3]).toBe(0);
      }
    } finally {
      server.close();
    }
    // What an app pays for ObbGpu alone.
    writeFileSync(join(dir, 'size.html'), '<!doctype html><script type="module" src="/src/size.ts"></script>\n');
    writeFileSync(join(dir, 'src', 'size.ts'), "import { ObbGpu } from 'webgpu-obb';\nvoid ObbGpu.create().then((gpu) => gpu.destroy());\n");
    writeFileSync(join(dir, 'size.config.js'), "export default { build: { outDir: 'dist-size', rolldownOptions: { input: 'size.html' } } };\n");
    ok(sh(dir, 'npx', ['vite', 'build', '--config', 'size.config.js', '--logLevel', 'warn']), 'vite build (ObbGpu only)');
    const assets = join(dir, 'dist-size', 'assets');
    const js = readdirSync(assets).filter((f) => extname(f) === '.js').map((f) => readFileSync(join(assets, f)));
    const raw = js.reduce((s, b) => s + b.length, 0);
    const gz = js.reduce((s, b) => s + gzipSync(b, { level: 9 }).length, 0);
    console.log(`a Vite app that imports ObbGpu alone: ${kb(raw)} minified, ${kb(gz)} gzip (${js.length} chunk${js.length === 1 ? '' : 's'})`);
    expect(raw).toBeGreaterThan(0);
  });

  it('(c) Node: webgpu-obb/node with the optional webgpu answers like the reference; require() from CommonJS works', () => {
    writeFileSync(join(dir, 'node.mjs'), `
import { compareClosestHits, mulberry32, randomBoxes, randomRays } from 'webgpu-obb/judge';
import { createNodeGpu } from 'webgpu-obb/node';
const gpu = await createNodeGpu({ driver: 'swiftshader' });
const rnd = mulberry32(15);
const boxes = randomBoxes(700, rnd, { extent: 10, halfMin: 0.2, halfMax: 1.5 });
const rays = randomRays(3000, boxes, rnd, { extent: 14, aimed: 0.8 });
const set = gpu.createBoxSet(boxes);
const c = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, await gpu.closestHit(set, rays));
console.log(JSON.stringify({ adapter: gpu.adapterName, total: c.total, agree: c.agree, ambiguous: c.ambiguous, mismatch: c.mismatch }));
set.destroy();
gpu.destroy();
`);
    const out = ok(sh(dir, process.execPath, ['node.mjs']), 'node on webgpu-obb/node').trim().split('\n').pop() ?? '';
    console.log(`Node (Dawn): ${out}`);
    const r = JSON.parse(out) as { total: number; agree: number; ambiguous: number; mismatch: number };
    expect(r.total).toBe(3000);
    expect(r.mismatch).toBe(0);
    expect(r.agree + r.ambiguous).toBe(r.total);
    writeFileSync(join(dir, 'require.cjs'), "const m = require('webgpu-obb'); const ref = require('webgpu-obb/reference'); console.log(typeof m.ObbGpu, typeof ref.closestHit);\n");
    expect(ok(sh(dir, process.execPath, ['require.cjs']), 'require from CommonJS')).toMatch(/^function function$/m);
  });

  it('(d) install sizes with the optional packages (webgpu, puppeteer)', () => {
    const withPuppeteer = project('full', [`webgpu@${VERSIONS.webgpu}`, `puppeteer@${VERSIONS.puppeteer}`], cleanEnv({ PUPPETEER_SKIP_DOWNLOAD: '1' })).dir;
    const nm = join(withPuppeteer, 'node_modules');
    const sizes = {
      total: du(nm), webgpuObb: du(join(nm, 'webgpu-obb')), types: du(join(nm, '@webgpu', 'types')), webgpu: du(join(nm, 'webgpu')),
    };
    console.log(`install with the optional packages: node_modules ${mb(sizes.total)} — webgpu-obb ${mb(sizes.webgpuObb)}, @webgpu/types ${mb(sizes.types)}, webgpu (Dawn, all platforms) ${mb(sizes.webgpu)}, puppeteer and its dependencies ${mb(sizes.total - sizes.webgpuObb - sizes.types - sizes.webgpu)} (PUPPETEER_SKIP_DOWNLOAD=1: no browser)`);
    expect(sizes.webgpu).toBeGreaterThan(sizes.webgpuObb);
  });
});

/** Opens the built app in headless Chromium (with or without the canvas flags) and waits for its result. */
async function openApp(url: string, canvas: boolean): Promise<{ result: { error?: string; adapter?: string; hits?: number[]; pairs?: number[]; three?: { sameDevice: boolean; same: boolean; distance?: number; threeDistance?: number } }; errors: string[] }> {
  const launched = await launchBrowser({ canvas });
  try {
    const page = await launched.browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') {
        errors.push(m.text());
      }
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => (window as { __result?: unknown }).__result !== undefined, { timeout: 240_000 });
    const result = await page.evaluate(() => (window as { __result?: unknown }).__result) as { error?: string; hits?: number[]; pairs?: number[]; three?: { sameDevice: boolean; same: boolean; distance?: number; threeDistance?: number } };
    return { result, errors };
  } finally {
    await launched.close();
  }
}

/** A static file server for a built app on 127.0.0.1 (a secure context, as WebGPU requires). */
function serve(dir: string): Promise<Server> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = join(dir, path === '/' ? 'index.html' : path);
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
