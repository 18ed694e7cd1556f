/**
 * A judged run as one self-contained HTML page (no network, no external file): totals and
 * reasons per group, and for the listed failing cases of each reason a small 3D view of the boxes
 * involved (wireframes): the ray with the reference's hit and face normal beside the
 * implementation's, or the pair with the reference's axis (and both boxes' projections on it)
 * beside the implementation's axis; under each view, the case's input as JSON for a repro scene.
 * Drag to orbit, wheel to zoom.
 *
 * The reference's geometry is computed here by the float64 reference from each case's inputs
 * (or taken from the case's `expected` answer); the implementation's is its `answer`, drawn as
 * reported: a field it did not report is not drawn, and the caption says so. The page only
 * projects lines.
 *
 * Browser- and Node-safe.
 *
 * @example
 * import { writeFile } from 'node:fs/promises'; // in Node
 * await writeFile('judge.html', htmlReport(groups, { title: 'my kernel' }));
 */
import { FACE_NONE, SAT_AXIS_NAMES } from '../constants.ts';
import type { Obb, Vec3 } from '../core/types.ts';
import { obbObbSat, satAxis } from '../reference/query/obbObbSat.ts';
import { faceNormal, rayObb } from '../reference/query/rayObb.ts';
import type { CaseAnswer, CaseReport } from '../compare/compare.ts';
import type { JudgedGroup } from './junit.ts';
import { answerText, faceName, judgeWording, xmlEscape } from './junit.ts';

/** What one view draws: boxes, segments and points, in world coordinates. */
export interface CaseView {
  readonly group: string;
  readonly family: string;
  readonly verdict: string;
  readonly reason: string;
  readonly detail: string;
  /** Boxes with their colour: the reference's box, the implementation's (when another), others. */
  readonly boxes: readonly { readonly index: number; readonly center: Vec3; readonly halfExtents: Vec3; readonly axes: readonly [Vec3, Vec3, Vec3]; readonly colour?: string }[];
  /** Segments [from, to, colour]. */
  readonly lines: readonly (readonly [Vec3, Vec3, string])[];
  /** Points [at, colour, label]. */
  readonly points: readonly (readonly [Vec3, string, string])[];
  /** Caption lines: what the reference and the implementation answered ("t not reported"). */
  readonly notes: readonly string[];
}

/** The colours of the views (the page's legend names them). */
export const VIEW_COLOURS = {
  /** The reference's box (a pair's A). */
  boxA: '#88c0d0',
  /** The implementation's box when it is another (a pair's B). */
  boxB: '#bf616a',
  /** Any other box of the case. */
  boxOther: '#b48ead',
  /** The ray, or the reference's SAT axis. */
  ray: '#ebcb8b',
  origin: '#e5e9f0',
  /** The reference's hit point and face normal. */
  reference: '#a3be8c',
  /** The implementation's hit point, face normal and axis. */
  implementation: '#e040fb',
} as const;

type ViewBox = CaseView['boxes'][number];
type Line = readonly [Vec3, Vec3, string];
type Point = readonly [Vec3, string, string];

const add = (a: Vec3, b: Vec3, s = 1): Vec3 => [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const unit = (v: Vec3): Vec3 | undefined => {
  const l = Math.hypot(...v);
  return l > 1e-300 && Number.isFinite(l) ? [v[0] / l, v[1] / l, v[2] / l] : undefined;
};
const num = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(7))) : String(x));
/** A unit vector perpendicular to a unit `v`. */
const perpendicular = (v: Vec3): Vec3 => unit(Math.abs(v[2]) < 0.9 ? [-v[1], v[0], 0] : [0, -v[2], v[1]]) ?? [1, 0, 0];

function asBox(x: unknown): ViewBox | undefined {
  const b = x as { index?: number; center?: Vec3; halfExtents?: Vec3; axes?: [Vec3, Vec3, Vec3] } | undefined;
  return b?.center && b.halfExtents && b.axes ? { index: b.index ?? -1, center: b.center, halfExtents: b.halfExtents, axes: b.axes } : undefined;
}

