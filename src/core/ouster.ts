/**
 * Ouster `metadata.json` → LidarDescription: one unit's own beam calibration (every Ouster unit
 * ships its own beam angles and beam-origin offset), in this library's contract (src/core/lidar.ts:
 * radians, metres, seconds, azimuth counter-clockwise from +x about +z), plus the unit's
 * lidar-to-sensor extrinsic as a pose. Reads both layouts the Ouster SDK writes: the legacy flat one
 * (`beam_altitude_angles`, `lidar_mode`, `data_format`, … at the top level) and the newer nested one
 * (`beam_intrinsics.*`, `config_params.lidar_mode`, `lidar_data_format.*`,
 * `lidar_intrinsics.lidar_to_sensor_transform`).
 *
 * The derivation (the sign test in test/cpu/lidarPresets.test.ts checks it to 1e-9):
 * Ouster's documented "Lidar Range to XYZ" (OS1 User Guide, Release v1.14.0-beta.12, Sep 2020,
 * §8.2, copy at https://www.easymanua.ls/ouster/os1/manual?p=12; the lidar frame as defined at
 * https://ouster.com/sensor-docs/fw-user-manual/coordinate-system; the same formula is
 * `impl::make_xyz_lut` in ouster-lidar/ouster-sdk ouster_core/src/xyzlut.cpp, commit
 * 46b7bceee7995914e2f3f3facf4d78418335b2d7) gives, for range r (mm), measurement column j of W,
 * and beam i, in the *lidar* coordinate frame:
 *
 *     θ_enc = 2π (1 − j / W)            (encoder_count / 90112 = j / W)
 *     θ_az  = −2π · beam_azimuth_angles[i] / 360
 *     φ     =  2π · beam_altitude_angles[i] / 360
 *     n     = lidar_origin_to_beam_origin_mm
 *     x = (r − n) cos(θ_enc + θ_az) cos φ + n cos θ_enc
 *     y = (r − n) sin(θ_enc + θ_az) cos φ + n sin θ_enc
 *     z = (r − n) sin φ
 *
 * This contract's ray (channel c, column a) starts at n·(cos θ_a, sin θ_a, 0) and points along
 * (cos e_c cos(θ_a + δ_c), cos e_c sin(θ_a + δ_c), sin e_c). Term by term the two agree when
 * θ_a = θ_enc, δ_c = θ_az = −beam_azimuth_angles[c] (in radians: the sign flips), e_c = φ and the
 * beam-origin offset is n / 1000 m; Ouster's point at range r is then the ray's point at distance
 * t = (r − n) / 1000 m from the beam origin. Ouster's encoder angle runs from 2π down towards 0 (a
 * clockwise sweep seen from +z), so azimuthStart = 2π(1 − s/W) and azimuthEnd = azimuthStart −
 * 2π·A/W, where column a of the description is Ouster measurement column j = (s + a) mod W and
 * [s, e] is `column_window` (A = its width; without one, s = 0 and A = W: start 2π, end 0).
 * sweepTime = A / (W · f), f the frame rate of `lidar_mode` ("1024x10" = 1024 columns at 10 Hz).
 *
 * The description is in the lidar frame, +x at encoder angle 0 (towards the connector, per Ouster's
 * docs). Ouster's drivers report points in the *sensor* frame, p_sensor = M · p_lidar with
 * M = lidar_to_sensor_transform (4×4, row-major, mm): ousterLidarToSensorPose returns M as a pose,
 * to chain with mountPose. Ranges are not in the metadata and differ per model and revision, so
 * `maxRange` is required (take it from your unit's datasheet).
 *
 * Files without a beam-origin offset (FW 1.x metadata: neither `beam_to_lidar_transform` nor
 * `lidar_origin_to_beam_origin_mm`) get the value ouster-sdk gives them, its product-line default
 * by `prod_line` prefix (OUSTER_PRODUCT_LINE_BEAM_ORIGIN_MM below, with the SDK's source), so the
 * points still equal the SDK's; `options.beamOriginMm` supplies the unit's own value instead, and
 * `options.onNote` hears which one was used. The default is the product line's, not the unit's:
 * ouster-sdk's tests/metadata hold the same OS1-64 unit (991913000010) as a FW 1.12 file without
 * the field (default for "OS-1-64": 15.806 mm) and as a FW 2.0 file with 12.163 mm.
 */
