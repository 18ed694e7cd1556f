/**
 * LiDAR presets (src/core/lidarPresets.ts) and the Ouster metadata importer (src/core/ouster.ts):
 * every preset is a valid description with its source's channel count and order (spot-checked
 * against the cited tables); each vendor's published point formula, evaluated here independently,
 * lands on this contract's ray (origin + t · direction from lidarRays) to 1e-9 — the sign test;
 * the importer reads both metadata layouts, the column window, the extrinsic, and names bad fields.
 *
 * The Ouster metadata here are synthetic files written in the documented layouts (field names and
 * nesting as in the metadata.json files of ouster-lidar/ouster-sdk tests/metadata: legacy flat
 * `beam_altitude_angles` / `lidar_mode` / `data_format`, nested `beam_intrinsics` /
 * `config_params` / `lidar_data_format` / `lidar_intrinsics`), so no third-party file is copied.
 */
import { describe, expect, it } from 'vitest';
import { LIDAR_PRESETS, lidarPreset } from '../../src/core/lidarPresets.ts';
import { lidarFromOusterMetadata, ousterLidarToSensorPose } from '../../src/core/ouster.ts';
import { checkLidar, columnAngle, columnTime, poseAxes, type LidarDescription } from '../../src/core/lidar.ts';
import { lidarRays } from '../../src/reference/lidar.ts';
import { ValidationError } from '../../src/errors.ts';

const DEG = Math.PI / 180;
const NAMES = ['velodyne-vlp16', 'velodyne-vlp32c', 'velodyne-hdl32e', 'hesai-pandar64', 'ouster-os1-64-sample'];
const CHANNELS: Record<string, number> = {
  'velodyne-vlp16': 16,
  'velodyne-vlp32c': 32,
  'velodyne-hdl32e': 32,
  'hesai-pandar64': 64,
  'ouster-os1-64-sample': 64,
};

type V3 = [number, number, number];

/** The point at distance t along ray (channel c, column a) of a description, sensor frame, identity pose. */
function contractPoint(desc: LidarDescription, c: number, a: number, t: number): V3 {
  const rays = lidarRays(desc, { origin: [0, 0, 0] });
  const o = (c * desc.azimuthSteps + a) * 7;
  const d = rays.data;
  return [d[o]! + t * d[o + 3]!, d[o + 1]! + t * d[o + 4]!, d[o + 2]! + t * d[o + 5]!];
}

function expectClose(actual: readonly number[], expected: readonly number[], tol: number): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((x, k) => {
    expect(Math.abs(x - expected[k]!), `component ${k}: ${x} vs ${expected[k]}`).toBeLessThan(tol);
  });
}

