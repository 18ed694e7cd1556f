/**
 * The bench table, as text (printed by `npm run bench`) and as Markdown (bench/out/latest.md, for
 * docs/performance.md). Ratios are the headline: in each (workload, n) group, every GPU
 * implementation's throughput over the reference's and over each peer's, measured in the same run.
 */
import type { Row } from './page/measure.ts';

/**
 * The GPU implementations whose ratios get a column (end-to-end rows, not kernel-only ones): this
 * library's, named `gpu-*`. A peer that runs on the GPU (`three-mesh-bvh-gpu`) is a peer here: it
 * gets a ratio, not a column.
 */
export function gpuImplementations(rows: readonly Row[]): string[] {
  return [...new Set(rows.map((r) => r.implementation).filter((n) => n.startsWith('gpu-') && !n.endsWith('-kernel')))];
}

/** Rows grouped by workload and n, in first-seen order. */
export function groups(rows: readonly Row[]): Row[][] {
  const map = new Map<string, Row[]>();
  for (const r of rows) {
    const k = `${r.workload}\u0000${r.n}`;
    map.set(k, [...(map.get(k) ?? []), r]);
  }
  return [...map.values()];
}

/** 33.7 M, 512 k, 12.3, 0.042 */
export function si(x: number): string {
  const a = Math.abs(x);
  if (a >= 1e9) {
    return `${(x / 1e9).toPrecision(3)} G`;
  }
  if (a >= 1e6) {
    return `${(x / 1e6).toPrecision(3)} M`;
  }
  if (a >= 1e4) {
    return `${(x / 1e3).toPrecision(3)} k`;
  }
  return a >= 100 ? x.toFixed(0) : x.toPrecision(3);
}

function ms(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toPrecision(2);
}

function count(n: number): string {
  return n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : n.toLocaleString('en-US');
}

function ratio(a: number, b: number): string {
  const r = a / b;
  return r >= 100 ? `${r.toFixed(0)}×` : r >= 10 ? `${r.toFixed(1)}×` : r >= 0.1 ? `${r.toFixed(2)}×` : `${r.toPrecision(2)}×`;
}

function check(r: Row): string {
  if (r.agreesWithReference === null) {
    return '';
  }
  if (r.checked === undefined) {
    return r.agreesWithReference ? 'yes' : 'NO';
  }
  const parts = [`${r.agreesWithReference ? 'yes' : 'NO'} (${r.checked.toLocaleString('en-US')}`];
  if (r.ambiguous) {
    parts.push(`${r.ambiguous} ambiguous`);
  }
  if (r.mismatch) {
    parts.push(`${r.mismatch} MISMATCH`);
  }
  return `${parts.join(', ')})`;
}

/** For each row: "× reference" (this over the reference) and, per GPU implementation, GPU over this. */
function ratios(rows: readonly Row[]): { vsRef: Map<Row, string>; gpuOver: Map<string, Map<Row, string>>; gpus: string[] } {
  const gpus = gpuImplementations(rows);
  const vsRef = new Map<Row, string>();
  const gpuOver = new Map<string, Map<Row, string>>(gpus.map((g) => [g, new Map()]));
  for (const group of groups(rows)) {
    const ref = group.find((r) => r.implementation === 'reference');
    for (const r of group) {
      if (ref && r !== ref) {
        vsRef.set(r, ratio(r.throughput, ref.throughput));
      }
      for (const g of gpus) {
        const gr = group.find((x) => x.implementation === g);
        if (gr && r.implementation !== g && !r.implementation.startsWith('gpu')) {
          gpuOver.get(g)!.set(r, ratio(gr.throughput, r.throughput));
        }
      }
    }
  }
  return { vsRef, gpuOver, gpus };
}