import type { LidarDescription, LidarPose } from './lidar.ts';
import { checkLidar } from './lidar.ts';
import type { Quat, Vec3 } from './types.ts';
import { ValidationError } from '../errors.ts';

/**
 * Options of lidarFromOusterMetadata: the sensor's range window (Ouster's metadata has none),
 * world units = metres, and what to do where the file lacks the beam-origin offset.
 */
export interface OusterOptions {
  /** Required: returns beyond this are no return (the metadata does not say; see the datasheet). */
  readonly maxRange?: number;
  /** Returns nearer than this are dropped (default 0). */
  readonly minRange?: number;
  /**
   * The beam-origin offset n in mm, for a file that has neither `beam_to_lidar_transform` nor
   * `lidar_origin_to_beam_origin_mm` (FW 1.x files). Default: ouster-sdk's product-line default
   * (27.67 mm for `OS-0-…`, 15.806 for `OS-1-…`, 13.762 for `OS-2-…`, else 12.163). A file that
   * has the offset keeps it: a different `beamOriginMm` is refused.
   */
  readonly beamOriginMm?: number;
  /**
   * Called once per value the importer supplied because the file lacks it (today: the
   * beam-origin offset, from `beamOriginMm` or the product-line default), with a sentence saying
   * which value, where it came from, and what to pass instead.
   */
  readonly onNote?: (note: string) => void;
}

type Json = Readonly<Record<string, unknown>>;