function validationError(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('LIDAR_PRESETS', () => {
  it('lists the sourced presets, frozen', () => {
    expect(Object.keys(LIDAR_PRESETS)).toEqual(NAMES);
    expect(Object.isFrozen(LIDAR_PRESETS)).toBe(true);
    for (const spec of Object.values(LIDAR_PRESETS)) {
      expect(Object.isFrozen(spec)).toBe(true);
      expect(Object.isFrozen(spec.elevations)).toBe(true);
      expect(spec.source.length).toBeGreaterThan(0);
    }
  });

  it.each(NAMES)('%s passes checkLidar with its cited channel count and a clockwise sweep', (name) => {
    const desc = lidarPreset(name);
    expect(() => checkLidar(desc)).not.toThrow();
    expect(desc.elevations).toHaveLength(CHANNELS[name]!);
    if (desc.azimuthOffsets) {
      expect(desc.azimuthOffsets).toHaveLength(CHANNELS[name]!);
    }
    // Every one of these sensors spins clockwise seen from above: the encoder angle decreases.
    expect(desc.azimuthEnd! - desc.azimuthStart!).toBeCloseTo(-2 * Math.PI, 12);
    expect(desc.maxRange).toBeGreaterThan(desc.minRange!);
    // A fresh copy each call: the frozen table is not handed out.
    expect(desc.elevations).not.toBe(LIDAR_PRESETS[name]!.elevations);
  });

  it('VLP-16 keeps the laser-ID order of its table', () => {
    // VLP-16 User Manual 63-9243 Rev D, Table 9-1: laser ID 0 −15°, 1 1°, 2 −13°, 3 3°, …, 14 −1°, 15 15°.
    const e = lidarPreset('velodyne-vlp16').elevations.map((x) => x / DEG);
    expectClose(e, Array.from({ length: 16 }, (_, c) => (c % 2 === 0 ? -15 + c : c)), 1e-12);
    expect(lidarPreset('velodyne-vlp16').azimuthOffsets).toBeUndefined();
  });

  it('VLP-32C matches the manual: elevations by laser ID and δ = −(clockwise manual offset)', () => {
    const d = lidarPreset('velodyne-vlp32c');
    const e = d.elevations.map((x) => x / DEG);
    const off = d.azimuthOffsets!.map((x) => x / DEG);
    // VLP-32C User Manual 63-9325 Rev C, Table 9-6 (elevation by laser ID): 0 → −25°, 3 → −15.639°,
    // 5 → 0°, 29 → 15°, 30 → 10.333°.
    expect(e[0]).toBeCloseTo(-25, 9);
    expect(e[3]).toBeCloseTo(-15.639, 3);
    expect(e[5]).toBe(0);
    expect(e[29]).toBeCloseTo(15, 9);
    expect(e[30]).toBeCloseTo(10.333, 3);
    // Table 9-2 (laser ID, elevation, azimuth offset δ, clockwise): 14 0.667° +4.2°, 15 −4° −1.4°,
    // 17 1.667° −4.2°, 29 15° −1.4°, 31 −1.333° −1.4°. Counter-clockwise here: the negatives.
    const table: [number, number, number][] = [[14, 0.667, 4.2], [15, -4, -1.4], [17, 1.667, -4.2], [29, 15, -1.4], [31, -1.333, -1.4]];
    for (const [id, elev, delta] of table) {
      expect(e[id]).toBeCloseTo(elev, 3);
      expect(off[id]).toBeCloseTo(-delta, 9);
    }
  });

  it('HDL-32E matches the manual firing-sequence table (rounded to 0.01°)', () => {
    const e = lidarPreset('velodyne-hdl32e').elevations.map((x) => x / DEG);
    // HDL-32E User's Manual, Laser Firing Sequence: DSR 0 −30.67°, 1 −9.33°, 15 0.00°, 30 −10.67°, 31 10.67°.
    const table: [number, number][] = [[0, -30.67], [1, -9.33], [15, 0], [30, -10.67], [31, 10.67]];
    for (const [id, elev] of table) {
      expect(Math.abs(e[id]! - elev)).toBeLessThan(0.006);
    }
  });

  it('Pandar64 runs top to bottom with Hesai offsets negated', () => {
    const d = lidarPreset('hesai-pandar64');
    const e = d.elevations.map((x) => x / DEG);
    for (let c = 1; c < e.length; c++) {
      expect(e[c]).toBeLessThan(e[c - 1]!);
    }
    // Hesai SDK Pandar64 defaults: channel 1 14.882° (offset −1.042°), channel 9 1.522° (+5.208°),
    // channel 64 −24.897°; the user manual's example, channel 5 offset −1.042° (clockwise positive).
    expect(e[0]).toBeCloseTo(14.882, 9);
    expect(e[63]).toBeCloseTo(-24.897, 9);
    expect(d.azimuthOffsets![0]! / DEG).toBeCloseTo(1.042, 9);
    expect(d.azimuthOffsets![4]! / DEG).toBeCloseTo(1.042, 9);
    expect(d.azimuthOffsets![8]! / DEG).toBeCloseTo(-5.208, 9);
  });

  it('the OS1-64 sample is the published unit: beam 0 highest, descending, n = 12.163 mm', () => {
    const d = lidarPreset('ouster-os1-64-sample');
    const e = d.elevations.map((x) => x / DEG);
    for (let c = 1; c < e.length; c++) {
      expect(e[c]).toBeLessThan(e[c - 1]!);
    }
    // ouster-sdk tests/metadata/2_0_0_os1-991913000010-64.json: beam 0 altitude 16.729°, azimuth
    // 3.073°; beam 63 −16.679°, −3.071°; lidar_origin_to_beam_origin_mm 12.163; "1024x10".
    expect(e[0]).toBeCloseTo(16.729, 9);
    expect(e[63]).toBeCloseTo(-16.679, 9);
    expect(d.azimuthOffsets![0]! / DEG).toBeCloseTo(-3.073, 9);
    expect(d.azimuthOffsets![63]! / DEG).toBeCloseTo(3.071, 9);
    expect(d.beamOriginOffset).toBeCloseTo(0.012163, 12);
    expect(d.azimuthSteps).toBe(1024);
    expect(d.sweepTime).toBeCloseTo(0.1, 12);
    expect([d.minRange, d.maxRange]).toEqual([0.8, 120]);
  });

  it('default columns follow the firing cycle at the rotation rate; columns and sweepTime override', () => {
    expect(lidarPreset('velodyne-vlp16').azimuthSteps).toBe(1808); // 0.1 s / 55.296 µs
    expect(lidarPreset('velodyne-vlp16').sweepTime).toBeCloseTo(0.1, 15);
    expect(lidarPreset('velodyne-vlp32c', { sweepTime: 0.05 }).azimuthSteps).toBe(904);
    expect(lidarPreset('velodyne-hdl32e').azimuthSteps).toBe(2170); // 0.1 s / 46.08 µs
    expect(lidarPreset('hesai-pandar64').azimuthSteps).toBe(1800); // 0.1 s / 55.56 µs
    expect(lidarPreset('velodyne-vlp16', { columns: 900, sweepTime: 0.2 })).toMatchObject({ azimuthSteps: 900, sweepTime: 0.2 });
    // Ouster columns come from the mode, not the rate.
    expect(lidarPreset('ouster-os1-64-sample', { sweepTime: 0.05 }).azimuthSteps).toBe(1024);
    expect(lidarPreset('ouster-os1-64-sample', { columns: 2048 }).azimuthSteps).toBe(2048);
    // sweepTime 0: a still sweep with the preset's columns.
    expect(lidarPreset('velodyne-vlp16', { sweepTime: 0 }).azimuthSteps).toBe(1808);
  });

  it('refuses an unknown name, listing the known ones, and bad options', () => {
    const e = validationError(() => lidarPreset('velodyne-vlp64'));
    expect(e.field).toBe('sensor');
    for (const name of NAMES) {
      expect(e.message).toContain(name);
    }
    expect(validationError(() => lidarPreset('toString')).field).toBe('sensor');
    expect(validationError(() => lidarPreset('velodyne-vlp16', { columns: 0 })).field).toBe('columns');
    expect(validationError(() => lidarPreset('velodyne-vlp16', { columns: 1.5 })).field).toBe('columns');
    expect(validationError(() => lidarPreset('velodyne-vlp16', { sweepTime: -1 })).field).toBe('sweepTime');
    expect(validationError(() => lidarPreset('velodyne-vlp16', { rpm: 600 } as never)).field).toBe('options');
  });
});

describe('the vendors’ point formulas land on the contract rays (sign test)', () => {
  // Raw table rows, copied here from the cited files so that the check does not read the preset:
  // [laser, vert_correction, rot_correction] (radians, ros-drivers/velodyne params/*.yaml).
  const VELODYNE_ROWS: Record<string, [number, number, number][]> = {
    'velodyne-vlp16': [[0, -0.2617993877991494, 0], [1, 0.017453292519943295, 0], [15, 0.2617993877991494, 0]],
    'velodyne-vlp32c': [[0, -0.4363323129985824, -0.024434609527920613], [1, -0.017453292519943295, 0.07330382858376185], [14, 0.011641346110802179, -0.07330382858376185], [29, 0.2617993877991494, 0.024434609527920613]],
    'velodyne-hdl32e': [[0, -0.5352924815866609, 0], [15, 0, 0], [31, 0.18622663118779495, 0]],
  };

  it.each(Object.keys(VELODYNE_ROWS))('Velodyne %s: ros-drivers rawdata.cc, ROS frame', (name) => {
    const desc = lidarPreset(name, { columns: 360 });
    for (const [c, omega, rho] of VELODYNE_ROWS[name]!) {
      for (const [a, d] of [[0, 7.5], [45, 20], [170, 55.5], [311, 3]] as const) {
        // RawData::unpack: α = encoder azimuth (grows with time), rot = α − rot_correction,
        // x_v = xy sin(rot), y_v = xy cos(rot), z = d sin(vert_correction); ROS x = y_v, y = −x_v.
        const rot = (2 * Math.PI * a) / desc.azimuthSteps - rho;
        const xy = d * Math.cos(omega);
        const ros: V3 = [xy * Math.cos(rot), -xy * Math.sin(rot), d * Math.sin(omega)];
        expectClose(contractPoint(desc, c, a, d), ros, 1e-9);
      }
    }
  });

  it('Hesai: HesaiLidar_General_SDK CalcL64PointXYZIT, Hesai frame', () => {
    const desc = lidarPreset('hesai-pandar64', { columns: 400 });
    // [channel index, elevation °, horizontal offset ° (clockwise)]: the SDK's Pandar64 defaults, copied.
    const rows: [number, number, number][] = [[0, 14.882, -1.042], [8, 1.522, 5.208], [9, 1.351, -5.208], [63, -24.897, -1.042]];
    for (const [c, elevDeg, offsetDeg] of rows) {
      for (const [a, d] of [[0, 12], [99, 40], [250, 2.5], [399, 150]] as const) {
        // β = block azimuth + horizontal offset (degrees, clockwise, 0° on +y); x = xy sin β, y = xy cos β.
        const beta = ((360 * a) / desc.azimuthSteps + offsetDeg) * DEG;
        const omega = elevDeg * DEG;
        const xy = d * Math.cos(omega);
        expectClose(contractPoint(desc, c, a, d), [xy * Math.sin(beta), xy * Math.cos(beta), d * Math.sin(omega)], 1e-9);
      }
    }
  });
});

/** A synthetic OS1-like beam table (degrees): 16 beams, the staggered azimuth pattern of a 4-column optic. */
const ALT = Array.from({ length: 16 }, (_, i) => 15.5 - (31 * i) / 15 + 0.01 * ((i * 7) % 5));
const AZI = Array.from({ length: 16 }, (_, i) => [3.1, 0.9, -1.2, -3.3][i % 4]! + 0.01 * i);

function nestedMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    beam_intrinsics: { beam_altitude_angles: ALT, beam_azimuth_angles: AZI, lidar_origin_to_beam_origin_mm: 15.806, beam_to_lidar_transform: [1, 0, 0, 15.806, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] },
    config_params: { lidar_mode: '1024x10' },
    lidar_data_format: { columns_per_frame: 1024, pixels_per_column: 16, column_window: [0, 1023] },
    lidar_intrinsics: { lidar_to_sensor_transform: [-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 36.18, 0, 0, 0, 1] },
    sensor_info: { prod_line: 'OS-1-16' },
    ...extra,
  };
}

function legacyMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    beam_altitude_angles: ALT,
    beam_azimuth_angles: AZI,
    lidar_origin_to_beam_origin_mm: 12.163,
    lidar_mode: '2048x10',
    data_format: { columns_per_frame: 2048, pixels_per_column: 16, column_window: [2014, 2036] },
    lidar_to_sensor_transform: [-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 38.195, 0, 0, 0, 1],
    prod_line: 'OS-1-16',
    ...extra,
  };
}

/**
 * Ouster's documented Lidar Range to XYZ (lidar frame, mm in, metres out): θ_enc = 2π(1 − j/W),
 * θ_az = −2π·beam_azimuth/360, φ = 2π·beam_altitude/360, x = (r − n) cos(θ_enc + θ_az) cos φ +
 * n cos θ_enc, y = (r − n) sin(θ_enc + θ_az) cos φ + n sin θ_enc, z = (r − n) sin φ.
 */
function ousterXyz(rMm: number, j: number, W: number, altDeg: number, azDeg: number, nMm: number): V3 {
  const enc = 2 * Math.PI * (1 - j / W);
  const az = (-2 * Math.PI * azDeg) / 360;
  const phi = (2 * Math.PI * altDeg) / 360;
  return [
    ((rMm - nMm) * Math.cos(enc + az) * Math.cos(phi) + nMm * Math.cos(enc)) / 1000,
    ((rMm - nMm) * Math.sin(enc + az) * Math.cos(phi) + nMm * Math.sin(enc)) / 1000,
    ((rMm - nMm) * Math.sin(phi)) / 1000,
  ];
}