/** An arrow from `at` along unit `n`, `length` long, as three segments (shaft and head). */
function arrow(at: Vec3, n: Vec3, length: number, colour: string): Line[] {
  const tip = add(at, n, length);
  const back = add(tip, n, -0.3 * length);
  const p = perpendicular(n);
  return [[at, tip, colour], [tip, add(back, p, 0.15 * length), colour], [tip, add(back, p, -0.15 * length), colour]];
}

/** The view of one comparator case (a ray and its boxes, or a pair). */
export function caseView(group: string, family: string, c: CaseReport): CaseView {
  const base = { group, family, verdict: c.verdict, reason: c.reason, detail: judgeWording(c.detail) };
  const input = c.input as { ray?: { origin: Vec3; direction: Vec3; maxDistance: number | null }; boxes?: unknown[]; solid?: unknown; a?: unknown; b?: unknown };
  const answer = c.answer, expected = c.expected;
  if (input.ray) {
    // The case names the reference's box and the implementation's (often the same one): once each.
    const listed = (input.boxes ?? []).map(asBox).filter((b, k, all): b is ViewBox => b !== undefined && all.findIndex((x) => x?.index === b.index) === k);
    const refBox = expected?.kind === 'ray' ? expected.box : undefined;
    const implBox = answer?.kind === 'ray' ? answer.box : undefined;
    const boxes = listed.map((b, k): ViewBox => ({
      ...b,
      colour: b.index === refBox ? VIEW_COLOURS.boxA : b.index === implBox ? VIEW_COLOURS.boxB
        : refBox === undefined && implBox === undefined && k < 2 ? (k === 0 ? VIEW_COLOURS.boxA : VIEW_COLOURS.boxB) : VIEW_COLOURS.boxOther,
    }));
    const { origin, direction } = input.ray;
    const dir = unit(direction) ?? [1, 0, 0];
    const solid = typeof input.solid === 'boolean' ? { solid: input.solid } : {};
    const points: Point[] = [[origin, VIEW_COLOURS.origin, 'origin']];
    const lines: Line[] = [];
    const notes: string[] = [];
    let far = 0;
    for (const b of boxes) {
      far = Math.max(far, Math.hypot(b.center[0] - origin[0], b.center[1] - origin[1], b.center[2] - origin[2]) + Math.hypot(...b.halfExtents));
    }
    for (const a of [expected, answer]) {
      if (a?.kind === 'ray' && a.t !== undefined && Number.isFinite(a.t)) {
        far = Math.max(far, a.t);
      }
    }
    const max = input.ray.maxDistance ?? Infinity;
    const end = Math.min(Number.isFinite(max) ? max : Infinity, Math.max(far, 1) * 1.2);
    lines.push([origin, add(origin, dir, end), VIEW_COLOURS.ray]);
    // A normal's arrow: most of the box's largest half extent, and visible at the view's scale.
    const arrowLength = (b: ViewBox): number => Math.max(0.8 * Math.max(...b.halfExtents), 0.08 * end);
    const drawAnswer = (who: string, a: Extract<CaseAnswer, { kind: 'ray' }>, colour: string): void => {
      notes.push(`${who}: ${answerText(a, num)}`);
      const box = boxes.find((b) => b.index === a.box);
      if (a.box < 0 || !box) {
        return;
      }
      const n = a.face === undefined || a.face === FACE_NONE ? undefined : faceNormal(box as Obb, a.face);
      let at: Vec3 | undefined;
      if (a.t !== undefined && Number.isFinite(a.t)) {
        at = add(origin, dir, a.t);
        points.push([at, colour, `${who} hit on box ${a.box}: t ${num(a.t)}`]);
      } else if (n && a.face !== undefined) {
        // No t: the normal stands on the centre of the face it names.
        at = add(box.center, box.axes[a.face >> 1]!, (a.face & 1 ? -1 : 1) * box.halfExtents[a.face >> 1]!);
      }
      if (at && n) {
        lines.push(...arrow(at, n, arrowLength(box), colour));
      }
    };
    if (expected?.kind === 'ray') {
      drawAnswer('reference', expected, VIEW_COLOURS.reference);
    } else {
      // No expected answer with the case: the reference's hit on each box of the case.
      for (const b of boxes) {
        const h = rayObb({ origin, direction: dir, maxDistance: Infinity }, b as Obb, solid);
        if (h.hit) {
          const label = `reference hit on box ${b.index}: t ${num(h.t)}${h.face === FACE_NONE ? '' : `, ${faceName(h.face)}`}${h.inside ? ', inside' : ''}`;
          points.push([add(origin, dir, h.t), VIEW_COLOURS.reference, label]);
          notes.push(label);
          if (h.normal) {
            lines.push(...arrow(add(origin, dir, h.t), h.normal, arrowLength(b), VIEW_COLOURS.reference));
          }
        }
      }
    }
    if (answer?.kind === 'ray') {
      drawAnswer('implementation', answer, VIEW_COLOURS.implementation);
    }
    return { ...base, boxes, lines, points, notes };
  }
  const a0 = asBox(input.a), b0 = asBox(input.b);
  if (!a0 || !b0) {
    return { ...base, boxes: [], lines: [], points: [], notes: [] };
  }
  const a: ViewBox = { ...a0, colour: VIEW_COLOURS.boxA }, b: ViewBox = { ...b0, colour: VIEW_COLOURS.boxB };
  // The reference's separating (or least-penetration) axis, through the midpoint of the centres,
  // with each box's projection interval on it.
  const sat = obbObbSat(a as Obb, b as Obb);
  const refAxisId = expected?.kind === 'pair' && expected.axis !== undefined ? expected.axis : sat.axis;
  const refGap = expected?.kind === 'pair' && expected.gap !== undefined ? expected.gap : sat.gap;
  const refOverlap = expected?.kind === 'pair' ? expected.overlap : sat.overlap;
  const axis = unit(satAxis(a as Obb, b as Obb, refAxisId)) ?? [1, 0, 0];
  const mid: Vec3 = [(a.center[0] + b.center[0]) / 2, (a.center[1] + b.center[1]) / 2, (a.center[2] + b.center[2]) / 2];
  const interval = (x: ViewBox, l: Vec3): [number, number] => {
    const c = dot(x.center, l) - dot(mid, l);
    const r = x.halfExtents.reduce((s, h, k) => s + h * Math.abs(dot(x.axes[k]!, l)), 0);
    return [c - r, c + r];
  };
  const [a1, a2] = interval(a, axis), [b1, b2] = interval(b, axis);
  const span = Math.max(Math.abs(a1), Math.abs(a2), Math.abs(b1), Math.abs(b2), 1e-9) * 1.3;
  // Offset the interval bars sideways so that they do not sit on the axis line.
  const side = perpendicular(axis);
  const at = (l: Vec3, t: number, o: number): Vec3 => add(add(mid, l, t), side, o);
  const d = span * 0.04;
  const lines: Line[] = [
    [at(axis, -span, 0), at(axis, span, 0), VIEW_COLOURS.ray],
    [at(axis, a1, d), at(axis, a2, d), VIEW_COLOURS.boxA],
    [at(axis, b1, -d), at(axis, b2, -d), VIEW_COLOURS.boxB],
  ];
  const points: Point[] = [[mid, VIEW_COLOURS.ray, `reference axis ${SAT_AXIS_NAMES[refAxisId] ?? refAxisId}, gap ${num(refGap)}`]];
  const notes = [`reference: ${refOverlap ? 'overlap' : 'separate'}, gap ${num(refGap)} on ${SAT_AXIS_NAMES[refAxisId] ?? refAxisId}`];
  if (answer?.kind === 'pair') {
    const parts = [answer.overlap ? 'overlap' : 'separate', answer.gap === undefined ? 'gap not reported' : `gap ${num(answer.gap)}`];
    if (answer.axis === undefined) {
      parts.push('axis not reported');
    } else {
      const name = SAT_AXIS_NAMES[answer.axis] ?? `${answer.axis} (not an axis id)`;
      const l = SAT_AXIS_NAMES[answer.axis] !== undefined ? unit(satAxis(a as Obb, b as Obb, answer.axis)) : undefined;
      if (!l) {
        parts.push(`on ${name}${SAT_AXIS_NAMES[answer.axis] !== undefined ? ' (degenerate: parallel edges)' : ''}`);
      } else {
        // The boxes' true separation along the implementation's axis, to set against its gap.
        const [p1, p2] = interval(a, l), [q1, q2] = interval(b, l);
        parts.push(`on ${name} (separation along it ${num(Math.max(q1 - p2, p1 - q2))})`);
        // Beside the reference's axis: same midpoint, shifted sideways by a few bar offsets.
        const o = perpendicular(l);
        const shift = (t: number): Vec3 => add(add(mid, l, t), o, 3 * d);
        lines.push([shift(-span), shift(span), VIEW_COLOURS.implementation]);
        points.push([shift(0), VIEW_COLOURS.implementation, `implementation axis ${name}`]);
      }
    }
    notes.push(`implementation: ${parts.join(', ')}`);
  }
  return { ...base, boxes: [a, b], lines, points, notes };
}

