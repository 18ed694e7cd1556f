/**
 * Scene files of the `webgpu-obb` command (docs/design.md, "Scene and result files"): parsing
 * and validating a scene into canonical inputs. The results a scene gives are ./results.ts; running
 * one on the CPU reference or an ObbGpu is ./run.ts.
 *
 * Browser- and Node-safe (no `node:` imports): the CLI parses in Node, the GPU page parses the
 * same text with the same code, so both backends see bit-identical canonical inputs.
 *
 * @example
 * const scene = parseScene(JSON.parse(text)); // throws SceneError('boxes[3].halfExtents[1]', …)
 */
import { boxArrayFrom, describeValue, rayArrayFrom } from '../core/canonical.ts';
import type { BoxArray, BoxInput, Ray, RayArray, Vec3 } from '../core/types.ts';
import { ValidationError } from '../errors.ts';
import { checkBoxRange, checkRayRange, defaultOrigin } from '../core/inputs.ts';
import { checkLidar, hasReturnNoise, type BoxMotion, type LidarBeam, type LidarDescription, type LidarIntensityModel, type LidarNoise, type LidarPose } from '../core/lidar.ts';
import { lidarPreset, LIDAR_PRESETS } from '../core/lidarPresets.ts';
import { FileFieldError } from './fieldError.ts';

/** Top-level scene fields that are known without being queries (ignored silently). */
const QUIET_FIELDS = new Set(['description', 'comment', '$schema']);
const SCENE_FIELDS = new Set(['boxes', 'rays', 'pairs', 'allPairs', 'lidars']);
const LIDAR_FIELDS = new Set(['sensor', 'pose', 'poseEnd', 'intensity', 'noise', 'beam', 'seed']);
const INTENSITY_FIELDS = new Set(['referenceRange', 'atmosphere']);
const NOISE_FIELDS = new Set(['rangeStdDev', 'rangeStdDevPerUnit', 'azimuthStdDevDeg', 'elevationStdDevDeg', 'dropout', 'intensityDropout']);
const INTENSITY_DROPOUT_FIELDS = new Set(['limit', 'atZero']);
const BEAM_FIELDS = new Set(['divergenceDeg', 'rings', 'samplesPerRing', 'returns', 'minSeparation']);
const SENSOR_FIELDS = new Set(['elevationsDeg', 'azimuthOffsetsDeg', 'beamOriginOffset', 'verticalOffsets', 'firingTimeOffsets', 'columns', 'azimuthStartDeg', 'azimuthEndDeg', 'minRange', 'maxRange', 'sweepTime']);
const POSE_FIELDS = new Set(['position', 'rotation']);

/**
 * A scene file that does not follow the format. `path` names the offending value in the JSON,
 * e.g. `boxes[3].halfExtents[1]`, `rays[2].direction`, `pairs[0][1]` (empty for the whole file).
 *
 * @example
 * try { parseScene(json) } catch (e) {
 *   if (e instanceof SceneError) console.error(e.message); // "boxes[3].halfExtents[1] is negative (-0.5); …"
 * }
 */
export class SceneError extends FileFieldError {
  override readonly name = 'SceneError';
}

/** One LiDAR sweep of a scene: the sensor (radians inside), its pose and, for motion, its pose at the sweep's end. */
export interface SceneLidar {
  /** The preset's name, or 'custom'. */
  readonly name: string;
  readonly desc: LidarDescription;
  readonly pose: LidarPose;
  readonly poseEnd?: LidarPose;
  /**
   * The result carries each return's `intensity`: the entry asked for it (`"intensity"`), or
   * the sweep has a returns stage (range noise, dropout, a beam), whose judging needs it.
   */
  readonly intensity: boolean;
  /** The noise seed of the sweep (`"seed"`, default 0). */
  readonly seed: number;
}