describe('lidarFromOusterMetadata', () => {
  it('nested layout: Ouster’s formula at (range, column, beam) equals origin + (r − n)·direction', () => {
    const meta = nestedMeta();
    const desc = lidarFromOusterMetadata(meta, { maxRange: 120, minRange: 0.5 });
    expect(desc).toMatchObject({ azimuthSteps: 1024, beamOriginOffset: 0.015806, minRange: 0.5, maxRange: 120 });
    expect(desc.sweepTime).toBeCloseTo(0.1, 15);
    expect([desc.azimuthStart, desc.azimuthEnd]).toEqual([2 * Math.PI, 0]);
    for (const [rMm, j, i] of [[5000, 0, 0], [12345, 1, 3], [80000, 256, 7], [2500, 511, 15], [60000, 1023, 10], [900, 777, 4]] as const) {
      const t = (rMm - 15.806) / 1000;
      expectClose(contractPoint(desc, i, j, t), ousterXyz(rMm, j, 1024, ALT[i]!, AZI[i]!, 15.806), 1e-9);
    }
  });

  it('legacy layout with a column window: column a is measurement column s + a, timed from it', () => {
    const desc = lidarFromOusterMetadata(legacyMeta(), { maxRange: 90 });
    expect(desc.azimuthSteps).toBe(2036 - 2014 + 1);
    expect(desc.sweepTime).toBeCloseTo((23 / 2048) * 0.1, 15);
    expect(desc.minRange).toBeUndefined();
    expect(columnTime(desc, 1)).toBeCloseTo(0.1 / 2048, 15);
    for (const [rMm, a, i] of [[7000, 0, 0], [40000, 11, 9], [1500, 22, 15]] as const) {
      const t = (rMm - 12.163) / 1000;
      expectClose(contractPoint(desc, i, a, t), ousterXyz(rMm, 2014 + a, 2048, ALT[i]!, AZI[i]!, 12.163), 1e-9);
    }
  });

  it('a window wrapping through column 0 keeps the encoder angles', () => {
    const meta = nestedMeta({ lidar_data_format: { columns_per_frame: 1024, column_window: [1000, 23] } });
    const desc = lidarFromOusterMetadata(meta, { maxRange: 50 });
    expect(desc.azimuthSteps).toBe(48);
    for (const [a, i] of [[0, 2], [23, 5], [24, 6], [47, 13]] as const) {
      const j = (1000 + a) % 1024;
      const enc = 2 * Math.PI * (1 - j / 1024);
      const theta = columnAngle(desc, a);
      expect(Math.abs(Math.cos(theta) - Math.cos(enc)) + Math.abs(Math.sin(theta) - Math.sin(enc))).toBeLessThan(1e-12);
      expectClose(contractPoint(desc, i, a, 30 - 0.015806), ousterXyz(30000, j, 1024, ALT[i]!, AZI[i]!, 15.806), 1e-9);
    }
  });

  it('FW 1.x style files: no data format (or an error string there), mode only; JSON text accepted', () => {
    const meta = legacyMeta({ data_format: undefined });
    delete meta.data_format;
    const desc = lidarFromOusterMetadata(JSON.stringify(meta), { maxRange: 100 });
    expect(desc.azimuthSteps).toBe(2048);
    const nested = lidarFromOusterMetadata(nestedMeta({ lidar_data_format: 'error: Command not recognized.' }), { maxRange: 100 });
    expect(nested.azimuthSteps).toBe(1024);
    // Without beam_to_lidar_transform the offset comes from lidar_origin_to_beam_origin_mm.
    const bi = { beam_altitude_angles: ALT, beam_azimuth_angles: AZI, lidar_origin_to_beam_origin_mm: 27.67 };
    expect(lidarFromOusterMetadata(nestedMeta({ beam_intrinsics: bi }), { maxRange: 100 }).beamOriginOffset).toBeCloseTo(0.02767, 15);
  });

  it('reproduces the OS1-64 sample preset from the same numbers in the nested layout', () => {
    const preset = lidarPreset('ouster-os1-64-sample');
    const alt = preset.elevations.map((e) => e / DEG);
    const az = preset.azimuthOffsets!.map((d) => -d / DEG);
    const desc = lidarFromOusterMetadata({
      beam_intrinsics: { beam_altitude_angles: alt, beam_azimuth_angles: az, lidar_origin_to_beam_origin_mm: 12.163 },
      config_params: { lidar_mode: '1024x10' },
    }, { minRange: 0.8, maxRange: 120 });
    expect(desc.azimuthSteps).toBe(preset.azimuthSteps);
    expectClose(desc.elevations, preset.elevations, 1e-15);
    expectClose(desc.azimuthOffsets!, preset.azimuthOffsets!, 1e-15);
  });

  it('names the missing or bad field', () => {
    const cases: [() => unknown, string][] = [
      [() => lidarFromOusterMetadata(nestedMeta()), 'maxRange'],
      [() => lidarFromOusterMetadata(nestedMeta(), {}), 'maxRange'],
      [() => lidarFromOusterMetadata(42, { maxRange: 1 }), 'metadata'],
      [() => lidarFromOusterMetadata('{not json', { maxRange: 1 }), 'metadata'],
      [() => lidarFromOusterMetadata({ sensor_info: {} }, { maxRange: 1 }), 'metadata'],
      [() => lidarFromOusterMetadata(nestedMeta({ beam_intrinsics: { beam_azimuth_angles: AZI, lidar_origin_to_beam_origin_mm: 1 } }), { maxRange: 1 }), 'beam_intrinsics.beam_altitude_angles'],
      [() => lidarFromOusterMetadata(nestedMeta({ beam_intrinsics: { beam_altitude_angles: ALT, lidar_origin_to_beam_origin_mm: 1 } }), { maxRange: 1 }), 'beam_intrinsics.beam_azimuth_angles'],
      [() => lidarFromOusterMetadata(nestedMeta({ beam_intrinsics: { beam_altitude_angles: ALT, beam_azimuth_angles: AZI.slice(1), lidar_origin_to_beam_origin_mm: 1 } }), { maxRange: 1 }), 'beam_intrinsics.beam_azimuth_angles'],
      [() => lidarFromOusterMetadata(nestedMeta({ beam_intrinsics: { beam_altitude_angles: ALT, beam_azimuth_angles: AZI } }), { maxRange: 1 }), 'beam_intrinsics.lidar_origin_to_beam_origin_mm'],
      [() => lidarFromOusterMetadata(legacyMeta({ beam_altitude_angles: [...ALT.slice(1), 'x'] }), { maxRange: 1 }), 'beam_altitude_angles'],
      [() => lidarFromOusterMetadata(legacyMeta({ lidar_origin_to_beam_origin_mm: undefined }), { maxRange: 1 }), 'lidar_origin_to_beam_origin_mm'],
      [() => lidarFromOusterMetadata(legacyMeta({ lidar_mode: undefined }), { maxRange: 1 }), 'lidar_mode'],
      [() => lidarFromOusterMetadata(nestedMeta({ config_params: { lidar_mode: '1024x' } }), { maxRange: 1 }), 'config_params.lidar_mode'],
      [() => lidarFromOusterMetadata(nestedMeta({ lidar_data_format: { columns_per_frame: 512 } }), { maxRange: 1 }), 'lidar_data_format.columns_per_frame'],
      [() => lidarFromOusterMetadata(nestedMeta({ lidar_data_format: { pixels_per_column: 32 } }), { maxRange: 1 }), 'beam_intrinsics.beam_altitude_angles'],
      [() => lidarFromOusterMetadata(nestedMeta({ lidar_data_format: { column_window: [0, 1024] } }), { maxRange: 1 }), 'lidar_data_format.column_window[1]'],
      [() => lidarFromOusterMetadata(legacyMeta({ data_format: { column_window: [5] } }), { maxRange: 1 }), 'data_format.column_window'],
      [() => lidarFromOusterMetadata(nestedMeta({ beam_intrinsics: { beam_altitude_angles: ALT, beam_azimuth_angles: AZI, beam_to_lidar_transform: [1, 0, 0, 27.1, 0, 1, 0, 0, 0, 0, 1, 5.2, 0, 0, 0, 1] } }), { maxRange: 1 }), 'beam_intrinsics.beam_to_lidar_transform'],
      [() => lidarFromOusterMetadata(legacyMeta({ beam_altitude_angles: ALT.map((a, i) => (i === 3 ? 95 : a)) }), { maxRange: 1 }), 'elevations'],
      [() => lidarFromOusterMetadata(nestedMeta(), { maxRange: -1 }), 'maxRange'],
      [() => lidarFromOusterMetadata(nestedMeta(), { maxRange: 10, minRange: 20 }), 'minRange'],
    ];
    for (const [fn, field] of cases) {
      const e = validationError(fn);
      expect(e.field, e.message).toBe(field);
    }
  });
});