/** Options of {@link htmlReport}. */
export interface HtmlReportOptions {
  readonly title?: string;
  /**
   * Views per comparison: mismatches up to this many, then ambiguous cases up to
   * `ambiguousViews` (default 12, 4), taken round-robin over the reasons present so that every
   * reason gets a view before any gets a second.
   */
  readonly mismatchViews?: number;
  readonly ambiguousViews?: number;
}

/** The listed cases of one family, verdict and reason that a report draws. */
interface ReasonPick {
  readonly family: string;
  readonly verdict: 'mismatch' | 'ambiguous';
  readonly reason: string;
  /** Cases of this reason in the comparison (listed or not). */
  readonly count: number;
  readonly cases: readonly CaseReport[];
}

/**
 * The cases a report draws for a group, by severity (mismatch, then ambiguous) and reason (most
 * cases first): round-robin over the reasons up to the limit, so no reason is crowded out by
 * another's many cases. Cases with nothing to draw (a box's LiDAR return count) are listed in the
 * table only.
 */
function picksOf(group: JudgedGroup, options: HtmlReportOptions): ReasonPick[] {
  const out: ReasonPick[] = [];
  for (const c of group.comparison?.comparisons ?? []) {
    const levels = [
      ['mismatch', options.mismatchViews ?? 12, c.mismatchByReason],
      ['ambiguous', options.ambiguousViews ?? 4, c.ambiguousByReason],
    ] as const;
    for (const [verdict, limit, byReason] of levels) {
      const byCase = new Map<string, CaseReport[]>();
      for (const k of c.cases) {
        const input = k.input as { ray?: unknown; a?: unknown };
        if (k.verdict === verdict && (input.ray !== undefined || input.a !== undefined)) {
          byCase.set(k.reason, [...(byCase.get(k.reason) ?? []), k]);
        }
      }
      const count = (r: string): number => byReason[r] ?? byCase.get(r)?.length ?? 0;
      // Map order is first appearance; the sort is stable, so equal counts keep it.
      const reasons = [...byCase.keys()].sort((x, y) => count(y) - count(x));
      const taken = new Map<string, number>(reasons.map((r) => [r, 0]));
      let n = 0;
      for (let round = 0; n < limit; round++) {
        const before = n;
        for (const r of reasons) {
          if (n < limit && round < byCase.get(r)!.length) {
            taken.set(r, round + 1);
            n++;
          }
        }
        if (n === before) {
          break;
        }
      }
      for (const r of reasons) {
        const cases = byCase.get(r)!.slice(0, taken.get(r));
        if (cases.length > 0) {
          out.push({ family: c.family, verdict, reason: r, count: count(r), cases });
        }
      }
    }
  }
  return out;
}

