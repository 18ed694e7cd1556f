/**
 * A judged run as one self-contained HTML page (no network, no external file): totals and
 * reasons per group, and for each mismatch and the worst ambiguous cases a small 3D view of the
 * boxes involved (wireframes) with the ray and the reference's hit points, or the pair with the
 * reference's separating axis and both boxes' projections on it. Drag to orbit, wheel to zoom.
 *
 * The geometry the views draw is computed here, by the float64 reference, from each case's
 * inputs; the page only projects lines.
 *
 * Browser- and Node-safe.
 *
 * @example
 * await writeFile('judge.html', htmlReport(groups, { title: 'my kernel' }));
 */
import { SAT_AXIS_NAMES } from '../constants.ts';
import type { Obb, Vec3 } from '../core/types.ts';
import { obbObbSat, satAxis } from '../reference/query/obbObbSat.ts';
import { rayObb } from '../reference/query/rayObb.ts';
import type { CaseReport } from '../compare/compare.ts';
import type { JudgedGroup } from './junit.ts';
import { xmlEscape } from './junit.ts';

/** What one view draws: boxes, segments and points, in world coordinates. */
export interface CaseView {
  readonly group: string;
  readonly family: string;
  readonly verdict: string;
  readonly reason: string;
  readonly detail: string;
  readonly boxes: readonly { readonly index: number; readonly center: Vec3; readonly halfExtents: Vec3; readonly axes: readonly [Vec3, Vec3, Vec3] }[];
  /** Segments [from, to, colour]. */
  readonly lines: readonly (readonly [Vec3, Vec3, string])[];
  /** Points [at, colour, label]. */
  readonly points: readonly (readonly [Vec3, string, string])[];
}

