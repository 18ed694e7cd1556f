/**
 * `npm run bench`: runs every workload in headless Chromium (the page in bench/page), with every
 * registered implementation (bench/page/impls: the GPU paths, the float64 reference, Rapier and its
 * SIMD build, three.js, three-mesh-bvh's WebGPU raycasting) on the same seeded scenes; prints a
 * table with ratios; writes JSON.
 *
 *   npm run bench -- [--full] [--json FILE] [--filter NAME[,NAME…]] [--impl NAME[,NAME…]]
 *                    [--machine LABEL] [--adapter swiftshader|default]
 *
 * Output: FILE (default bench/out/latest.json), and always bench/out/latest.json, latest.js (the
 * data bench/report.html draws) and latest.md (the table as Markdown, for docs/performance.md).
 *
 * Speed is reported here, never asserted in tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openGpuPage, type GpuCall } from '../test/gpu/harness.ts';
import type { BenchPageApi } from './page/main.ts';
import type { BenchConfig, SuiteResult } from './page/config.ts';
import type { Row } from './page/measure.ts';
import type { PageEnvironment } from './page/workloads/env.ts';
import { headlineTable, markdownTable, textTable } from './table.ts';

type Call = GpuCall<BenchPageApi>;

/** Sizes per mode. Quick mode finishes in a few minutes on a 2-core machine with SwiftShader. */
const SIZES = {
  quick: {
    picking: [10_000, 100_000],
    pickingRays: [1, 1024],
    refitDecay: { boxes: 10_000, frames: 6 },
    lidar: { boxes: 10_000, elevations: 128, azimuths: 64 },
    lidarSim: { boxes: 10_000, elevations: 64, azimuths: 512, moving: 1000 },
    bruteRays: { rays: 16_384, boxes: 4096 },
    boxPairs: 200_000,
    allPairs: [2000, 10_000],
    threeInstances: 100_000,
    transferMB: [1, 16, 64],
    gpuSourced: [100_000],
  },
  full: {
    picking: [10_000, 100_000, 1_000_000],
    pickingRays: [1, 1024],
    refitDecay: { boxes: 100_000, frames: 12 },
    lidar: { boxes: 10_000, elevations: 128, azimuths: 2048 },
    lidarSim: { boxes: 10_000, elevations: 128, azimuths: 2048, moving: 1000 },
    bruteRays: { rays: 65_536, boxes: 16_384 },
    boxPairs: 1_000_000,
    allPairs: [2000, 10_000, 100_000],
    threeInstances: 100_000,
    transferMB: [1, 16, 64, 256],
    gpuSourced: [100_000, 1_000_000],
  },
} as const;

/** The real sensor: 128 × 2,048 rays. Generated on the GPU, it runs at full size even in quick mode. */
const LIDAR_FULL = { elevations: 128, azimuths: 2048 } as const;

interface WorkloadGroup {
  /** What `--filter` matches, with the workload names the group's rows carry. */
  name: string;
  workloads: readonly string[];
  run(call: Call, cfg: BenchConfig, sizes: (typeof SIZES)['quick' | 'full'], log: (s: string) => void): Promise<SuiteResult>;
}

