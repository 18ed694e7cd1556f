/**
 * Reading a result file written by any implementation (docs/design.md, "Scene and result files")
 * against the scene it answers, strictly: every entry present, of the right shape and in range,
 * or a {@link ResultError} naming the first one that is not (`rays[17].t is not a
 * number`). What comes out is the typed form the comparator reads: per ray the box, t, the face
 * its normal names and the inside flag; per pair the overlap, gap and axis; the all-pairs list
 * flat and sorted.
 *
 * Browser- and Node-safe.
 *
 * @example
 * const typed = parseResult(JSON.parse(text), scene); // throws ResultError('rays[3].normal', …)
 */
import { FACE_NONE, SAT_AXIS_NAMES } from '../constants.ts';
import { describeValue } from '../core/canonical.ts';
import { BOX_F64 } from '../core/types.ts';
import type { ClosestHits, PairResults } from '../core/queries.ts';
import type { Scene } from '../files/scene.ts';
import { FileFieldError } from '../files/fieldError.ts';
import { hasReturnNoise } from '../core/lidar.ts';
import { beamPassDescriptions } from '../reference/lidar.ts';

/**
 * A result file that does not answer its scene: malformed, incomplete, or out of range. `path`
 * names the value, e.g. `rays[3].normal[1]`, `allPairs[12]`, `pairs` (empty for the whole file).
 */
export class ResultError extends FileFieldError {
  override readonly name = 'ResultError';
}

/** One LiDAR sweep of a result file in typed form. */
export interface ParsedSweep {
  readonly range: Float64Array;
  readonly box: Int32Array;
  readonly returnsPerBox: Uint32Array;
  /** Each return's intensity (0 where none), when the scene's entry gives rise to it. */
  readonly intensity?: Float64Array;
  /** A sensor with a beam: each beam's returns (0 to 2). */
  readonly returnCount?: Uint8Array;
  /** A beam in 'dual' mode: each beam's second return. */
  readonly second?: ParsedImages;
  /** A sweep with a returns stage: each sub-ray pass's hits before it. */
  readonly passes?: readonly ParsedImages[];
}

/** Range (−1 = none), box (−1) and intensity per ray. */
export interface ParsedImages {
  readonly range: Float64Array;
  readonly box: Int32Array;
  readonly intensity: Float64Array;
}

/**
 * Which fields a result reports, where an implementation computes less than the whole answer
 * (judged on what is present, and said so): rays `box` (else any-hit flags only), `t`,
 * `normal`, `inside`; pairs `gap`, `axis` (else the overlap decision only).
 */
export interface ResultFields {
  readonly rays?: { readonly box: boolean; readonly t: boolean; readonly normal: boolean; readonly inside: boolean };
  readonly pairs?: { readonly gap: boolean; readonly axis: boolean };
}

/** A result file in typed form (what {@link judgeScene} compares). */
export interface ParsedResult {
  readonly backend: string;
  readonly adapter: string;
  /** The scene the result says it answers (`"scene": "sha256:…"`), when it says. */
  readonly scene?: string;
  /** The fields reported, when not all are (absent: a complete result). */
  readonly fields?: ResultFields;
  /**
   * Closest hits; `face` is the face the entry's normal names (FACE_NONE without one). In a
   * result without boxes (any-hit flags only) `box` is 0 for a hit and −1 for a miss.
   */
  readonly hits?: ClosestHits;
  /** Per ray: the entry gave a normal that is not one of its box's face normals. */
  readonly badNormal?: Uint8Array;
  readonly pairs?: PairResults;
  /** Flat sorted `[i0, j0, …]`, i < j. */
  readonly allPairs?: Uint32Array;
  /** One per scene sweep: range (−1 = no return) and box (−1) images, and the returns per box. */
  readonly lidars?: readonly ParsedSweep[];
  /** Top-level fields the format does not know. */
  readonly unknownFields: readonly string[];
}

const RESULT_FIELDS = new Set(['backend', 'adapter', 'scene', 'rays', 'pairs', 'allPairs', 'lidars']);
const QUIET_FIELDS = new Set(['description', 'comment', '$schema', 'implementation', 'precision']);
const AXIS_IDS = new Map<string, number>(SAT_AXIS_NAMES.map((n, k) => [n, k]));

/** A face normal must be within this of a box axis (cosine), or it names no face. */
const FACE_COSINE = 0.999;

function record(value: unknown, path: string): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ResultError(path, `must be an object (got ${describeValue(value)})`);
  }
  return value as Readonly<Record<string, unknown>>;
}