/** The boxes' materials (`reflectivity`, `classId` per box; BoxSet.setMaterials), defaults where a box gives none. */
export interface SceneMaterials {
  /** Per box, as the float32 the GPU reads (default 1). */
  readonly reflectivity: Float32Array;
  /** Per box (default 0). */
  readonly classId: Uint16Array;
}

/** A validated scene: canonical boxes and rays, flat pairs, and which queries to run. */
export interface Scene {
  readonly boxes: BoxArray;
  /** Present when the file had `rays` (possibly empty). */
  readonly rays: RayArray | undefined;
  /** Flat `[i0, j0, i1, j1, …]`; present when the file had `pairs`. */
  readonly pairs: Uint32Array | undefined;
  /** The file had `"allPairs": true`. */
  readonly allPairs: boolean;
  /** Present when the file had `lidars` (possibly empty): one sweep per sensor. */
  readonly lidars: readonly SceneLidar[] | undefined;
  /** The boxes with a `velocity` or `angularVelocity` (they move during the sweeps); undefined when none. */
  readonly boxMotion: BoxMotion | undefined;
  /** The boxes' materials, when some box gives `reflectivity` or `classId`; undefined when none. */
  readonly materials: SceneMaterials | undefined;
  /** Top-level fields the format does not know (reported as a warning by the CLI). */
  readonly unknownFields: readonly string[];
}


/** JSON.parse turns numbers beyond ±1.8e308 into ±Infinity; say so, since the file shows a number. */
function infinityHint(detail: string): string {
  return /\((-?Infinity)\)/.test(detail)
    ? `${detail}; JSON numbers beyond ±1.8e308 read as Infinity`
    : detail;
}

/** Re-states a ValidationError from boxArrayFrom/rayArrayFrom with a JSON path. */
function fromValidation(list: 'boxes' | 'rays', error: ValidationError): SceneError {
  const prefix = `${error.index === undefined ? error.kind : `${error.kind} ${error.index}`}: ${error.field} `;
  const detail = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const item = error.index === undefined ? list : `${list}[${error.index}]`;
  // 'value' is the whole item ("is not an object"); anything else is a field of it.
  const path = error.field === 'value' ? item : `${item}.${error.field}`;
  return new SceneError(path, infinityHint(detail));
}

function parseList<T>(list: 'boxes' | 'rays', value: unknown, convert: (items: readonly unknown[]) => T): T {
  if (!Array.isArray(value)) {
    throw new SceneError(list, `must be an array (got ${describeValue(value)})`);
  }
  try {
    return convert(value as readonly unknown[]);
  } catch (error) {
    if (error instanceof ValidationError) {
      throw fromValidation(list, error);
    }
    throw error;
  }
}

function parsePairs(value: unknown, boxCount: number): Uint32Array {
  if (!Array.isArray(value)) {
    throw new SceneError('pairs', `must be an array of [i, j] box index pairs (got ${describeValue(value)})`);
  }
  const out = new Uint32Array(2 * value.length);
  const range = boxCount > 0 ? `0..${boxCount - 1}` : 'there are no boxes';
  value.forEach((pair: unknown, k) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new SceneError(`pairs[${k}]`, `must be an array of two box indices [i, j] (got ${describeValue(pair)})`);
    }
    pair.forEach((x: unknown, c) => {
      const path = `pairs[${k}][${c}]`;
      if (typeof x !== 'number') {
        throw new SceneError(path, `is not a number (got ${describeValue(x)})`);
      }
      if (!Number.isInteger(x) || x < 0 || x >= boxCount) {
        throw new SceneError(path, `= ${x} is not a box index (${range})`);
      }
      out[2 * k + c] = x;
    });
  });
  return out;
}

/**
 * A scene must run on both backends: the GPU re-bases positions to the centre of the box
 * centres' bounds (the BoxSet default) and accepts magnitudes up to GPU_MAX_COORDINATE from
 * there, so a finite but huge number (1e300) is refused here, naming the value, rather than
 * turning into an infinity on the GPU.
 */
