/**
 * `npm run bench`: runs the workloads in headless Chromium (the page in bench/page), prints a
 * table with ratios against the CPU reference, and writes JSON (`--json FILE`, default
 * bench/out/latest.json). `--full` for the large sizes; `--filter NAME` to run matching workloads.
 *
 * Speed is reported here, never asserted in tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openGpuPage } from '../test/gpu/harness.ts';
import type { Row } from './page/measure.ts';

interface Workload {
  name: string;
  run: (call: <T>(suite: string, fn: string, ...args: unknown[]) => Promise<T>, full: boolean) => Promise<Row[]>;
}

const WORKLOADS: Workload[] = [
  {
    name: 'brute-rays',
    run: (call, full) => call<Row[]>('brute', 'bruteRays', 16_384, 4096, full ? 7 : 5, full ? 16_384 : 2048),
  },
  {
    name: 'box-pairs',
    run: (call, full) => call<Row[]>('brute', 'brutePairs', full ? 1_000_000 : 200_000, full ? 7 : 5),
  },
];

function parseArgs(argv: string[]): { full: boolean; json: string; filter: string | undefined } {
  let full = false;
  let json = fileURLToPath(new URL('./out/latest.json', import.meta.url));
  let filter: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--full') {
      full = true;
    } else if (a === '--json') {
      json = argv[++i] ?? json;
    } else if (a === '--filter') {
      filter = argv[++i];
    } else {
      throw new Error(`unknown argument ${a} (use --full, --json FILE, --filter NAME)`);
    }
  }
  return { full, json, filter };
}

function table(rows: Row[]): string {
  const ref = new Map<string, Row>();
  for (const r of rows) {
    if (r.implementation === 'reference') {
      ref.set(r.workload, r);
    }
  }
  const head = ['workload', 'implementation', 'median ms', 'min–max ms', 'throughput', '× reference', 'agrees', 'timing'];
  const body = rows.map((r) => {
    const base = ref.get(r.workload);
    const ratio = base ? (r.throughput / base.throughput).toFixed(1) : '';
    return [r.workload, r.implementation, r.median_ms.toFixed(1), `${r.min_ms.toFixed(1)}–${r.max_ms.toFixed(1)}`,
      `${(r.throughput / 1e6).toFixed(2)} M ${r.unit}`, ratio, r.agreesWithReference === null ? '' : String(r.agreesWithReference), r.timing];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export async function main(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const page = await openGpuPage({ root: fileURLToPath(new URL('./page/', import.meta.url)) });
  try {
    const adapter = await page.call<{ name: string; fallback: boolean; features: string[]; userAgent: string }>('brute', 'adapter');
    console.error(`adapter: ${adapter.name}; browser: ${adapter.userAgent}`);
    const rows: Row[] = [];
    for (const w of WORKLOADS) {
      if (args.filter && !w.name.includes(args.filter)) {
        continue;
      }
      console.error(`running ${w.name}${args.full ? ' (full)' : ''}…`);
      const t0 = Date.now();
      rows.push(...(await w.run(page.call, args.full)));
      console.error(`  ${w.name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    console.log(table(rows));
    const report = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), platform: process.platform, node: process.version },
      adapter: { name: adapter.name, isFallbackAdapter: adapter.fallback, features: adapter.features },
      browser: adapter.userAgent,
      mode: args.full ? 'full' : 'quick',
      rows,
    };
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
    console.error(`wrote ${args.json}`);
    if (page.consoleErrors.length > 0) {
      console.error(`page errors:\n${page.consoleErrors.join('\n')}`);
      process.exitCode = 1;
    }
  } finally {
    await page.close();
  }
}