describe('ousterLidarToSensorPose', () => {
  it('turns lidar-frame points into the sensor frame as M · p does (both layouts)', () => {
    for (const [meta, zMm] of [[nestedMeta(), 36.18], [legacyMeta(), 38.195]] as const) {
      const pose = ousterLidarToSensorPose(meta);
      expectClose(pose.origin, [0, 0, zMm / 1000], 1e-15);
      // 180° about z: the sensor frame's +x is the lidar frame's −x (Ouster: lidar +x points at the connector).
      expectClose(pose.rotation!, [0, 0, 1, 0], 1e-15);
      const [ax, ay, az] = poseAxes(pose);
      const desc = lidarFromOusterMetadata(meta, { maxRange: 100 });
      const p = contractPoint(desc, 5, 3, 10);
      const sensor = [0, 1, 2].map((k) => pose.origin[k]! + p[0] * ax[k]! + p[1] * ay[k]! + p[2] * az[k]!);
      // M = [[-1,0,0,0],[0,-1,0,0],[0,0,1,z],[0,0,0,1]] (mm) applied to p (m).
      expectClose(sensor, [-p[0], -p[1], p[2] + zMm / 1000], 1e-12);
    }
  });

  it('handles a general rotation and names a missing or non-rigid transform', () => {
    const c = Math.cos(0.3);
    const s = Math.sin(0.3);
    // Rotation by 0.3 rad about x, translation (10, −20, 30) mm.
    const pose = ousterLidarToSensorPose({ lidar_to_sensor_transform: [1, 0, 0, 10, 0, c, -s, -20, 0, s, c, 30, 0, 0, 0, 1] });
    expectClose(pose.origin, [0.01, -0.02, 0.03], 1e-15);
    expectClose(pose.rotation!, [Math.sin(0.15), 0, 0, Math.cos(0.15)], 1e-12);
    expect(validationError(() => ousterLidarToSensorPose({ beam_intrinsics: {} })).field).toBe('lidar_to_sensor_transform');
    expect(validationError(() => ousterLidarToSensorPose({ lidar_intrinsics: {} })).field).toBe('lidar_intrinsics.lidar_to_sensor_transform');
    expect(validationError(() => ousterLidarToSensorPose({ lidar_to_sensor_transform: [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] })).field).toBe('lidar_to_sensor_transform');
    expect(validationError(() => ousterLidarToSensorPose({ lidar_to_sensor_transform: [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] })).message).toContain('reflection');
    expect(validationError(() => ousterLidarToSensorPose({ lidar_to_sensor_transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1] })).message).toContain('[0, 0, 0, 1]');
  });
});