function checkSceneRange(boxes: BoxArray, rays: RayArray | undefined): void {
  // Absolute magnitudes first, so the message names the huge value itself; then the distances
  // from the origin the GPU will use (a spread beyond the range with no single huge value).
  const zero: Vec3 = [0, 0, 0];
  for (const origin of [zero, defaultOrigin(boxes)]) {
    try {
      checkBoxRange(boxes, origin);
    } catch (error) {
      throw error instanceof ValidationError ? fromValidation('boxes', error) : error;
    }
    try {
      if (rays) {
        checkRayRange(rays, origin);
      }
    } catch (error) {
      throw error instanceof ValidationError ? fromValidation('rays', error) : error;
    }
  }
}

function finiteVector(value: unknown, n: number, path: string): number[] {
  if (!Array.isArray(value) || value.length !== n) {
    throw new SceneError(path, `must be an array of ${n} numbers (got ${describeValue(value)})`);
  }
  value.forEach((x: unknown, k) => {
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new SceneError(`${path}[${k}]`, infinityHint(`is not a finite number (got ${describeValue(x)})`));
    }
  });
  return value as number[];
}

function rejectUnknownKeys(value: object, known: ReadonlySet<string>, path: string): void {
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new SceneError(path, `has unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${[...known].join(', ')})`);
  }
}

function asObject(value: unknown, path: string, what: string): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SceneError(path, `must be ${what} (got ${describeValue(value)})`);
  }
  return value as Readonly<Record<string, unknown>>;
}

function parsePose(value: unknown, path: string): LidarPose {
  const rec = asObject(value, path, 'a pose { "position": [x, y, z], "rotation": [x, y, z, w] }');
  rejectUnknownKeys(rec, POSE_FIELDS, path);
  const position = finiteVector(rec['position'], 3, `${path}.position`) as unknown as LidarPose['origin'];
  if (rec['rotation'] === undefined) {
    return { origin: position };
  }
  const rotation = finiteVector(rec['rotation'], 4, `${path}.rotation`) as unknown as NonNullable<LidarPose['rotation']>;
  if (!(Math.hypot(...rotation) > 0)) {
    throw new SceneError(`${path}.rotation`, 'must be a non-zero quaternion [x, y, z, w]');
  }
  return { origin: position, rotation };
}

const DEG = Math.PI / 180;