function list(value: unknown, path: string, length?: number, what = 'entries'): readonly unknown[] {
  if (!Array.isArray(value)) {
    throw new ResultError(path, `must be an array (got ${describeValue(value)})`);
  }
  if (length !== undefined && value.length !== length) {
    throw new ResultError(path, `has ${value.length} ${what}; the scene has ${length}`);
  }
  return value;
}

/**
 * A distance or gap as the implementation wrote it: a number, or what a NaN or an infinity
 * becomes in JSON (`null` from JSON.stringify, or the strings "NaN", "Infinity", "-Infinity").
 * Such values are answers, judged as mismatches ('not-finite'), not malformed files.
 */
function answerNumber(value: unknown, path: string): number {
  if (typeof value === 'number') {
    return value;
  }
  if (value === null || value === 'NaN') {
    return NaN;
  }
  if (value === 'Infinity' || value === '+Infinity' || value === '-Infinity') {
    return value === '-Infinity' ? -Infinity : Infinity;
  }
  throw new ResultError(path, `is not a number (got ${describeValue(value)})`);
}

function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ResultError(path, `is not a finite number (got ${describeValue(value)})`);
  }
  return value;
}

function vec3(value: unknown, path: string): [number, number, number] {
  const v = list(value, path);
  if (v.length !== 3) {
    throw new ResultError(path, `must be three numbers (got ${v.length})`);
  }
  return [finite(v[0], `${path}[0]`), finite(v[1], `${path}[1]`), finite(v[2], `${path}[2]`)];
}

function boxIndex(value: unknown, path: string, count: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= count) {
    throw new ResultError(path, `is not a box index (0..${count - 1}; got ${typeof value === 'number' ? value : describeValue(value)})`);
  }
  return value;
}

function flag(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') {
    throw new ResultError(path, `must be true or false (got ${describeValue(value)})`);
  }
  return value;
}

function only(rec: Readonly<Record<string, unknown>>, path: string, fields: readonly string[]): void {
  for (const k of Object.keys(rec)) {
    if (!fields.includes(k)) {
      throw new ResultError(`${path}.${k}`, `is not a field of this entry (${fields.join(', ')})`);
    }
  }
}

/** The face of box `b` whose outward normal `n` is (FACE_NONE when it is none of them). */
export function faceOfNormal(scene: Scene, b: number, n: readonly [number, number, number]): number {
  const d = scene.boxes.data;
  const len = Math.hypot(n[0], n[1], n[2]);
  if (!(len > 0)) {
    return FACE_NONE;
  }
  for (let k = 0; k < 3; k++) {
    const o = b * BOX_F64.STRIDE + BOX_F64.U + 3 * k;
    const c = (n[0] * d[o]! + n[1] * d[o + 1]! + n[2] * d[o + 2]!) / len;
    if (c >= FACE_COSINE) {
      return 2 * k;
    }
    if (c <= -FACE_COSINE) {
      return 2 * k + 1;
    }
  }
  return FACE_NONE;
}

function parseRays(value: unknown, scene: Scene): { hits: ClosestHits; badNormal: Uint8Array; fields: NonNullable<ResultFields['rays']> } {
  const n = scene.rays!.count;
  const items = list(value, 'rays', n);
  const box = new Int32Array(n).fill(-1);
  const t = new Float64Array(n).fill(Infinity);
  const face = new Uint8Array(n).fill(FACE_NONE);
  const inside = new Uint8Array(n);
  const badNormal = new Uint8Array(n);
  // A field is reported when the first hit has it (normals: when any hit has one, since an
  // origin inside a solid box has none); every other hit must then agree.
  let fields: { box: boolean; t: boolean; normal: boolean; inside: boolean } | undefined;
  let first = -1;
  items.forEach((item, r) => {
    const path = `rays[${r}]`;
    const e = record(item, path);
    const hit = flag(e['hit'], `${path}.hit`);
    if (!hit) {
      only(e, path, ['hit']);
      return;
    }
    only(e, path, ['hit', 'box', 't', 'point', 'normal', 'inside']);
    if (!fields) {
      fields = { box: e['box'] !== undefined, t: e['t'] !== undefined, normal: false, inside: e['inside'] !== undefined };
      first = r;
    }
    for (const k of ['box', 't', 'inside'] as const) {
      if ((e[k] !== undefined) !== fields[k]) {
        throw new ResultError(`${path}.${k}`, `is ${fields[k] ? 'missing' : 'present'}, but rays[${first}] ${fields[k] ? 'has' : 'has no'} ${k}: every hit reports the same fields`);
      }
    }
    if (!fields.box && (e['t'] !== undefined || e['normal'] !== undefined || e['inside'] !== undefined)) {
      throw new ResultError(path, 'reports t, normal or inside without the box they belong to');
    }
    if (e['point'] !== undefined) {
      vec3(e['point'], `${path}.point`);
    }
    box[r] = fields.box ? boxIndex(e['box'], `${path}.box`, scene.boxes.count) : 0;
    t[r] = fields.t ? answerNumber(e['t'], `${path}.t`) : Infinity;
    inside[r] = fields.inside && flag(e['inside'], `${path}.inside`) ? 1 : 0;
    if (e['normal'] !== undefined) {
      fields.normal = true;
      const f = faceOfNormal(scene, box[r], vec3(e['normal'], `${path}.normal`));
      face[r] = f;
      badNormal[r] = f === FACE_NONE ? 1 : 0;
    }
  });
  return { hits: { count: n, box, t, face, inside }, badNormal, fields: fields ?? { box: true, t: true, normal: true, inside: true } };
}