async function each<T>(items: readonly T[], f: (x: T) => Promise<SuiteResult>, log: (s: string) => void, label: (x: T) => string): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  for (const x of items) {
    const t0 = Date.now();
    const r = await f(x);
    log(`  ${label(x)}: ${r.rows.length} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    out.rows.push(...r.rows);
    out.notes.push(...r.notes);
  }
  return out;
}

/** The workloads, in run order. Names are stable across versions; sizes live in the rows. */
const GROUPS: readonly WorkloadGroup[] = [
  {
    name: 'picking',
    workloads: ['build', 'picking-1', 'picking-1024'],
    run: (call, cfg, s, log) => each(s.picking, (n) => call('rays', 'picking', n, s.pickingRays, cfg), log, (n) => `n=${n}`),
  },
  {
    name: 'bvh-build',
    workloads: [
      'bvh-build-bounds', 'bvh-build-codes', 'bvh-build-sort', 'bvh-build-hierarchy', 'bvh-build-total',
      'bvh-build-host-validate', 'bvh-build-host-range', 'bvh-build-host-pack', 'bvh-build-host-upload', 'bvh-build-host-buffers', 'bvh-refit',
    ],
    run: (call, cfg, s, log) => each(s.picking, (n) => call('bvh', 'buildPhases', n, cfg), log, (n) => `n=${n}`),
  },
  {
    name: 'bvh-refit-decay',
    workloads: ['bvh-refit-decay'],
    run: (call, cfg, s) => call('bvh', 'refitDecay', s.refitDecay.boxes, s.refitDecay.frames, cfg),
  },
  {
    name: 'lidar-gpu-rays',
    workloads: ['lidar-gpu-rays'],
    run: (call, cfg, s) => call('bvh', 'lidarGpuRays', s.lidar.boxes, LIDAR_FULL.elevations, LIDAR_FULL.azimuths, cfg),
  },
  {
    name: 'lidar',
    workloads: ['lidar-262k-10k'],
    run: (call, cfg, s) => call('rays', 'lidar', s.lidar.boxes, s.lidar.elevations, s.lidar.azimuths, cfg),
  },
  {
    name: 'lidar-sim',
    workloads: ['lidar-static', 'lidar-static-fields', 'lidar-vlp32c', 'lidar-vlp32c-plain', 'lidar-offsets', 'lidar-moving-sensor', 'lidar-moving-boxes', 'lidar-many'],
    run: (call, cfg, s) => call('lidarSim', 'lidarSim', s.lidarSim.boxes, s.lidarSim.elevations, s.lidarSim.azimuths, s.lidarSim.moving, cfg),
  },
  {
    name: 'brute-rays',
    workloads: ['brute-rays'],
    run: (call, cfg, s) => call('rays', 'bruteRays', s.bruteRays.rays, s.bruteRays.boxes, cfg),
  },
  {
    name: 'box-pairs',
    workloads: ['box-pairs'],
    run: (call, cfg, s) => call('pairs', 'boxPairs', s.boxPairs, cfg),
  },
  {
    name: 'all-pairs',
    workloads: ['all-pairs-moving'],
    run: (call, cfg, s, log) => each(s.allPairs, (n) => call('pairs', 'allPairsMoving', n, cfg), log, (n) => `n=${n}`),
  },
  {
    name: 'three',
    workloads: ['three-build', 'three-pick-1', 'three-pick-1024', 'three-marquee', 'three-sync-1pct', 'three-sync-100pct'],
    run: (call, cfg, s) => call('three', 'three', s.threeInstances, s.pickingRays, cfg),
  },
  {
    name: 'gpu-sourced',
    workloads: ['gpu-sourced-frame'],
    run: (call, cfg, s, log) => each(s.gpuSourced, (n) => call('gpuSourced', 'gpuSourcedFrame', n, 1024, cfg), log, (n) => `n=${n}`),
  },
  {
    name: 'transfer',
    workloads: ['upload', 'readback'],
    run: (call, cfg, s) => call('transfer', 'transfer', s.transferMB, cfg),
  },
];

interface Args {
  full: boolean;
  json: string | undefined;
  filters: string[] | undefined;
  impls: string[] | undefined;
  machine: string | undefined;
  adapter: 'swiftshader' | 'default' | undefined;
}

const USAGE = 'usage: npm run bench -- [--full] [--json FILE] [--filter NAME[,NAME…]] [--impl NAME[,NAME…]] [--machine LABEL] [--adapter swiftshader|default]';

function parseArgs(argv: string[]): Args {
  const args: Args = { full: false, json: undefined, filters: undefined, impls: undefined, machine: undefined, adapter: undefined };
  const value = (i: number, flag: string): string => {
    const v = argv[i];
    if (v === undefined || v.startsWith('--')) {
      throw new Error(`${flag} needs a value\n${USAGE}`);
    }
    return v;
  };
  const list = (v: string): string[] => v.split(',').map((x) => x.trim()).filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--full') {
      args.full = true;
    } else if (a === '--json') {
      args.json = resolve(value(++i, a));
    } else if (a === '--filter') {
      args.filters = [...(args.filters ?? []), ...list(value(++i, a))];
    } else if (a === '--impl') {
      args.impls = [...(args.impls ?? []), ...list(value(++i, a))];
    } else if (a === '--machine') {
      args.machine = value(++i, a);
    } else if (a === '--adapter') {
      const v = value(++i, a);
      if (v !== 'swiftshader' && v !== 'default') {
        throw new Error(`--adapter must be swiftshader or default\n${USAGE}`);
      }
      args.adapter = v;
    } else if (a === '--help' || a === '-h') {
      console.log(`${USAGE}\nworkloads: ${GROUPS.map((g) => `${g.name} (${g.workloads.join(', ')})`).join('; ')}`);
      process.exit(0);
    } else {
      throw new Error(`unknown argument ${a}\n${USAGE}`);
    }
  }
  return args;
}

function config(full: boolean, impls: string[] | undefined): BenchConfig {
  const base = full
    ? { budget: { minRuns: 5, maxRuns: 30, budgetMs: 5000, warmup: 1 }, buildBudget: { minRuns: 3, maxRuns: 10, budgetMs: 5000, warmup: 1 }, cpuTestsPerRun: 1e8, cpuPairsLimit: 5e7 }
    : { budget: { minRuns: 3, maxRuns: 15, budgetMs: 1500, warmup: 1 }, buildBudget: { minRuns: 3, maxRuns: 7, budgetMs: 1000, warmup: 1 }, cpuTestsPerRun: 1.5e7, cpuPairsLimit: 2.5e6 };
  return impls ? { full, ...base, implementations: impls } : { full, ...base };
}

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

/** `version` of the package.json at `path` (relative to the repository root). */
function versionAt(path: string): string {
  try {
    return (JSON.parse(readFileSync(`${repoRoot}${path}`, 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

function gitDescribe(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export async function main(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const groups = GROUPS.filter((g) => !args.filters || args.filters.some((f) => g.name.includes(f) || g.workloads.some((w) => w.includes(f))));
  if (groups.length === 0) {
    throw new Error(`--filter ${args.filters?.join(',')} matches no workload (have: ${GROUPS.flatMap((g) => [g.name, ...g.workloads]).join(', ')})`);
  }
  const cfg = config(args.full, args.impls);
  const sizes = args.full ? SIZES.full : SIZES.quick;
  const started = Date.now();
  const loadAtStart = loadavg()[0]!;
  const log = (s: string): void => console.error(s);
  const page = await openGpuPage<BenchPageApi>({
    root: fileURLToPath(new URL('./page/', import.meta.url)),
    protocolTimeout: (args.full ? 4 * 3600 : 3600) * 1000,
    ...(args.adapter ? { adapter: args.adapter } : {}),
  });
  const rows: Row[] = [];
  const notes: string[] = [];
  let env: PageEnvironment;
  try {
    env = await page.call('env', 'environment');
    if (args.impls) {
      const unknown = args.impls.filter((n) => !(n in env.implementations));
      if (unknown.length > 0) {
        throw new Error(`--impl ${unknown.join(',')}: not registered (have: ${Object.keys(env.implementations).join(', ')})`);
      }
    }
    log(`adapter: ${env.adapter.name}${env.adapter.isFallbackAdapter ? ' (software fallback: "GPU" rows run on the CPU)' : ''}`);
    log(`browser: ${env.userAgent}`);
    log(`implementations: ${Object.entries(env.implementations).map(([k, v]) => `${k} = ${v}`).join('; ')}`);
    for (const g of groups) {
      log(`running ${g.name}${args.full ? ' (full)' : ''}…`);
      const t0 = Date.now();
      const r = await g.run(page.call, cfg, sizes, log);
      rows.push(...r.rows);
      notes.push(...r.notes);
      log(`${g.name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    await page.close();
  }
  const seconds = (Date.now() - started) / 1000;

  console.log(textTable(rows));
  console.log(`\nHeadline: each GPU path's throughput over each other implementation's (× > 1: the GPU path is faster)\n${headlineTable(rows)}`);
  if (notes.length > 0) {
    console.log(`\nDisagreements with the reference and skipped rows:\n${notes.join('\n')}`);
  }
  const cpu = cpus();
  const report = {
    date: new Date().toISOString(),
    mode: args.full ? 'full' : 'quick',
    command: `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
    seconds: Math.round(seconds),
    machine: {
      label: args.machine ?? `${cpu.length}-core ${process.platform} ${process.arch}`,
      cpus: cpu.length, cpu: cpu[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30),
      platform: process.platform, release: release(), arch: process.arch, node: process.version,
      // Other work on the machine skews every row; a 1-minute load above the core count means it did.
      loadAverage1m: { start: Number(loadAtStart.toFixed(2)), end: Number(loadavg()[0]!.toFixed(2)) },
    },
    adapter: env.adapter,
    browser: { userAgent: env.userAgent, hardwareConcurrency: env.hardwareConcurrency, executable: page.executablePath, args: page.browserArgs },
    versions: {
      'webgpu-obb': `${versionAt('package.json')} (${gitDescribe()})`,
      '@dimforge/rapier3d-compat': versionAt('node_modules/@dimforge/rapier3d-compat/package.json'),
      '@dimforge/rapier3d-simd-compat': versionAt('node_modules/@dimforge/rapier3d-simd-compat/package.json'),
      three: versionAt('node_modules/three/package.json'),
      'three-mesh-bvh': versionAt('node_modules/three-mesh-bvh/package.json'),
      runtime: env.implementations,
    },
    notes,
    rows,
  };
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const outDir = fileURLToPath(new URL('./out/', import.meta.url));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}latest.json`, text);
  // A classic script, so bench/report.html can load it from file:// as well as over http.
  writeFileSync(`${outDir}latest.js`, `window.BENCH_DATA = ${text.trimEnd()};\n`);
  writeFileSync(`${outDir}latest.md`, `${headlineTable(rows)}\n\n${markdownTable(rows)}\n`);
  if (args.json) {
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, text);
    log(`wrote ${args.json}`);
  }
  log(`wrote bench/out/latest.json, latest.js (open bench/report.html), latest.md; ${seconds.toFixed(0)} s in all`);
  if (page.consoleErrors.length > 0) {
    console.error(`page errors:\n${page.consoleErrors.join('\n')}`);
    process.exitCode = 1;
  }
  if (rows.some((r) => r.agreesWithReference === false)) {
    console.error('some implementation disagrees with the reference beyond float32 error (see above)');
    process.exitCode = 1;
  }
}