/** A sensor of a scene file (degrees in the names) as a description (radians), or a preset by name. */
function parseSensor(value: unknown, path: string): { name: string; desc: LidarDescription } {
  if (typeof value === 'string') {
    if (!Object.hasOwn(LIDAR_PRESETS, value)) {
      throw new SceneError(path, `is not a known sensor ("${value}"; known: ${Object.keys(LIDAR_PRESETS).join(', ')})`);
    }
    return { name: value, desc: lidarPreset(value) };
  }
  const rec = asObject(value, path, 'a preset name or a sensor { "elevationsDeg": […], "columns": N, "maxRange": R, … }');
  rejectUnknownKeys(rec, SENSOR_FIELDS, path);
  const degrees = (key: string): number[] | undefined => {
    const v = rec[key];
    if (v === undefined) {
      return undefined;
    }
    if (!Array.isArray(v) || v.length === 0) {
      throw new SceneError(`${path}.${key}`, `must be a non-empty array of degrees (got ${describeValue(v)})`);
    }
    return finiteVector(v, v.length, `${path}.${key}`).map((x) => x * DEG);
  };
  // Per-channel tables in world units or seconds (verticalOffsets, firingTimeOffsets), as given.
  const perChannel = (key: string): number[] | undefined => {
    const v = rec[key];
    if (v === undefined) {
      return undefined;
    }
    if (!Array.isArray(v) || v.length === 0) {
      throw new SceneError(`${path}.${key}`, `must be a non-empty array of numbers, one per channel (got ${describeValue(v)})`);
    }
    return finiteVector(v, v.length, `${path}.${key}`);
  };
  const number = (key: string): number | undefined => {
    const v = rec[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) {
      throw new SceneError(`${path}.${key}`, infinityHint(`is not a finite number (got ${describeValue(v)})`));
    }
    return v as number | undefined;
  };
  const elevations = degrees('elevationsDeg');
  if (!elevations) {
    throw new SceneError(`${path}.elevationsDeg`, 'is missing (one elevation per channel, degrees)');
  }
  const columns = number('columns');
  const maxRange = number('maxRange');
  if (columns === undefined) {
    throw new SceneError(`${path}.columns`, 'is missing (columns per sweep)');
  }
  if (maxRange === undefined) {
    throw new SceneError(`${path}.maxRange`, 'is missing (world units)');
  }
  const optional: Record<string, number | readonly number[] | undefined> = {
    azimuthOffsets: degrees('azimuthOffsetsDeg'),
    azimuthStart: number('azimuthStartDeg') === undefined ? undefined : number('azimuthStartDeg')! * DEG,
    azimuthEnd: number('azimuthEndDeg') === undefined ? undefined : number('azimuthEndDeg')! * DEG,
    beamOriginOffset: number('beamOriginOffset'),
    verticalOffsets: perChannel('verticalOffsets'),
    firingTimeOffsets: perChannel('firingTimeOffsets'),
    minRange: number('minRange'),
    sweepTime: number('sweepTime'),
  };
  const desc = { elevations, azimuthSteps: columns, maxRange, ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) } as LidarDescription;
  try {
    checkLidar(desc);
  } catch (error) {
    if (error instanceof ValidationError) {
      const key = ({ elevations: 'elevationsDeg', azimuthSteps: 'columns', azimuthOffsets: 'azimuthOffsetsDeg', azimuthStart: 'azimuthStartDeg', azimuthEnd: 'azimuthEndDeg' } as Record<string, string>)[error.field] ?? error.field;
      throw new SceneError(`${path}.${key}`, error.message.replace(/^argument( \d+)?: \S+ /, ''));
    }
    throw error;
  }
  return { name: 'custom', desc };
}

/** A number of an object of the file, or undefined when absent; not a finite number: SceneError. */
function optionalNumber(rec: Readonly<Record<string, unknown>>, key: string, path: string): number | undefined {
  const v = rec[key];
  if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) {
    throw new SceneError(`${path}.${key}`, infinityHint(`is not a finite number (got ${describeValue(v)})`));
  }
  return v as number | undefined;
}

/** Drops the undefined entries (exactOptionalPropertyTypes). */
function defined<T extends object>(rec: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(rec).filter(([, v]) => v !== undefined)) as T;
}

/** A lidar entry's `"intensity"`: true / false (report it with the default model, or not), or the model (reported). */
function parseIntensity(value: unknown, path: string): { report: boolean; model: LidarIntensityModel | undefined } {
  if (value === undefined || typeof value === 'boolean') {
    return { report: value === true, model: undefined };
  }
  const rec = asObject(value, path, 'true, false or an intensity model { "referenceRange"?, "atmosphere"? }');
  rejectUnknownKeys(rec, INTENSITY_FIELDS, path);
  return { report: true, model: defined<LidarIntensityModel>({ referenceRange: optionalNumber(rec, 'referenceRange', path), atmosphere: optionalNumber(rec, 'atmosphere', path) }) };
}