function fail(field: string, detail: string, index?: number): never {
  throw new ValidationError('argument', index, field, detail);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function root(json: unknown): Json {
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch (e) {
      fail('metadata', `is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  if (!isObject(value)) {
    fail('metadata', 'must be the parsed object of an Ouster metadata.json (or its text)');
  }
  return value;
}

function numbers(value: unknown, field: string, length?: number): number[] {
  if (value === undefined) {
    fail(field, 'is missing');
  }
  if (!Array.isArray(value) || value.length === 0) {
    fail(field, `must be a non-empty array of numbers (got ${Array.isArray(value) ? 'an empty array' : typeof value})`);
  }
  if (length !== undefined && value.length !== length) {
    fail(field, `must hold ${length} numbers (got ${value.length})`);
  }
  return value.map((x: unknown, k) => {
    if (!(typeof x === 'number' && Number.isFinite(x))) {
      fail(field, `[${k}] is not a finite number (got ${JSON.stringify(x)})`, k);
    }
    return x;
  });
}

function integer(value: unknown, field: string, low: number, high: number): number {
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= low && value <= high)) {
    fail(field, `must be an integer in [${low}, ${high}] (got ${JSON.stringify(value)})`);
  }
  return value;
}

/** Where each field lives in the two layouts. */
interface Layout {
  readonly beams: Json;
  readonly beamPrefix: string;
  readonly mode: unknown;
  readonly modeField: string;
  /** The data-format object, when the file has one (FW 1.x files have none, or an error string). */
  readonly format: Json | undefined;
  readonly formatField: string;
}

function layout(meta: Json): Layout {
  if (isObject(meta.beam_intrinsics)) {
    const config = meta.config_params;
    return {
      beams: meta.beam_intrinsics,
      beamPrefix: 'beam_intrinsics.',
      mode: isObject(config) ? config.lidar_mode : undefined,
      modeField: 'config_params.lidar_mode',
      format: isObject(meta.lidar_data_format) ? meta.lidar_data_format : undefined,
      formatField: 'lidar_data_format',
    };
  }
  if (meta.beam_altitude_angles !== undefined) {
    return {
      beams: meta,
      beamPrefix: '',
      mode: meta.lidar_mode,
      modeField: 'lidar_mode',
      format: isObject(meta.data_format) ? meta.data_format : undefined,
      formatField: 'data_format',
    };
  }
  fail('metadata', 'has neither beam_intrinsics (the nested layout) nor beam_altitude_angles (the legacy flat layout): not an Ouster metadata.json');
}

/** Columns per frame and frame rate of a `lidar_mode` such as "1024x10". */
function parseMode(mode: unknown, field: string): { columns: number; rate: number } {
  if (mode === undefined) {
    fail(field, 'is missing (the column count and frame rate, e.g. "1024x10")');
  }
  const m = typeof mode === 'string' ? /^(\d+)x(\d+)$/.exec(mode) : null;
  const columns = m ? Number(m[1]) : 0;
  const rate = m ? Number(m[2]) : 0;
  if (!(columns > 0 && rate > 0)) {
    fail(field, `must be "<columns>x<Hz>", e.g. "1024x10" (got ${JSON.stringify(mode)})`);
  }
  return { columns, rate };
}

/**
 * ouster-sdk's beam-origin offset (mm) for a product line, used when the metadata gives none:
 * `default_lidar_origin_to_beam_origin` in ouster-lidar/ouster-sdk ouster_core/src/sensor_info.cpp
 * (commit 46b7bceee7995914e2f3f3facf4d78418335b2d7), which `parse_and_validate_intrinsics` in
 * ouster_core/src/metadata.cpp calls when `$.beam_intrinsics.lidar_origin_to_beam_origin_mm` is
 * absent (legacy files are first moved into that layout, `prod_line` into `sensor_info`).
 */
const OUSTER_PRODUCT_LINE_BEAM_ORIGIN_MM: readonly (readonly [prefix: string, mm: number])[] = [
  ['OS-0-', 27.67],
  ['OS-1-', 15.806],
  ['OS-2-', 13.762],
];
/** The same function's value for any other product line, or none: "default for gen 1". */
const OUSTER_GEN1_BEAM_ORIGIN_MM = 12.163;

/** `prod_line` where ouster-sdk reads it (nested: sensor_info.prod_line; legacy: top level), if a string. */
function productLine(meta: Json, l: Layout): string | undefined {
  const info = l.beamPrefix === '' ? meta : meta.sensor_info;
  const line = isObject(info) ? info.prod_line : undefined;
  return typeof line === 'string' ? line : undefined;
}

/**
 * The beam-origin offset n in mm: beam_to_lidar_transform's x translation (as the SDK reads it),
 * else lidar_origin_to_beam_origin_mm, else the `beamOriginMm` option, else ouster-sdk's
 * product-line default; the last two are reported through `note`.
 */
function beamOffsetMm(meta: Json, l: Layout, option: number | undefined, note: (text: string) => void): number {
  const btlField = `${l.beamPrefix}beam_to_lidar_transform`;
  const field = `${l.beamPrefix}lidar_origin_to_beam_origin_mm`;
  let fromFile: [number, string] | undefined;
  if (l.beams.beam_to_lidar_transform !== undefined) {
    const m = numbers(l.beams.beam_to_lidar_transform, btlField, 16);
    if (m[11] !== 0) {
      fail(btlField, `has a z translation (${m[11]} mm): beam origins off the z = 0 plane cannot be expressed in this contract (origin n·(cos θ, sin θ, 0))`);
    }
    if (!(m[3]! >= 0)) {
      fail(btlField, `must have a non-negative x translation (the beam-origin offset; got ${m[3]} mm)`);
    }
    fromFile = [m[3]!, btlField];
  } else if (l.beams.lidar_origin_to_beam_origin_mm !== undefined) {
    const n = l.beams.lidar_origin_to_beam_origin_mm;
    if (!(typeof n === 'number' && Number.isFinite(n) && n >= 0)) {
      fail(field, `must be a finite number >= 0 (got ${JSON.stringify(n)})`);
    }
    fromFile = [n, field];
  }
  if (fromFile !== undefined) {
    if (option !== undefined && option !== fromFile[0]) {
      fail('beamOriginMm', `(${option} mm) disagrees with the metadata's ${fromFile[1]} (${fromFile[0]} mm): beamOriginMm only supplies an offset the file lacks`);
    }
    return fromFile[0];
  }
  const missing = `the metadata has neither ${btlField} nor ${field} (as FW 1.x files)`;
  if (option !== undefined) {
    note(`beam-origin offset: ${missing}; used beamOriginMm = ${option} mm`);
    return option;
  }
  const line = productLine(meta, l);
  const match = OUSTER_PRODUCT_LINE_BEAM_ORIGIN_MM.find(([prefix]) => line?.startsWith(prefix) === true);
  const mm = match === undefined ? OUSTER_GEN1_BEAM_ORIGIN_MM : match[1];
  const why = match === undefined
    ? `ouster-sdk's gen-1 default (${line === undefined ? 'no prod_line' : `prod_line ${JSON.stringify(line)}`} matches none of ${OUSTER_PRODUCT_LINE_BEAM_ORIGIN_MM.map(([p]) => `"${p}"`).join(', ')})`
    : `ouster-sdk's default for prod_line ${JSON.stringify(line)} ("${match[0]}…")`;
  note(`beam-origin offset: ${missing}; used ${mm} mm, ${why}, as ouster-sdk does; pass beamOriginMm with your unit's value if you know it`);
  return mm;
}

/**
 * A LidarDescription from an Ouster `metadata.json` (legacy flat or nested layout; the parsed
 * object or its text): the unit's beam altitudes and azimuth offsets (degrees → radians, azimuth
 * sign flipped), its beam-origin offset (mm → m), the columns and frame rate of `lidar_mode`
 * (and `columns_per_frame` / `column_window` where the file has them), in the lidar frame with the
 * encoder's clockwise sweep (see the module header for the derivation). Where the file has no
 * beam-origin offset (FW 1.x), `options.beamOriginMm` or else ouster-sdk's product-line default
 * fills it in, and `options.onNote` is told so. Throws ValidationError naming the missing or bad
 * field; `maxRange` is required in `options`.
 *
 * @example
 * const meta = JSON.parse(await (await fetch('/os1-64.json')).text());
 * const desc = lidarFromOusterMetadata(meta, { maxRange: 120, minRange: 0.8, onNote: (note) => console.warn(note) });
 * declare const vehiclePose: LidarPose, sensorOnVehicle: LidarPose; // the vehicle in the world, the sensor's mount on it
 * const pose = mountPose(vehiclePose, mountPose(sensorOnVehicle, ousterLidarToSensorPose(meta)));
 */
export function lidarFromOusterMetadata(json: unknown, options: OusterOptions = {}): LidarDescription {
  if (typeof options !== 'object' || options === null) {
    fail('options', 'must be { maxRange, minRange?, beamOriginMm?, onNote? }');
  }
  const { maxRange, minRange, beamOriginMm, onNote } = options;
  if (maxRange === undefined) {
    fail('maxRange', "is required: Ouster's metadata.json holds no range limits (take them from the unit's datasheet)");
  }
  if (beamOriginMm !== undefined && !(typeof beamOriginMm === 'number' && Number.isFinite(beamOriginMm) && beamOriginMm >= 0)) {
    fail('beamOriginMm', `must be a finite number >= 0, in mm (got ${String(beamOriginMm)})`);
  }
  if (onNote !== undefined && typeof onNote !== 'function') {
    fail('onNote', `must be a function (got ${typeof onNote})`);
  }
  const meta = root(json);
  const l = layout(meta);
  const altitudes = numbers(l.beams.beam_altitude_angles, `${l.beamPrefix}beam_altitude_angles`);
  const azimuths = numbers(l.beams.beam_azimuth_angles, `${l.beamPrefix}beam_azimuth_angles`, altitudes.length);
  const { columns: modeColumns, rate } = parseMode(l.mode, l.modeField);
  let W = modeColumns;
  let start = 0;
  let A = W;
  if (l.format !== undefined) {
    const f = l.format;
    if (f.columns_per_frame !== undefined) {
      W = integer(f.columns_per_frame, `${l.formatField}.columns_per_frame`, 1, Number.MAX_SAFE_INTEGER);
      if (W !== modeColumns) {
        fail(`${l.formatField}.columns_per_frame`, `(${W}) disagrees with ${l.modeField} (${JSON.stringify(l.mode)})`);
      }
      A = W;
    }
    if (f.pixels_per_column !== undefined) {
      const h = integer(f.pixels_per_column, `${l.formatField}.pixels_per_column`, 1, Number.MAX_SAFE_INTEGER);
      if (h !== altitudes.length) {
        fail(`${l.beamPrefix}beam_altitude_angles`, `must hold one angle per beam (${l.formatField}.pixels_per_column = ${h}; got ${altitudes.length})`);
      }
    }
    if (f.column_window !== undefined) {
      const field = `${l.formatField}.column_window`;
      const w = numbers(f.column_window, field, 2);
      const s = integer(w[0], `${field}[0]`, 0, W - 1);
      const e = integer(w[1], `${field}[1]`, 0, W - 1);
      start = s;
      A = e >= s ? e - s + 1 : e + W - s + 1;
    }
  }
  const notes: string[] = [];
  const n = beamOffsetMm(meta, l, beamOriginMm, (text) => notes.push(text));
  const deg = Math.PI / 180;
  const azimuthStart = 2 * Math.PI * (1 - start / W);
  const desc: LidarDescription = {
    elevations: altitudes.map((a) => a * deg),
    azimuthSteps: A,
    azimuthStart,
    azimuthEnd: azimuthStart - (2 * Math.PI * A) / W,
    azimuthOffsets: azimuths.map((a) => -a * deg),
    beamOriginOffset: n / 1000,
    ...(minRange === undefined ? {} : { minRange }),
    maxRange,
    sweepTime: A / (W * rate),
  };
  checkLidar(desc);
  // Notes go out only once the description is valid, so a refused file reports its error alone.
  for (const text of notes) {
    onNote?.(text);
  }
  return desc;
}

/** The unit quaternion [x, y, z, w] of a rotation matrix (rows r0, r1, r2), Shepperd's branch choice. */
function matrixQuat(m: readonly number[]): Quat {
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = [m[0]!, m[1]!, m[2]!, m[4]!, m[5]!, m[6]!, m[8]!, m[9]!, m[10]!];
  const trace = m00 + m11 + m22;
  let q: [number, number, number, number];
  if (trace > 0) {
    const s = 2 * Math.sqrt(1 + trace);
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4];
  } else if (m00 >= m11 && m00 >= m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    q = [s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 >= m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    q = [(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    q = [(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s];
  }
  const len = Math.hypot(...q);
  return [q[0] / len, q[1] / len, q[2] / len, q[3] / len];
}

/**
 * The pose of the lidar frame (that of lidarFromOusterMetadata's description) in Ouster's sensor
 * frame, from `lidar_to_sensor_transform` (nested: `lidar_intrinsics.lidar_to_sensor_transform`;
 * legacy: top level): 4×4 row-major, translation in mm → origin in metres, rotation as a unit
 * quaternion [x, y, z, w]. Chain it with mountPose: mountPose(sensorPose, ousterLidarToSensorPose(meta))
 * is the lidar frame's pose in the world. Throws ValidationError when the field is missing or not a
 * rigid transform.
 *
 * @example
 * ousterLidarToSensorPose(JSON.parse(text)) // OS1: { origin: [0, 0, 0.03618], rotation: [0, 0, 1, 0] } (180° about z)
 */
export function ousterLidarToSensorPose(json: unknown): LidarPose {
  const meta = root(json);
  const nested = isObject(meta.lidar_intrinsics);
  const field = nested ? 'lidar_intrinsics.lidar_to_sensor_transform' : 'lidar_to_sensor_transform';
  const raw = nested ? (meta.lidar_intrinsics as Json).lidar_to_sensor_transform : meta.lidar_to_sensor_transform;
  const m = numbers(raw, field, 16);
  if (!(m[12] === 0 && m[13] === 0 && m[14] === 0 && m[15] === 1)) {
    fail(field, `must end with the row [0, 0, 0, 1] (got [${m.slice(12).join(', ')}])`);
  }
  // R must be a rotation: RᵀR = I and det R = +1 (to 1e-6: the file rounds).
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const dot = m[i]! * m[j]! + m[4 + i]! * m[4 + j]! + m[8 + i]! * m[8 + j]!;
      if (Math.abs(dot - (i === j ? 1 : 0)) > 1e-6) {
        fail(field, 'must have an orthonormal rotation part (rows 0–2, columns 0–2)');
      }
    }
  }
  const det = m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) - m[1]! * (m[4]! * m[10]! - m[6]! * m[8]!) + m[2]! * (m[4]! * m[9]! - m[5]! * m[8]!);
  if (!(det > 0)) {
    fail(field, 'must be a proper rotation (det +1), not a reflection');
  }
  const origin: Vec3 = [m[3]! / 1000, m[7]! / 1000, m[11]! / 1000];
  return { origin, rotation: matrixQuat(m) };
}