const add = (a: Vec3, b: Vec3, s = 1): Vec3 => [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

function asBox(x: unknown): CaseView['boxes'][number] | undefined {
  const b = x as { index?: number; center?: Vec3; halfExtents?: Vec3; axes?: [Vec3, Vec3, Vec3] } | undefined;
  return b?.center && b.halfExtents && b.axes ? { index: b.index ?? -1, center: b.center, halfExtents: b.halfExtents, axes: b.axes } : undefined;
}

/** The view of one comparator case (a ray and its boxes, or a pair). */
export function caseView(group: string, family: string, c: CaseReport): CaseView {
  const base = { group, family, verdict: c.verdict, reason: c.reason, detail: c.detail };
  const input = c.input as { ray?: { origin: Vec3; direction: Vec3; maxDistance: number | null }; boxes?: unknown[]; a?: unknown; b?: unknown };
  if (input.ray) {
    // The case names the reference's box and the implementation's (often the same one): once each.
    const boxes = (input.boxes ?? []).map(asBox).filter((b, k, all): b is NonNullable<typeof b> => b !== undefined && all.findIndex((x) => x?.index === b.index) === k);
    const { origin, direction } = input.ray;
    const len = Math.hypot(...direction) || 1;
    const dir: Vec3 = [direction[0] / len, direction[1] / len, direction[2] / len];
    const points: (readonly [Vec3, string, string])[] = [[origin, '#e5e9f0', 'origin']];
    let far = 0;
    for (const b of boxes) {
      const h = rayObb({ origin, direction: dir, maxDistance: Infinity }, b as Obb);
      far = Math.max(far, Math.hypot(b.center[0] - origin[0], b.center[1] - origin[1], b.center[2] - origin[2]) + Math.hypot(...b.halfExtents));
      if (h.hit) {
        points.push([add(origin, dir, h.t), '#a3be8c', `reference hit on box ${b.index}: t ${Number(h.t.toPrecision(7))}`]);
      }
    }
    const max = input.ray.maxDistance ?? Infinity;
    const end = Math.min(Number.isFinite(max) ? max : Infinity, Math.max(far, 1) * 1.2);
    return { ...base, boxes, lines: [[origin, add(origin, dir, end), '#ebcb8b']], points };
  }
  const a = asBox(input.a), b = asBox(input.b);
  if (!a || !b) {
    return { ...base, boxes: [], lines: [], points: [] };
  }
  // The reference's separating (or least-penetration) axis, through the midpoint of the centres,
  // with each box's projection interval on it.
  const sat = obbObbSat(a as Obb, b as Obb);
  const raw = satAxis(a as Obb, b as Obb, sat.axis);
  const l = Math.hypot(...raw) || 1;
  const axis: Vec3 = [raw[0] / l, raw[1] / l, raw[2] / l];
  const mid: Vec3 = [(a.center[0] + b.center[0]) / 2, (a.center[1] + b.center[1]) / 2, (a.center[2] + b.center[2]) / 2];
  const interval = (x: CaseView['boxes'][number]): [number, number] => {
    const c = dot(x.center, axis) - dot(mid, axis);
    const r = x.halfExtents.reduce((s, h, k) => s + h * Math.abs(dot(x.axes[k]!, axis)), 0);
    return [c - r, c + r];
  };
  const [a0, a1] = interval(a), [b0, b1] = interval(b);
  const span = Math.max(Math.abs(a0), Math.abs(a1), Math.abs(b0), Math.abs(b1)) * 1.3;
  // Offset the interval bars sideways so that they do not sit on the axis line.
  const side: Vec3 = Math.abs(axis[2]) < 0.9 ? [-axis[1], axis[0], 0] : [0, -axis[2], axis[1]];
  const sl = Math.hypot(...side) || 1;
  const off = (s: number): Vec3 => [(side[0] / sl) * s, (side[1] / sl) * s, (side[2] / sl) * s];
  const at = (t: number, o: number): Vec3 => add(add(mid, axis, t), off(o));
  const d = span * 0.04;
  return {
    ...base, boxes: [a, b],
    lines: [
      [at(-span, 0), at(span, 0), '#ebcb8b'],
      [at(a0, d), at(a1, d), '#88c0d0'],
      [at(b0, -d), at(b1, -d), '#bf616a'],
    ],
    points: [[mid, '#ebcb8b', `reference axis ${SAT_AXIS_NAMES[sat.axis]}, gap ${Number(sat.gap.toPrecision(7))}`]],
  };
}

/** Options of {@link htmlReport}. */
export interface HtmlReportOptions {
  readonly title?: string;
  /** Views per group: every mismatch up to this many, then the worst ambiguous cases (default 12, 4). */
  readonly mismatchViews?: number;
  readonly ambiguousViews?: number;
}

/** The views a report draws for a group (what `htmlReport` embeds; the test counts them). */
export function viewsOf(group: JudgedGroup, options: HtmlReportOptions = {}): CaseView[] {
  const out: CaseView[] = [];
  for (const c of group.comparison?.comparisons ?? []) {
    const mismatches = c.cases.filter((k) => k.verdict === 'mismatch').slice(0, options.mismatchViews ?? 12);
    const ambiguous = c.cases.filter((k) => k.verdict === 'ambiguous').slice(0, options.ambiguousViews ?? 4);
    for (const k of [...mismatches, ...ambiguous]) {
      // Cases with nothing to draw (a box's LiDAR return count) are listed in the table only.
      const input = k.input as { ray?: unknown; a?: unknown };
      if (input.ray !== undefined || input.a !== undefined) {
        out.push(caseView(group.name, c.family, k));
      }
    }
  }
  return out;
}

const STYLE = `
body{margin:0;background:#0e1116;color:#d8dee9;font:13px/1.45 system-ui,sans-serif}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:20px} h2{font-size:15px;margin:22px 0 6px}
table{border-collapse:collapse;width:100%} td,th{padding:3px 8px;border-bottom:1px solid #2e3440;text-align:left}
.ok{color:#a3be8c}.fail{color:#bf616a}.amb{color:#ebcb8b}
.views{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0;background:#161b22;border-radius:6px;padding:8px;width:340px}
figcaption{font-size:12px;white-space:pre-wrap;word-break:break-word;margin-top:6px}
canvas{background:#0b0e13;border-radius:4px;cursor:grab;display:block}
`;

// The viewer: projects each view's wireframes with a perspective camera orbiting the boxes'
// centre; pointer drag turns it, the wheel zooms. Plain 2D canvas, no library.
const SCRIPT = `
const data = JSON.parse(document.getElementById('views').textContent);
const EDGES = [[0,1],[2,3],[4,5],[6,7],[0,2],[1,3],[4,6],[5,7],[0,4],[1,5],[2,6],[3,7]];
function corners(b) {
  const out = [];
  for (let c = 0; c < 8; c++) {
    const p = b.center.slice();
    for (let k = 0; k < 3; k++) {
      const s = (c >> k) & 1 ? 1 : -1;
      for (let i = 0; i < 3; i++) p[i] += s * b.halfExtents[k] * b.axes[k][i];
    }
    out.push(p);
  }
  return out;
}
function setup(canvas, view) {
  const pts = view.boxes.flatMap(corners).concat(view.lines.flatMap((l) => [l[0], l[1]])).concat(view.points.map((p) => p[0]));
  const centre = [0, 1, 2].map((i) => pts.reduce((s, p) => s + p[i], 0) / Math.max(1, pts.length));
  const radius = Math.max(1e-9, ...pts.map((p) => Math.hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2])));
  let yaw = 0.7, pitch = 0.45, zoom = 1;
  const g = canvas.getContext('2d');
  function project(p) {
    const x = p[0] - centre[0], y = p[1] - centre[1], z = p[2] - centre[2];
    const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
    const x1 = cy * x - sy * y, y1 = sy * x + cy * y;
    const y2 = cp * y1 - sp * z, z2 = sp * y1 + cp * z;
    const depth = 3 * radius / zoom + y2;
    const f = (canvas.width * 0.42) * (3 / zoom) / Math.max(depth / radius, 0.05);
    return [canvas.width / 2 + f * x1 / radius, canvas.height / 2 - f * z2 / radius];
  }
  function line(a, b, colour, width) {
    const p = project(a), q = project(b);
    g.strokeStyle = colour; g.lineWidth = width; g.beginPath(); g.moveTo(p[0], p[1]); g.lineTo(q[0], q[1]); g.stroke();
  }
  function draw() {
    g.clearRect(0, 0, canvas.width, canvas.height);
    view.boxes.forEach((b, k) => {
      const c = corners(b);
      for (const [i, j] of EDGES) line(c[i], c[j], k === 0 ? '#88c0d0' : k === 1 ? '#bf616a' : '#b48ead', 1.2);
    });
    for (const l of view.lines) line(l[0], l[1], l[2], 2);
    for (const p of view.points) {
      const q = project(p[0]);
      g.fillStyle = p[1]; g.beginPath(); g.arc(q[0], q[1], 3.5, 0, 2 * Math.PI); g.fill();
    }
  }
  let drag;
  canvas.addEventListener('pointerdown', (e) => { drag = [e.clientX, e.clientY, yaw, pitch]; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    yaw = drag[2] - (e.clientX - drag[0]) * 0.01;
    pitch = Math.max(-1.5, Math.min(1.5, drag[3] + (e.clientY - drag[1]) * 0.01));
    draw();
  });
  canvas.addEventListener('pointerup', () => { drag = undefined; });
  canvas.addEventListener('wheel', (e) => { e.preventDefault(); zoom = Math.max(0.2, Math.min(20, zoom * Math.exp(-e.deltaY * 0.001))); draw(); }, { passive: false });
  draw();
}
document.querySelectorAll('canvas[data-view]').forEach((c) => setup(c, data[Number(c.dataset.view)]));
window.__reportReady = true;
`;

/**
 * The HTML report of a judged run.
 *
 * @example
 * const html = htmlReport([{ name: 'random/rays', comparison }], { title: 'my-kernel' });
 */
export function htmlReport(groups: readonly JudgedGroup[], options: HtmlReportOptions = {}): string {
  const title = options.title ?? 'webgpu-obb judge';
  const views: CaseView[] = [];
  const total = groups.reduce((s, g) => s + (g.comparison?.total ?? 0), 0);
  const mismatch = groups.reduce((s, g) => s + (g.comparison?.mismatch ?? 0), 0);
  const ambiguous = groups.reduce((s, g) => s + (g.comparison?.ambiguous ?? 0), 0);
  const errors = groups.filter((g) => !g.comparison).length;
  const rows = groups.map((g) => {
    const c = g.comparison;
    if (!c) {
      return `<tr><td>${xmlEscape(g.name)}</td><td colspan="4" class="fail">not judged: ${xmlEscape(g.error ?? '')}</td></tr>`;
    }
    const why = c.comparisons.map((x) => [...Object.entries(x.mismatchByReason).map(([k, v]) => `<span class="fail">${xmlEscape(k)} ${v}</span>`),
      ...Object.entries(x.ambiguousByReason).map(([k, v]) => `<span class="amb">${xmlEscape(k)} ${v}</span>`)].join(', ')).filter(Boolean).join('; ');
    return `<tr><td>${xmlEscape(g.name)}</td><td>${c.total}</td><td class="${c.mismatch ? 'fail' : 'ok'}">${c.mismatch}</td><td class="amb">${c.ambiguous}</td><td>${why}</td></tr>`;
  });
  const sections = groups.map((g) => {
    const vs = viewsOf(g, options);
    if (vs.length === 0) {
      return '';
    }
    const figures = vs.map((v) => {
      const k = views.push(v) - 1;
      const caption = `${v.verdict.toUpperCase()} ${v.family} ${v.reason}\n${v.detail}${v.points.length > 1 ? `\n${v.points.slice(1).map((p) => p[2]).join('\n')}` : v.points[0] ? `\n${v.points[0][2]}` : ''}`;
      return `<figure><canvas width="324" height="240" data-view="${k}" data-verdict="${v.verdict}"></canvas><figcaption>${xmlEscape(caption)}</figcaption></figure>`;
    });
    return `<h2>${xmlEscape(g.name)}</h2><div class="views">${figures.join('')}</div>`;
  });
  // `<` is escaped inside the JSON so that no string in it can end the script element.
  const json = JSON.stringify(views).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${xmlEscape(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${xmlEscape(title)}: <span class="${mismatch || errors ? 'fail' : 'ok'}">${mismatch || errors ? 'FAIL' : 'OK'}</span></h1>
<p>${total} cases in ${groups.length} groups: ${mismatch} mismatch, ${ambiguous} ambiguous${errors ? `, ${errors} not judged` : ''}. Judged against the float64 reference of webgpu-obb with its error model. Drag a view to turn it, scroll to zoom; blue and red are the boxes, yellow the ray or the reference's axis, green the reference's hits, the bars each box's projection on the axis.</p>
<table><tr><th>group</th><th>cases</th><th>mismatch</th><th>ambiguous</th><th>reasons</th></tr>${rows.join('')}</table>
${sections.join('\n')}
</main>
<script id="views" type="application/json">${json}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