/** The views a report draws for a group (what `htmlReport` embeds; the test counts them). */
export function viewsOf(group: JudgedGroup, options: HtmlReportOptions = {}): CaseView[] {
  return picksOf(group, options).flatMap((p) => p.cases.map((k) => caseView(group.name, p.family, k)));
}

/** A case's input as JSON for a repro scene: indented, with each list of numbers on one line. */
function inputJson(input: Record<string, unknown>): string {
  // Pretty-printed JSON never has a newline inside a string, so the match is numbers only.
  return JSON.stringify(input, null, 2).replace(/\[\n\s*((?:-?\d[\d.eE+-]*|null)(?:,\n\s*(?:-?\d[\d.eE+-]*|null))*)\n\s*\]/g,
    (_, body: string) => `[${body.split(/,\n\s*/).join(', ')}]`);
}

const STYLE = `
body{margin:0;background:#0e1116;color:#d8dee9;font:13px/1.45 system-ui,sans-serif}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:20px} h2{font-size:15px;margin:22px 0 6px} h3{font-size:13px;margin:14px 0 6px;font-weight:600}
table{border-collapse:collapse;width:100%} td,th{padding:3px 8px;border-bottom:1px solid #2e3440;text-align:left}
.ok{color:#a3be8c}.fail{color:#bf616a}.amb{color:#ebcb8b}
.legend span{margin-right:12px;white-space:nowrap}
.views{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0;background:#161b22;border-radius:6px;padding:8px;width:340px}
figcaption{font-size:12px;white-space:pre-wrap;word-break:break-word;margin-top:6px}
details{font-size:12px;margin-top:4px} summary{cursor:pointer;color:#81a1c1}
pre{margin:4px 0 0;max-height:240px;overflow:auto;background:#0b0e13;padding:6px;border-radius:4px;user-select:all}
canvas{background:#0b0e13;border-radius:4px;cursor:grab;display:block}
`;