/** The plain-text table `npm run bench` prints. */
export function textTable(rows: readonly Row[]): string {
  const { vsRef, gpuOver, gpus } = ratios(rows);
  const head = ['workload', 'n', 'implementation', 'queries', 'median ms', 'min–max ms', 'runs', 'throughput',
    '× reference', ...gpus.map((g) => `${g} ÷ this`), 'agrees with reference (checked)', 'timing'];
  const body = rows.map((r) => [
    r.workload, count(r.n), r.implementation, count(r.queries), ms(r.median_ms), `${ms(r.min_ms)}–${ms(r.max_ms)}`, String(r.runs),
    `${si(r.throughput)} ${r.unit}`, vsRef.get(r) ?? '', ...gpus.map((g) => gpuOver.get(g)!.get(r) ?? ''), check(r), r.timing,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out: string[] = [line(head), widths.map((w) => '-'.repeat(w)).join('  ')];
  // A blank line between groups of rows (one workload and n), not between single-row groups of one workload.
  const size = new Map(groups(rows).map((g) => [`${g[0]!.workload}/${g[0]!.n}`, g.length]));
  let last: Row | undefined;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const key = `${r.workload}/${r.n}`;
    const lastKey = last ? `${last.workload}/${last.n}` : '';
    if (last && key !== lastKey && (r.workload !== last.workload || size.get(key)! > 1 || size.get(lastKey)! > 1)) {
      out.push('');
    }
    last = r;
    out.push(line(body[i]!));
  }
  return out.join('\n');
}

/** The same table as Markdown, notes included, for docs/performance.md. */
export function markdownTable(rows: readonly Row[]): string {
  const { vsRef, gpuOver, gpus } = ratios(rows);
  const head = ['Workload', 'n', 'Implementation', 'Median (min–max) ms', 'Throughput', '× reference',
    ...gpus.map((g) => `${g} ÷ this`), 'Agrees (checked)', 'Note'];
  const out = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  let last = '';
  for (const r of rows) {
    const key = `${r.workload}/${r.n}`;
    const first = key !== last;
    last = key;
    out.push(`| ${[
      first ? `\`${r.workload}\`` : '', first ? count(r.n) : '', r.implementation,
      `${ms(r.median_ms)} (${ms(r.min_ms)}–${ms(r.max_ms)})`, `${si(r.throughput)} ${r.unit}`, vsRef.get(r) ?? '',
      ...gpus.map((g) => gpuOver.get(g)!.get(r) ?? ''), check(r), (r.note ?? '').replace(/\|/g, '\\|'),
    ].join(' | ')} |`);
  }
  return out.join('\n');
}

/**
 * One line per (workload, n) and GPU implementation: its end-to-end time and throughput, and its
 * throughput over the reference's and each peer's (× > 1: the GPU path is faster). The journal
 * (docs/performance.md) shows this one; the full table stays in the JSON and the report.
 */
export function headlineTable(rows: readonly Row[]): string {
  const others = [...new Set(rows.map((r) => r.implementation).filter((n) => !n.startsWith('gpu')))]
    .sort((a, b) => Number(b === 'reference') - Number(a === 'reference'));
  const head = ['Workload', 'n', 'GPU path', 'Median ms', 'Throughput', ...others.map((o) => `÷ ${o}`), 'Agree with reference'];
  const out = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const group of groups(rows)) {
    const gpus = group.filter((r) => r.implementation === 'gpu' || (r.implementation.startsWith('gpu-') && !r.implementation.endsWith('-kernel')));
    const agree = group.filter((r) => r.agreesWithReference !== null);
    const amb = agree.reduce((s, r) => s + (r.ambiguous ?? 0), 0);
    const bad = agree.filter((r) => r.agreesWithReference === false).map((r) => r.implementation);
    const checks = agree.length === 0 ? '' : bad.length ? `**NO: ${bad.join(', ')}**` : `all${amb ? ` (${amb} ambiguous)` : ''}`;
    for (const g of gpus) {
      const kernel = group.find((r) => r.implementation === `${g.implementation}-kernel`);
      out.push(`| ${[
        `\`${g.workload}\``, count(g.n), g.implementation,
        `${ms(g.median_ms)}${kernel ? ` (kernel ${ms(kernel.median_ms)})` : ''}`,
        `${si(g.throughput)} ${g.unit}`,
        ...others.map((o) => {
          const r = group.find((x) => x.implementation === o);
          return r ? ratio(g.throughput, r.throughput) : '—';
        }),
        checks,
      ].join(' | ')} |`);
    }
  }
  return out.join('\n');
}