function parsePairs(value: unknown, scene: Scene): { pairs: PairResults; fields: NonNullable<ResultFields['pairs']> } {
  const n = scene.pairs!.length / 2;
  const items = list(value, 'pairs', n);
  const overlap = new Uint8Array(n);
  const gap = new Float64Array(n);
  const axis = new Uint8Array(n);
  let fields: { gap: boolean; axis: boolean } | undefined;
  items.forEach((item, k) => {
    const path = `pairs[${k}]`;
    const e = record(item, path);
    only(e, path, ['overlap', 'gap', 'axis']);
    fields ??= { gap: e['gap'] !== undefined, axis: e['axis'] !== undefined };
    for (const f of ['gap', 'axis'] as const) {
      if ((e[f] !== undefined) !== fields[f]) {
        throw new ResultError(`${path}.${f}`, `is ${fields[f] ? 'missing' : 'present'}, but pairs[0] ${fields[f] ? 'has' : 'has no'} ${f}: every pair reports the same fields`);
      }
    }
    if (fields.axis && !fields.gap) {
      throw new ResultError(`${path}.axis`, 'is reported without the gap along it');
    }
    overlap[k] = flag(e['overlap'], `${path}.overlap`) ? 1 : 0;
    gap[k] = fields.gap ? answerNumber(e['gap'], `${path}.gap`) : NaN;
    if (fields.axis) {
      const a = e['axis'];
      const id = typeof a === 'string' ? AXIS_IDS.get(a) : undefined;
      if (id === undefined) {
        throw new ResultError(`${path}.axis`, `is not a SAT axis name (A0…A2, B0…B2, AixBj; got ${describeValue(a)})`);
      }
      axis[k] = id;
    }
  });
  return { pairs: { count: n, overlap, gap, axis }, fields: fields ?? { gap: true, axis: true } };
}

function parseAllPairs(value: unknown, scene: Scene): Uint32Array {
  const items = list(value, 'allPairs');
  const out = new Uint32Array(2 * items.length);
  items.forEach((item, k) => {
    const path = `allPairs[${k}]`;
    const p = list(item, path);
    if (p.length !== 2) {
      throw new ResultError(path, `must be a pair [i, j] (got ${p.length} numbers)`);
    }
    const i = boxIndex(p[0], `${path}[0]`, scene.boxes.count);
    const j = boxIndex(p[1], `${path}[1]`, scene.boxes.count);
    if (i >= j) {
      throw new ResultError(path, `= [${i}, ${j}] does not have i < j (each pair is listed once, i < j)`);
    }
    if (k > 0) {
      const pi = out[2 * k - 2]!, pj = out[2 * k - 1]!;
      if (pi > i || (pi === i && pj >= j)) {
        throw new ResultError(path, `= [${i}, ${j}] ${pi === i && pj === j ? 'repeats the pair before it' : `comes after [${pi}, ${pj}]: the list must be sorted`}`);
      }
    }
    out[2 * k] = i;
    out[2 * k + 1] = j;
  });
  return out;
}