// The viewer: projects each view's wireframes with a perspective camera orbiting the boxes'
// centre; pointer drag turns it, the wheel zooms. Plain 2D canvas, no library. What each draw
// put on a canvas (segments and points per colour) is kept in window.__reportDrawn for tests.
const SCRIPT = `
const data = JSON.parse(document.getElementById('views').textContent);
const drawnByView = window.__reportDrawn = data.map(() => null);
const EDGES = [[0,1],[2,3],[4,5],[6,7],[0,2],[1,3],[4,6],[5,7],[0,4],[1,5],[2,6],[3,7]];
const BOX_COLOURS = ${JSON.stringify([VIEW_COLOURS.boxA, VIEW_COLOURS.boxB, VIEW_COLOURS.boxOther])};
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
function setup(canvas, index) {
  const view = data[index];
  const pts = view.boxes.flatMap(corners).concat(view.lines.flatMap((l) => [l[0], l[1]])).concat(view.points.map((p) => p[0]));
  const centre = [0, 1, 2].map((i) => pts.reduce((s, p) => s + p[i], 0) / Math.max(1, pts.length));
  const radius = Math.max(1e-9, ...pts.map((p) => Math.hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2])));
  let yaw = 0.7, pitch = 0.45, zoom = 1;
  const g = canvas.getContext('2d');
  let counts;
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
    counts.lines[colour] = (counts.lines[colour] || 0) + 1;
  }
  function draw() {
    counts = { lines: {}, points: {} };
    g.clearRect(0, 0, canvas.width, canvas.height);
    view.boxes.forEach((b, k) => {
      const c = corners(b);
      for (const [i, j] of EDGES) line(c[i], c[j], b.colour || BOX_COLOURS[Math.min(k, 2)], 1.2);
    });
    for (const l of view.lines) line(l[0], l[1], l[2], 2);
    for (const p of view.points) {
      const q = project(p[0]);
      g.fillStyle = p[1]; g.beginPath(); g.arc(q[0], q[1], 3.5, 0, 2 * Math.PI); g.fill();
      counts.points[p[1]] = (counts.points[p[1]] || 0) + 1;
    }
    drawnByView[index] = counts;
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
document.querySelectorAll('canvas[data-view]').forEach((c) => setup(c, Number(c.dataset.view)));
window.__reportReady = true;
`;

const swatch = (colour: string, text: string): string => `<span><b style="color:${colour}">&#9632;</b> ${text}</span>`;