/** A lidar entry's `"noise"` (angular σ in degrees in the names, as the sensor's angles). */
function parseNoise(value: unknown, path: string): LidarNoise {
  const rec = asObject(value, path, 'a noise { "rangeStdDev"?, "rangeStdDevPerUnit"?, "azimuthStdDevDeg"?, "elevationStdDevDeg"?, "dropout"?, "intensityDropout"? }');
  rejectUnknownKeys(rec, NOISE_FIELDS, path);
  const deg = (key: string): number | undefined => {
    const v = optionalNumber(rec, key, path);
    return v === undefined ? undefined : v * DEG;
  };
  let intensityDropout: LidarNoise['intensityDropout'];
  if (rec['intensityDropout'] !== undefined) {
    const at = `${path}.intensityDropout`;
    const d = asObject(rec['intensityDropout'], at, 'an intensity dropout { "limit", "atZero" }');
    rejectUnknownKeys(d, INTENSITY_DROPOUT_FIELDS, at);
    const limit = optionalNumber(d, 'limit', at);
    const atZero = optionalNumber(d, 'atZero', at);
    if (limit === undefined || atZero === undefined) {
      throw new SceneError(`${at}.${limit === undefined ? 'limit' : 'atZero'}`, 'is missing (an intensity dropout needs "limit" and "atZero")');
    }
    intensityDropout = { limit, atZero };
  }
  return defined<LidarNoise>({
    rangeStdDev: optionalNumber(rec, 'rangeStdDev', path), rangeStdDevPerUnit: optionalNumber(rec, 'rangeStdDevPerUnit', path),
    azimuthStdDev: deg('azimuthStdDevDeg'), elevationStdDev: deg('elevationStdDevDeg'), dropout: optionalNumber(rec, 'dropout', path), intensityDropout,
  });
}

/** A lidar entry's `"beam"` (divergence in degrees in the name). */
function parseBeam(value: unknown, path: string): LidarBeam {
  const rec = asObject(value, path, 'a beam { "divergenceDeg": [h, v], "rings"?, "samplesPerRing"?, "returns"?, "minSeparation"? }');
  rejectUnknownKeys(rec, BEAM_FIELDS, path);
  if (rec['divergenceDeg'] === undefined) {
    throw new SceneError(`${path}.divergenceDeg`, 'is missing (the full divergences [horizontal, vertical], degrees)');
  }
  const [h, v] = finiteVector(rec['divergenceDeg'], 2, `${path}.divergenceDeg`);
  const returns = rec['returns'];
  if (returns !== undefined && returns !== 'strongest' && returns !== 'last' && returns !== 'dual') {
    throw new SceneError(`${path}.returns`, `must be "strongest", "last" or "dual" (got ${describeValue(returns)})`);
  }
  return defined<LidarBeam>({
    divergence: [h! * DEG, v! * DEG], rings: optionalNumber(rec, 'rings', path), samplesPerRing: optionalNumber(rec, 'samplesPerRing', path),
    returns, minSeparation: optionalNumber(rec, 'minSeparation', path),
  });
}

/** checkLidar's field (`noise.azimuthStdDev`) as the file's path under the lidar entry (`noise.azimuthStdDevDeg`). */
const ENTRY_KEYS: Readonly<Record<string, string>> = {
  'noise.azimuthStdDev': 'noise.azimuthStdDevDeg', 'noise.elevationStdDev': 'noise.elevationStdDevDeg', 'beam.divergence': 'beam.divergenceDeg',
};