/** A range and a box image (−1 for both where there is no return), checked entry by entry. */
function parseImages(e: Readonly<Record<string, unknown>>, path: string, n: number, boxCount: number): { range: Float64Array; box: Int32Array } {
  const ranges = list(e['range'], `${path}.range`, n, 'ranges');
  const boxes = list(e['box'], `${path}.box`, n, 'boxes');
  const range = new Float64Array(n);
  const box = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const b = boxes[r];
    box[r] = b === -1 ? -1 : boxIndex(b, `${path}.box[${r}]`, boxCount);
    const t = answerNumber(ranges[r], `${path}.range[${r}]`);
    if ((box[r] === -1) !== (t === -1) || (t < 0 && t !== -1)) {
      throw new ResultError(`${path}.range[${r}]`, `= ${t} with box ${box[r]}: a return has a range >= 0 and a box, no return has -1 for both`);
    }
    range[r] = t;
  }
  return { range, box };
}

/** An intensity image: a number per ray (the comparator judges its value, 0 where there is no return included). */
function parseIntensities(value: unknown, path: string, n: number): Float64Array {
  return Float64Array.from(list(value, path, n, 'intensities'), (x, r) => answerNumber(x, `${path}[${r}]`));
}

/** A sweep's key the scene's entry gives rise to (`comesWith`) must be there; one it does not, absent. */
function needKey(e: Readonly<Record<string, unknown>>, path: string, key: string, asked: boolean, comesWith: string): boolean {
  if (asked && e[key] === undefined) {
    throw new ResultError(`${path}.${key}`, `is missing: the scene asks for it (it comes with ${comesWith})`);
  }
  if (!asked && e[key] !== undefined) {
    throw new ResultError(`${path}.${key}`, `is present, but the scene does not ask for it (it comes with ${comesWith})`);
  }
  return asked;
}

function parseLidars(value: unknown, scene: Scene): ParsedSweep[] {
  const sweeps = scene.lidars!;
  const items = list(value, 'lidars', sweeps.length, 'sweeps');
  return items.map((item, k) => {
    const path = `lidars[${k}]`;
    const e = record(item, path);
    only(e, path, ['channels', 'columns', 'range', 'box', 'returnsPerBox', 'intensity', 'returnCount', 'second', 'passes']);
    const l = sweeps[k]!;
    const C = l.desc.elevations.length;
    const A = l.desc.azimuthSteps;
    const n = C * A;
    if (e['channels'] !== C || e['columns'] !== A) {
      throw new ResultError(path, `is ${String(e['channels'])} channels × ${String(e['columns'])} columns; the scene's sensor has ${C} × ${A}`);
    }
    const { range, box } = parseImages(e, path, n, scene.boxes.count);
    const counts = list(e['returnsPerBox'], `${path}.returnsPerBox`, scene.boxes.count, 'counts');
    const returnsPerBox = new Uint32Array(scene.boxes.count);
    counts.forEach((c, b) => {
      if (typeof c !== 'number' || !Number.isInteger(c) || c < 0) {
        throw new ResultError(`${path}.returnsPerBox[${b}]`, `is not a count (got ${typeof c === 'number' ? c : describeValue(c)})`);
      }
      returnsPerBox[b] = c;
    });
    const out: { -readonly [K in keyof ParsedSweep]: ParsedSweep[K] } = { range, box, returnsPerBox };
    // What the beam sees (docs/design.md, "LiDAR sensors in scene and result files").
    const stage = hasReturnNoise(l.desc) || l.desc.beam !== undefined;
    if (needKey(e, path, 'intensity', l.intensity, '"intensity", range noise, dropout or a beam')) {
      out.intensity = parseIntensities(e['intensity'], `${path}.intensity`, n);
    }
    if (needKey(e, path, 'returnCount', l.desc.beam !== undefined, 'a beam')) {
      const at = `${path}.returnCount`;
      out.returnCount = Uint8Array.from(list(e['returnCount'], at, n, 'counts'), (x, r) => {
        const want = box[r]! >= 0;
        if (!(x === 0 || x === 1 || x === 2) || (x === 0) === want) {
          throw new ResultError(`${at}[${r}]`, `= ${describeValue(x)} with box ${box[r]!}: a beam has 0 returns (box -1) or 1 or 2`);
        }
        return x;
      });
    }
    if (needKey(e, path, 'second', l.desc.beam?.returns === 'dual', 'a beam in dual mode')) {
      const at = `${path}.second`;
      const s = record(e['second'], at);
      only(s, at, ['range', 'box', 'intensity']);
      const images = parseImages(s, at, n, scene.boxes.count);
      images.box.forEach((b, r) => {
        if ((b >= 0) !== (out.returnCount![r] === 2)) {
          throw new ResultError(`${at}.box[${r}]`, `= ${b} with returnCount ${out.returnCount![r]!}: a beam has a second return exactly when it has 2`);
        }
      });
      out.second = { ...images, intensity: parseIntensities(s['intensity'], `${at}.intensity`, n) };
    }
    if (needKey(e, path, 'passes', stage, 'range noise, dropout or a beam: each sub-ray pass\'s hits, from which the returns are judged')) {
      const at = `${path}.passes`;
      const P = beamPassDescriptions(l.desc).length;
      out.passes = list(e['passes'], at, P, 'passes').map((p, j) => {
        const pj = `${at}[${j}]`;
        const rec = record(p, pj);
        only(rec, pj, ['range', 'box', 'intensity']);
        const images = parseImages(rec, pj, n, scene.boxes.count);
        return { ...images, intensity: parseIntensities(rec['intensity'], `${pj}.intensity`, n) };
      });
    }
    return out;
  });
}