// What the colours mean, once for the page.
const LEGEND = `<p class="legend">${[
  swatch(VIEW_COLOURS.boxA, 'the reference&apos;s box (a pair&apos;s A)'),
  swatch(VIEW_COLOURS.boxB, 'the implementation&apos;s box when another (a pair&apos;s B)'),
  swatch(VIEW_COLOURS.ray, 'the ray, or the reference&apos;s axis'),
  swatch(VIEW_COLOURS.reference, 'the reference&apos;s hit and face normal'),
  swatch(VIEW_COLOURS.implementation, 'the implementation&apos;s hit, face normal or axis'),
  swatch(VIEW_COLOURS.origin, 'the ray&apos;s origin'),
].join('')}<br>Short bars beside the reference&apos;s axis: each box&apos;s projection on it. What the implementation did not report is not drawn, and its caption says so.</p>`;

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
      return `<tr><td>${xmlEscape(g.name)}</td><td colspan="4" class="fail">not judged: ${xmlEscape(judgeWording(g.error ?? ''))}</td></tr>`;
    }
    const why = c.comparisons.map((x) => [...Object.entries(x.mismatchByReason).map(([k, v]) => `<span class="fail">${xmlEscape(k)} ${v}</span>`),
      ...Object.entries(x.ambiguousByReason).map(([k, v]) => `<span class="amb">${xmlEscape(k)} ${v}</span>`)].join(', ')).filter(Boolean).join('; ');
    return `<tr><td>${xmlEscape(g.name)}</td><td>${c.total}</td><td class="${c.mismatch ? 'fail' : 'ok'}">${c.mismatch}</td><td class="amb">${c.ambiguous}</td><td>${why}</td></tr>`;
  });
  const sections = groups.map((g) => {
    const picks = picksOf(g, options);
    if (picks.length === 0) {
      return '';
    }
    const parts = picks.map((p) => {
      const figures = p.cases.map((c) => {
        const v = caseView(g.name, p.family, c);
        const k = views.push(v) - 1;
        const caption = [`${v.verdict.toUpperCase()} ${v.family} ${v.reason}`, v.detail, ...v.notes].join('\n');
        return `<figure><canvas width="324" height="240" data-view="${k}" data-verdict="${v.verdict}"></canvas><figcaption>${xmlEscape(caption)}</figcaption>` +
          `<details><summary>input of case ${c.index} (JSON)</summary><pre data-input="${k}">${xmlEscape(inputJson(c.input))}</pre></details></figure>`;
      });
      const heading = `${p.family} · <span class="${p.verdict === 'mismatch' ? 'fail' : 'amb'}">${p.verdict} ${xmlEscape(p.reason)}</span>: ${p.count} case${p.count === 1 ? '' : 's'}${p.count > p.cases.length ? `, ${p.cases.length} drawn` : ''}`;
      return `<h3>${heading}</h3><div class="views">${figures.join('')}</div>`;
    });
    return `<h2>${xmlEscape(g.name)}</h2>${parts.join('')}`;
  });
  // `<` is escaped inside the JSON so that no string in it can end the script element.
  const json = JSON.stringify(views).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${xmlEscape(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${xmlEscape(title)}: <span class="${mismatch || errors ? 'fail' : 'ok'}">${mismatch || errors ? 'FAIL' : 'OK'}</span></h1>
<p>${total} cases in ${groups.length} groups: ${mismatch} mismatch, ${ambiguous} ambiguous${errors ? `, ${errors} not judged` : ''}. The implementation&apos;s answers judged against the float64 reference of webgpu-obb with its error model. Failing cases are drawn by reason, mismatches first, every reason before a second case of any; under each view, the case&apos;s input as JSON for a repro scene. Drag a view to turn it, scroll to zoom.</p>
${LEGEND}
<table><tr><th>group</th><th>cases</th><th>mismatch</th><th>ambiguous</th><th>reasons</th></tr>${rows.join('')}</table>
${sections.join('\n')}
</main>
<script id="views" type="application/json">${json}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