function parseLidars(value: unknown, boxes: BoxArray): SceneLidar[] {
  if (!Array.isArray(value)) {
    throw new SceneError('lidars', `must be an array of { "sensor", "pose", "poseEnd"? } (got ${describeValue(value)})`);
  }
  return value.map((item: unknown, k) => {
    const path = `lidars[${k}]`;
    const rec = asObject(item, path, 'a sweep { "sensor", "pose", "poseEnd"? }');
    rejectUnknownKeys(rec, LIDAR_FIELDS, path);
    const { name, desc: sensor } = parseSensor(rec['sensor'], `${path}.sensor`);
    if (rec['pose'] === undefined) {
      throw new SceneError(`${path}.pose`, 'is missing (the sensor\'s { "position", "rotation" })');
    }
    const pose = parsePose(rec['pose'], `${path}.pose`);
    const poseEnd = rec['poseEnd'] === undefined ? undefined : parsePose(rec['poseEnd'], `${path}.poseEnd`);
    // What the beam sees: the entry's intensity model, noise and beam join the sensor's description.
    const intensity = parseIntensity(rec['intensity'], `${path}.intensity`);
    const noise = rec['noise'] === undefined ? undefined : parseNoise(rec['noise'], `${path}.noise`);
    const beam = rec['beam'] === undefined ? undefined : parseBeam(rec['beam'], `${path}.beam`);
    const desc: LidarDescription = {
      ...sensor, ...(intensity.model ? { intensity: intensity.model } : {}), ...(noise ? { noise } : {}), ...(beam ? { beam } : {}),
    };
    if (desc !== sensor) {
      try {
        checkLidar(desc);
      } catch (error) {
        if (error instanceof ValidationError && /^(intensity|noise|beam)\b/.test(error.field)) {
          const key = ENTRY_KEYS[error.field] ?? error.field;
          throw new SceneError(`${path}.${key}`, error.message.replace(/^argument( \d+)?: \S+ /, ''));
        }
        throw error;
      }
    }
    const seed = rec['seed'];
    if (seed !== undefined && !(typeof seed === 'number' && Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32)) {
      throw new SceneError(`${path}.seed`, `must be an integer in [0, 2^32) (got ${typeof seed === 'number' ? seed : describeValue(seed)})`);
    }
    // The sensor must be within the GPU's coordinate range of the boxes' floating origin, as a ray's origin.
    for (const [where, p] of [['pose', pose], ['poseEnd', poseEnd]] as const) {
      if (p) {
        try {
          checkRayRange({ count: 1, data: Float64Array.of(...p.origin, 1, 0, 0, desc.maxRange) }, defaultOrigin(boxes));
        } catch (error) {
          throw error instanceof ValidationError ? new SceneError(`${path}.${where}.position`, error.message.replace(/^ray( \d+)?: origin /, '')) : error;
        }
      }
    }
    const out = { name, desc, pose, intensity: intensity.report || hasReturnNoise(desc) || desc.beam !== undefined, seed: (seed as number | undefined) ?? 0 };
    return poseEnd ? { ...out, poseEnd } : out;
  });
}

/** The boxes' `reflectivity` ([0, 1]) and `classId` (0 … 65535), as BoxSet.setMaterials takes them; undefined when no box gives either. */
function parseMaterials(items: readonly unknown[]): SceneMaterials | undefined {
  let any = false;
  const reflectivity = new Float32Array(items.length).fill(1);
  const classId = new Uint16Array(items.length);
  items.forEach((item, i) => {
    const rec = item as Readonly<Record<string, unknown>>;
    const rho = rec['reflectivity'];
    const id = rec['classId'];
    if (rho !== undefined) {
      if (typeof rho !== 'number' || !(rho >= 0 && rho <= 1)) {
        throw new SceneError(`boxes[${i}].reflectivity`, `must be a number in [0, 1] (got ${typeof rho === 'number' ? rho : describeValue(rho)})`);
      }
      reflectivity[i] = rho;
      any = true;
    }
    if (id !== undefined) {
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 0xffff) {
        throw new SceneError(`boxes[${i}].classId`, `must be an integer in [0, 65535] (got ${typeof id === 'number' ? id : describeValue(id)})`);
      }
      classId[i] = id;
      any = true;
    }
  });
  return any ? { reflectivity, classId } : undefined;
}

/** The boxes' `velocity` and `angularVelocity` (world units/s, rad/s), as one BoxMotion; undefined when no box has either. */
function parseBoxMotion(items: readonly unknown[]): BoxMotion | undefined {
  const boxes: number[] = [];
  const velocity: number[] = [];
  const angularVelocity: number[] = [];
  items.forEach((item, i) => {
    const rec = item as Readonly<Record<string, unknown>>;
    const v = rec['velocity'];
    const w = rec['angularVelocity'];
    if (v === undefined && w === undefined) {
      return;
    }
    boxes.push(i);
    velocity.push(...(v === undefined ? [0, 0, 0] : finiteVector(v, 3, `boxes[${i}].velocity`)));
    angularVelocity.push(...(w === undefined ? [0, 0, 0] : finiteVector(w, 3, `boxes[${i}].angularVelocity`)));
  });
  return boxes.length === 0 ? undefined : { boxes, velocity, angularVelocity };
}