/**
 * Validates a result file's JSON against `scene` and returns it in typed form. Throws
 * {@link ResultError} naming the first value that is missing, malformed or out of range; a
 * query the scene asked for and the file lacks is an error too (`rays is missing`).
 *
 * @example
 * const typed = parseResult(JSON.parse(text), scene);
 * typed.hits?.box[0] // -1 for a miss
 */
export function parseResult(json: unknown, scene: Scene): ParsedResult {
  const rec = record(json, '');
  const text = (k: string): string => {
    const v = rec[k];
    if (v === undefined) {
      return '';
    }
    if (typeof v !== 'string') {
      throw new ResultError(k, `must be a string (got ${describeValue(v)})`);
    }
    return v;
  };
  const out: { -readonly [K in keyof ParsedResult]: ParsedResult[K] } = {
    backend: text('backend'), adapter: text('adapter'),
    unknownFields: Object.keys(rec).filter((k) => !RESULT_FIELDS.has(k) && !QUIET_FIELDS.has(k)),
  };
  const need = (k: 'rays' | 'pairs' | 'allPairs' | 'lidars', asked: boolean): boolean => {
    if (asked && rec[k] === undefined) {
      throw new ResultError(k, `is missing: the scene asks for ${({ rays: 'closest hits', pairs: 'listed pairs', allPairs: 'all pairs', lidars: 'LiDAR sweeps' })[k]}`);
    }
    if (!asked && rec[k] !== undefined) {
      throw new ResultError(k, 'is present, but the scene does not ask for it');
    }
    return asked;
  };
  const sceneId = rec['scene'];
  if (sceneId !== undefined) {
    if (typeof sceneId !== 'string' || !/^(sha256:)?[0-9a-fA-F]{64}$/.test(sceneId)) {
      throw new ResultError('scene', `must be the scene file's SHA-256, "sha256:" and 64 hex digits (got ${describeValue(sceneId)})`);
    }
    out.scene = `sha256:${sceneId.replace(/^sha256:/, '').toLowerCase()}`;
  }
  const fields: { -readonly [K in keyof ResultFields]: ResultFields[K] } = {};
  if (need('rays', scene.rays !== undefined)) {
    const r = parseRays(rec['rays'], scene);
    out.hits = r.hits;
    out.badNormal = r.badNormal;
    if (!(r.fields.box && r.fields.t && r.fields.normal && r.fields.inside)) {
      fields.rays = r.fields;
    }
  }
  if (need('pairs', scene.pairs !== undefined)) {
    const p = parsePairs(rec['pairs'], scene);
    out.pairs = p.pairs;
    if (!(p.fields.gap && p.fields.axis)) {
      fields.pairs = p.fields;
    }
  }
  if (fields.rays || fields.pairs) {
    out.fields = fields;
  }
  if (need('allPairs', scene.allPairs)) {
    out.allPairs = parseAllPairs(rec['allPairs'], scene);
  }
  if (need('lidars', scene.lidars !== undefined)) {
    out.lidars = parseLidars(rec['lidars'], scene);
  }
  return out;
}

/**
 * Parses result-file text; JSON syntax errors become a {@link ResultError} too.
 *
 * @example
 * import { readFile } from 'node:fs/promises'; // in Node
 * parseResultText(await readFile('result.json', 'utf8'), scene)
 */
export function parseResultText(text: string, scene: Scene): ParsedResult {
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new ResultError('', `not valid JSON (${(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')})`);
  }
  return parseResult(json, scene);
}