/**
 * Validates a parsed scene JSON value and returns its canonical form. Throws {@link SceneError}
 * naming the first bad value; unknown top-level fields are tolerated (listed in `unknownFields`).
 *
 * @example
 * const scene = parseScene({ boxes: [{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }],
 *                            rays: [{ origin: [-10, 0, 0], direction: [1, 0, 0] }] });
 * scene.boxes.count // 1
 */
export function parseScene(json: unknown): Scene {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new SceneError('', `the scene must be a JSON object with a "boxes" array (got ${describeValue(json)})`);
  }
  const rec = json as Readonly<Record<string, unknown>>;
  if (rec['boxes'] === undefined) {
    throw new SceneError('boxes', 'is missing (a scene needs "boxes": [ … ])');
  }
  const boxes = parseList('boxes', rec['boxes'], (items) => boxArrayFrom(items as readonly BoxInput[]));
  const rays = rec['rays'] === undefined
    ? undefined
    : parseList('rays', rec['rays'], (items) => rayArrayFrom(items as readonly Ray[]));
  checkSceneRange(boxes, rays);
  const pairs = rec['pairs'] === undefined ? undefined : parsePairs(rec['pairs'], boxes.count);
  const all = rec['allPairs'];
  if (all !== undefined && typeof all !== 'boolean') {
    throw new SceneError('allPairs', `must be true or false (got ${describeValue(all)})`);
  }
  const lidars = rec['lidars'] === undefined ? undefined : parseLidars(rec['lidars'], boxes);
  const boxMotion = parseBoxMotion(rec['boxes'] as readonly unknown[]);
  const materials = parseMaterials(rec['boxes'] as readonly unknown[]);
  const unknownFields = Object.keys(rec).filter((k) => !SCENE_FIELDS.has(k) && !QUIET_FIELDS.has(k));
  return { boxes, rays, pairs, allPairs: all === true, lidars, boxMotion, materials, unknownFields };
}

/**
 * Parses scene text (a file's contents). JSON syntax errors become a {@link SceneError} too.
 *
 * @example
 * parseSceneText('{"boxes": []}').boxes.count // 0
 */
export function parseSceneText(text: string): Scene {
  let json: unknown;
  try {
    // Editors on Windows may start the file with a byte-order mark, which JSON.parse rejects.
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SceneError('', `not valid JSON (${why.replace(/\s+/g, ' ')})`);
  }
  return parseScene(json);
}

/** "1 box", "3 boxes". */
/** `n` with the singular or plural noun, for progress lines: `1 ray`, `1,024 rays`. */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "300 boxes, 1000 rays, 200 pairs, all pairs". */
export function describeScene(scene: Scene): string {
  const parts = [count(scene.boxes.count, 'box', 'boxes')];
  if (scene.rays) {
    parts.push(count(scene.rays.count, 'ray', 'rays'));
  }
  if (scene.pairs) {
    parts.push(count(scene.pairs.length / 2, 'pair', 'pairs'));
  }
  if (scene.allPairs) {
    parts.push('all pairs');
  }
  if (scene.lidars) {
    const rays = scene.lidars.reduce((n, l) => n + l.desc.elevations.length * l.desc.azimuthSteps, 0);
    parts.push(`${count(scene.lidars.length, 'LiDAR sweep', 'LiDAR sweeps')} (${count(rays, 'ray', 'rays')})`);
  }
  if (scene.boxMotion) {
    parts.push(`${count(scene.boxMotion.boxes.length, 'moving box', 'moving boxes')}`);
  }
  return parts.join(', ');
}
