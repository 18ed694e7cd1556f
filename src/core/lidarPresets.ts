/**
 * Presets of real spinning LiDARs as LidarDescriptions (src/core/lidar.ts: radians, metres,
 * seconds; azimuth counter-clockwise from +x about +z): each one's published per-channel elevation
 * table, its azimuth offsets where the source gives them, default columns, range window and
 * rotation rate (→ sweepTime), every number next to a comment naming its source. Channels are in
 * the source's order (laser ID / channel number), not sorted by elevation.
 *
 * Frames and signs. Each preset is in the frame of the published point conversion its table comes
 * from, so that its rays match that software's point clouds:
 * - Velodyne (ros-drivers/velodyne, velodyne_pointcloud/src/lib/rawdata.cc, RawData::unpack, at
 *   commit 29abd0e1361cb7f5eda451d2b51c35eeca45e0d5): for encoder azimuth α (the packet's
 *   `rotation`, which grows as the head turns clockwise seen from above) and a laser's
 *   `rot_correction` ρ and `vert_correction` ω, rot = α − ρ, then x_v = d cos ω sin(rot),
 *   y_v = d cos ω cos(rot), z = d sin ω, and the ROS frame is x = y_v, y = −x_v. So in the ROS frame
 *   the point lies at azimuth −α + ρ counter-clockwise from +x: θ_a = −α_a (α_a = 2π a/A, so
 *   azimuthStart 0, azimuthEnd −2π: the clockwise sweep) and δ_c = +ρ. The user manuals' azimuth
 *   offset δ (VLP-32C 63-9325 Rev C, Table 9-2) is measured clockwise, δ_manual = −ρ; the two
 *   agree for every laser listed (checked in the test).
 * - Hesai (HesaiTechnology/HesaiLidar_General_ROS, src/HesaiLidar_General_SDK/src/PandarGeneralRaw/
 *   src/pandarGeneral_internal.cc, CalcL64PointXYZIT, at commit
 *   f574bb8a680e215a6ade9bf35e0898932b2a2234): β = block azimuth + horizontal offset (clockwise
 *   positive, 0° on +y: Pandar64 user manual §3.1.4.2), x = d cos ω sin β, y = d cos ω cos β,
 *   z = d sin ω, in the Hesai frame (y towards azimuth 0°, right-handed, z up). A point there lies
 *   at π/2 − β counter-clockwise from +x: θ_a = π/2 − 2π a/A (azimuthStart π/2, azimuthEnd
 *   π/2 − 2π) and δ_c = −offset_c.
 * - Ouster (the lidar coordinate frame of Ouster's documented XYZ formula): see src/core/ouster.ts,
 *   whose importer builds the preset from the published sample unit's metadata.
 * Not modelled: the per-laser firing-time offsets inside one firing cycle (the contract fires a
 * column's channels at once; at 600 RPM a cycle of ~55 µs turns the head ~0.2°), and per-laser
 * origin offsets other than one shared beam-origin circle (Velodyne's distance / vertical /
 * horizontal offset corrections are all zero in the tables used here).
 *
 * Left out, and why:
 * - Velodyne HDL-64E: calibrated per unit, with no nominal table found. The published unit
 *   calibrations (ros-drivers/velodyne params/64e_s2.1-sztaki.yaml and 64e_s3-xiesc.yaml) carry
 *   per-laser horiz_offset_correction (±2.6 cm), vert_offset_correction (10.5–21.7 cm) and
 *   dist_correction (1.2–1.6 m) that this contract cannot express (one shared beam-origin circle);
 *   64e_utexas.yaml lacks horizontal offsets and has distance corrections up to 0.32 m.
 * - Ouster OS1-128: per-unit calibration; published sample units exist (ouster-sdk tests/metadata),
 *   but no datasheet range for their hardware revision (Rev 6/7) was found to cite. Use
 *   lidarFromOusterMetadata with your unit's metadata.json and its datasheet's maxRange.
 */
import type { LidarDescription } from './lidar.ts';
import { checkLidar } from './lidar.ts';
import { lidarFromOusterMetadata } from './ouster.ts';
import { ValidationError } from '../errors.ts';

/** One preset: a sensor's scan pattern in the contract's signs, and where it comes from. */
export interface LidarPresetSpec {
  /** Vendor and model. */
  readonly model: string;
  /** `nominal`: the vendor's table for the model; `sample unit`: one published unit's calibration. */
  readonly calibration: 'nominal' | 'sample unit';
  /** The frame the rays are in (that of the cited point conversion). */
  readonly frame: string;
  /** The source documents of the numbers. */
  readonly source: string;
  /** Elevation per channel, radians, in the source's channel order. */
  readonly elevations: readonly number[];
  /** Azimuth offset δ_c per channel, radians, counter-clockwise (absent: all zero). */
  readonly azimuthOffsets?: readonly number[];
  /** Beam-origin offset from the rotation axis, metres (absent: 0). */
  readonly beamOriginOffset?: number;
  /** Encoder angle of column 0 and the end of the sweep, radians (end < start: clockwise). */
  readonly azimuthStart: number;
  readonly azimuthEnd: number;
  /** Default columns per sweep. */
  readonly columns: number;
  /** Seconds per firing cycle, when the columns follow the rotation rate (columns = sweepTime / firingPeriod). */
  readonly firingPeriod?: number;
  /** Default seconds per revolution (1 / rotation rate). */
  readonly sweepTime: number;
  /** Range window, metres. */
  readonly minRange: number;
  readonly maxRange: number;
}

const DEG = Math.PI / 180;

/** A Velodyne table in the ROS frame of ros-drivers/velodyne: δ_c = +rot_correction, clockwise sweep from +x. */
function velodyne(vertCorrection: readonly number[], rotCorrection: readonly number[] | undefined): Pick<LidarPresetSpec, 'elevations' | 'azimuthOffsets' | 'azimuthStart' | 'azimuthEnd' | 'frame'> {
  return {
    elevations: vertCorrection,
    ...(rotCorrection === undefined ? {} : { azimuthOffsets: rotCorrection }),
    azimuthStart: 0,
    azimuthEnd: -2 * Math.PI,
    frame: 'ROS frame of ros-drivers/velodyne (x towards encoder azimuth 0, y left, z up)',
  };
}

/** Per firing cycle columns in one revolution: round(sweepTime / firingPeriod). */
function cycles(sweepTime: number, firingPeriod: number): number {
  return Math.round(sweepTime / firingPeriod);
}

// ---------------------------------------------------------------------------------------------
// Velodyne VLP-16.
// vert_correction (radians, laser IDs 0–15): ros-drivers/velodyne
// velodyne_pointcloud/params/VLP16db.yaml (commit 29abd0e1361cb7f5eda451d2b51c35eeca45e0d5);
// rot_correction and every offset correction are 0 there. Same angles as the VLP-16 User Manual
// 63-9243 Rev D, Table 9-1 (laser ID → vertical angle −15°, 1°, −13°, 3°, …, −1°, 15°).
const VLP16_VERT = [
  -0.2617993877991494, 0.017453292519943295, -0.22689280275926285, 0.05235987755982989,
  -0.19198621771937624, 0.08726646259971647, -0.15707963267948966, 0.12217304763960307,
  -0.12217304763960307, 0.15707963267948966, -0.08726646259971647, 0.19198621771937624,
  -0.05235987755982989, 0.22689280275926285, -0.017453292519943295, 0.2617993877991494,
];
// Firing cycle 55.296 µs for all 16 lasers: VLP-16 User Manual 63-9243 Rev D, §8.1 Firing Sequence.
const VLP16_CYCLE = 55.296e-6;
// 600 RPM (10 Hz): the `rpm` default of ros-drivers/velodyne velodyne_driver/src/driver/driver.cc
// and velodyne_pointcloud/launch/VLP16_points.launch (manual §8.3: 300–1200 RPM in steps of 60).
const VLP16_SWEEP = 60 / 600;

// ---------------------------------------------------------------------------------------------
// Velodyne VLP-32C.
// vert_correction and rot_correction (radians, laser IDs 0–31): ros-drivers/velodyne
// velodyne_pointcloud/params/VeloView-VLP-32C.yaml (commit 29abd0e1361cb7f5eda451d2b51c35eeca45e0d5);
// all other corrections 0. Elevations equal the VLP-32C User Manual 63-9325 Rev C, Table 9-6
// (elevation by laser ID, p. 66–67); rot_correction = −δ of its Table 9-2 (azimuth offsets ±1.4°,
// ±4.2°, p. 58), e.g. laser 14: 0.667°, δ = +4.2° ↔ rot_correction −4.2°.
const VLP32C_VERT = [
  -0.4363323129985824, -0.017453292519943295, -0.029094638630745476, -0.2729520417193932,
  -0.19739673840055869, 0.0, -0.011641346110802179, -0.15433946575385857,
  -0.12660618393966866, 0.005811946409141118, -0.005811946409141118, -0.10730284241261137,
  -0.0930784090088576, 0.02326523892908441, 0.011641346110802179, -0.06981317007977318,
  -0.08145451619057535, 0.029094638630745476, 0.017453292519943295, -0.06400122367063206,
  -0.058171823968971005, 0.058171823968971005, 0.04071853144902771, -0.04654793115068877,
  -0.05235987755982989, 0.12217304763960307, 0.08145451619057535, -0.04071853144902771,
  -0.03490658503988659, 0.2617993877991494, 0.18034487160857407, -0.02326523892908441,
];
const VLP32C_ROT = [
  -0.024434609527920613, 0.07330382858376185, -0.024434609527920613, 0.024434609527920613,
  -0.024434609527920613, 0.024434609527920613, -0.07330382858376185, 0.024434609527920613,
  -0.024434609527920613, 0.07330382858376185, -0.024434609527920613, 0.024434609527920613,
  -0.07330382858376185, 0.024434609527920613, -0.07330382858376185, 0.024434609527920613,
  -0.024434609527920613, 0.07330382858376185, -0.024434609527920613, 0.07330382858376185,
  -0.07330382858376185, 0.024434609527920613, -0.024434609527920613, 0.024434609527920613,
  -0.024434609527920613, 0.024434609527920613, -0.024434609527920613, 0.07330382858376185,
  -0.07330382858376185, 0.024434609527920613, -0.024434609527920613, 0.024434609527920613,
];
// Firing cycle 55.296 µs for all 32 lasers (fired in pairs): VLP-32C User Manual 63-9325 Rev C, §8.1.
const VLP32C_CYCLE = 55.296e-6;
// 600 RPM: ros-drivers/velodyne velodyne_pointcloud/launch/VLP-32C_points.launch `rpm` default.
const VLP32C_SWEEP = 60 / 600;

// ---------------------------------------------------------------------------------------------
// Velodyne HDL-32E.
// vert_correction (radians, laser IDs 0–31): ros-drivers/velodyne velodyne_pointcloud/params/32db.yaml
// ("standard Velodyne HDL-32E calibration parameters", commit 29abd0e1361cb7f5eda451d2b51c35eeca45e0d5);
// rot_correction and offsets 0. The HDL-32E User's Manual (Laser Firing Sequence table, p. 10)
// lists the same angles rounded to 0.01° (−30.67°, −9.33°, −29.33°, …, 10.67°).
const HDL32E_VERT = [
  -0.5352924815866609, -0.1628392174657417, -0.5119050696099369, -0.13962634015954636,
  -0.4886921905584123, -0.11641346285335104, -0.4654793115068877, -0.09302604738596851,
  -0.44209189953016365, -0.06981317007977318, -0.4188790204786391, -0.046600292773577856,
  -0.39566614142711454, -0.023212879051524585, -0.3722787294503905, 0.0,
  -0.3490658503988659, 0.023212879051524585, -0.32585297134734137, 0.046600292773577856,
  -0.30246555937061725, 0.06981317007977318, -0.2792526803190927, 0.09302604738596851,
  -0.25603980126756815, 0.11641346285335104, -0.23265238929084414, 0.13962634015954636,
  -0.20943951023931956, 0.1628392174657417, -0.18622663118779495, 0.18622663118779495,
];
// Firing cycle 46.08 µs: HDL-32E User's Manual, Appendix E (Ethernet transit timing: firing time
// = −542.592 + (packet offset / 100) · 46.08 + DSR · 1.152 µs).
const HDL32E_CYCLE = 46.08e-6;
// 600 RPM: ros-drivers/velodyne velodyne_pointcloud/launch/32e_points.launch `rpm` default.
const HDL32E_SWEEP = 60 / 600;

// ---------------------------------------------------------------------------------------------
// Hesai Pandar64.
// Elevation and horizontal (azimuth) offset per channel 1–64, degrees: the Pandar64 defaults
// `pandarGeneral_elev_angle_map` and `pandarGeneral_horizatal_azimuth_offset_map` of Hesai's SDK,
// HesaiTechnology/HesaiLidar_General_ROS src/HesaiLidar_General_SDK/src/PandarGeneralRaw/src/
// pandarGeneral_internal.cc (commit f574bb8a680e215a6ade9bf35e0898932b2a2234), used when no
// unit correction file is loaded. Each unit ships its own angle-correction file (Pandar64 user
// manual §3.1.4.2: "The accurate horizontal angle offsets are recorded in the angle correction
// file of this lidar"); the manual's example there, channel 5 offset −1.042°, matches.
const PANDAR64_ELEV_DEG = [
  14.882, 11.032, 8.059, 5.057, 3.04, 2.028, 1.86, 1.688, 1.522, 1.351, 1.184, 1.013, 0.846, 0.675,
  0.508, 0.337, 0.169, 0.0, -0.169, -0.337, -0.508, -0.675, -0.845, -1.013, -1.184, -1.351, -1.522,
  -1.688, -1.86, -2.028, -2.198, -2.365, -2.536, -2.7, -2.873, -3.04, -3.21, -3.375, -3.548, -3.712,
  -3.884, -4.05, -4.221, -4.385, -4.558, -4.72, -4.892, -5.057, -5.229, -5.391, -5.565, -5.726,
  -5.898, -6.061, -7.063, -8.059, -9.06, -9.885, -11.032, -12.006, -12.974, -13.93, -18.889, -24.897,
];
const PANDAR64_AZ_DEG = [
  -1.042, -1.042, -1.042, -1.042, -1.042, -1.042, 1.042, 3.125, 5.208, -5.208, -3.125, -1.042, 1.042,
  3.125, 5.208, -5.208, -3.125, -1.042, 1.042, 3.125, 5.208, -5.208, -3.125, -1.042, 1.042, 3.125,
  5.208, -5.208, -3.125, -1.042, 1.042, 3.125, 5.208, -5.208, -3.125, -1.042, 1.042, 3.125, 5.208,
  -5.208, -3.125, -1.042, 1.042, 3.125, 5.208, -5.208, -3.125, -1.042, 1.042, 3.125, 5.208, -5.208,
  -3.125, -1.042, -1.042, -1.042, -1.042, -1.042, -1.042, -1.042, -1.042, -1.042, -1.042, -1.042,
];
// One firing block every 55.56 µs: block64OffsetSingle_ (55.56 µs per block) in the same file.
const PANDAR64_CYCLE = 55.56e-6;
// Spin rate 600 RPM (default; 1200 optional): Pandar64 user manual §4.2.2 Function.
const PANDAR64_SWEEP = 60 / 600;

// ---------------------------------------------------------------------------------------------
// Ouster OS1-64, one published sample unit (prod_sn 991913000010, FW v2.0.0): beam_intrinsics of
// ouster-lidar/ouster-sdk tests/metadata/2_0_0_os1-991913000010-64.json (commit
// 46b7bceee7995914e2f3f3facf4d78418335b2d7), degrees, beam 0 at the top. Other units differ:
// import your own metadata.json with lidarFromOusterMetadata.
const OS1_64_ALTITUDE_DEG = [
  16.729, 16.118, 15.543, 14.995, 14.526, 13.937, 13.381, 12.837, 12.378, 11.801, 11.251, 10.704,
  10.251, 9.693, 9.138, 8.603, 8.149, 7.594, 7.049, 6.513, 6.056, 5.504, 4.961, 4.419, 3.967, 3.424,
  2.881, 2.328, 1.88, 1.337, 0.787, 0.239, -0.205, -0.756, -1.39, -1.854, -2.3, -2.839, -3.386,
  -3.935, -4.391, -4.929, -5.472, -6.028, -6.471, -7.02, -7.563, -8.116, -8.572, -9.112, -9.66,
  -10.227, -10.687, -11.226, -11.777, -12.35, -12.807, -13.347, -13.902, -14.49, -14.968, -15.504,
  -16.078, -16.679,
];
const OS1_64_AZIMUTH_DEG = [
  3.073, 0.904, -1.261, -3.384, 3.048, 0.9, -1.235, -3.335, 3.029, 0.915, -1.2, -3.301, 3.026, 0.921,
  -1.179, -3.268, 3.032, 0.933, -1.156, -3.23, 3.028, 0.953, -1.131, -3.209, 3.059, 0.976, -1.112,
  -3.182, 3.071, 0.99, -1.087, -3.155, 3.097, 1.014, -1.103, -3.133, 3.118, 1.035, -1.039, -3.116,
  3.144, 1.061, -1.013, -3.101, 3.178, 1.092, -0.993, -3.089, 3.217, 1.125, -0.972, -3.072, 3.265,
  1.159, -0.949, -3.066, 3.321, 1.204, -0.921, -3.055, 3.381, 1.252, -0.898, -3.071,
];
// lidar_origin_to_beam_origin_mm 12.163 and lidar_mode "1024x10" (1024 columns, 10 Hz), same file.
const OS1_64 = lidarFromOusterMetadata(
  {
    beam_intrinsics: { beam_altitude_angles: OS1_64_ALTITUDE_DEG, beam_azimuth_angles: OS1_64_AZIMUTH_DEG, lidar_origin_to_beam_origin_mm: 12.163 },
    config_params: { lidar_mode: '1024x10' },
  },
  // Range 0.8 m – 120 m (@ 80 % reflective lambertian target): Ouster OS1 datasheet, "OS1 High
  // Resolution Imaging LIDAR", Optical Performance (copy at
  // https://www.scribd.com/document/672435817/Ouster-OS1-Datasheet; 64-channel FOV ±16.6°).
  { minRange: 0.8, maxRange: 120 },
);

function freezeSpec(spec: LidarPresetSpec): LidarPresetSpec {
  Object.freeze(spec.elevations);
  if (spec.azimuthOffsets) {
    Object.freeze(spec.azimuthOffsets);
  }
  return Object.freeze(spec);
}

/**
 * The presets by name (frozen). Use lidarPreset(name) for a validated description.
 *
 * @example
 * Object.keys(LIDAR_PRESETS) // ['velodyne-vlp16', 'velodyne-vlp32c', 'velodyne-hdl32e', 'hesai-pandar64', 'ouster-os1-64-sample']
 * LIDAR_PRESETS['velodyne-vlp16']!.source
 */
export const LIDAR_PRESETS: Readonly<Record<string, LidarPresetSpec>> = Object.freeze({
  'velodyne-vlp16': freezeSpec({
    model: 'Velodyne VLP-16 (Puck)',
    calibration: 'nominal',
    source: 'ros-drivers/velodyne VLP16db.yaml; VLP-16 User Manual 63-9243 Rev D (Table 9-1, §8.1); VLP16_points.launch',
    ...velodyne(VLP16_VERT, undefined),
    columns: cycles(VLP16_SWEEP, VLP16_CYCLE),
    firingPeriod: VLP16_CYCLE,
    sweepTime: VLP16_SWEEP,
    // min_range 0.4 m, max_range 130 m: the defaults of ros-drivers/velodyne
    // velodyne_pointcloud/launch/VLP16_points.launch (the driver's window, not a datasheet figure).
    minRange: 0.4,
    maxRange: 130,
  }),
  'velodyne-vlp32c': freezeSpec({
    model: 'Velodyne VLP-32C (Ultra Puck)',
    calibration: 'nominal',
    source: 'ros-drivers/velodyne VeloView-VLP-32C.yaml; VLP-32C User Manual 63-9325 Rev C (Tables 9-2, 9-6, §8.1); VLP-32C_points.launch',
    ...velodyne(VLP32C_VERT, VLP32C_ROT),
    columns: cycles(VLP32C_SWEEP, VLP32C_CYCLE),
    firingPeriod: VLP32C_CYCLE,
    sweepTime: VLP32C_SWEEP,
    // min_range 0.4 m, max_range 200 m: defaults of ros-drivers/velodyne
    // velodyne_pointcloud/launch/VLP-32C_points.launch (the driver's window).
    minRange: 0.4,
    maxRange: 200,
  }),
  'velodyne-hdl32e': freezeSpec({
    model: 'Velodyne HDL-32E',
    calibration: 'nominal',
    source: "ros-drivers/velodyne 32db.yaml; HDL-32E User's Manual (Laser Firing Sequence, Figure 1, Appendix E); 32e_points.launch",
    ...velodyne(HDL32E_VERT, undefined),
    columns: cycles(HDL32E_SWEEP, HDL32E_CYCLE),
    firingPeriod: HDL32E_CYCLE,
    sweepTime: HDL32E_SWEEP,
    // Valid data range 5 cm to 100 m: HDL-32E User's Manual, Principles of Operation, Figure 1.
    minRange: 0.05,
    maxRange: 100,
  }),
  'hesai-pandar64': freezeSpec({
    model: 'Hesai Pandar64',
    calibration: 'nominal',
    source: 'HesaiLidar_General_ROS pandarGeneral_internal.cc (Pandar64 default angle maps, block timing, point window); Pandar64 user manual §3.1.4.2, §4.2.2',
    frame: 'Hesai frame of HesaiLidar_General_SDK (y towards azimuth 0°, x right, z up)',
    elevations: PANDAR64_ELEV_DEG.map((e) => e * DEG),
    azimuthOffsets: PANDAR64_AZ_DEG.map((d) => -d * DEG),
    azimuthStart: Math.PI / 2,
    azimuthEnd: Math.PI / 2 - 2 * Math.PI,
    columns: cycles(PANDAR64_SWEEP, PANDAR64_CYCLE),
    firingPeriod: PANDAR64_CYCLE,
    sweepTime: PANDAR64_SWEEP,
    // CalcL64PointXYZIT in the same file keeps returns with 0.1 m < distance <= 200 m.
    minRange: 0.1,
    maxRange: 200,
  }),
  'ouster-os1-64-sample': freezeSpec({
    model: 'Ouster OS1-64 (sample unit 991913000010)',
    calibration: 'sample unit',
    source: 'ouster-lidar/ouster-sdk tests/metadata/2_0_0_os1-991913000010-64.json; Ouster OS1 datasheet (range)',
    frame: "Ouster lidar coordinate frame (x towards encoder angle 0 and the connector, z up); Ouster's sensor frame is 180° about z from it (ousterLidarToSensorPose)",
    elevations: OS1_64.elevations,
    azimuthOffsets: OS1_64.azimuthOffsets!,
    beamOriginOffset: OS1_64.beamOriginOffset!,
    azimuthStart: OS1_64.azimuthStart!,
    azimuthEnd: OS1_64.azimuthEnd!,
    columns: OS1_64.azimuthSteps,
    sweepTime: OS1_64.sweepTime!,
    minRange: OS1_64.minRange!,
    maxRange: OS1_64.maxRange,
  }),
});

/** Options of lidarPreset. */
export interface LidarPresetOptions {
  /** Columns per sweep (default: the preset's; for presets whose columns follow the rotation rate, sweepTime / firing period). */
  readonly columns?: number;
  /** Seconds per revolution (default: the preset's default rotation rate). */
  readonly sweepTime?: number;
}

/**
 * A validated LidarDescription of a preset (see LIDAR_PRESETS; the arrays are fresh copies).
 * `sweepTime` sets the rotation rate; for presets that fire a fixed cycle (Velodyne, Hesai) the
 * default columns follow it (one per firing cycle), unless `columns` is given. The presets sweep
 * clockwise as the sensors do (azimuthEnd < azimuthStart). Throws ValidationError for an unknown
 * name (listing the known ones) or bad options.
 *
 * @example
 * const desc = lidarPreset('velodyne-vlp16');                      // 16 × 1808 rays, 10 Hz
 * const fast = lidarPreset('velodyne-vlp32c', { sweepTime: 0.05 }); // 20 Hz: 904 columns
 * const sensor = await gpu.createLidar(lidarPreset('ouster-os1-64-sample', { columns: 2048 }));
 */
export function lidarPreset(name: string, options: LidarPresetOptions = {}): LidarDescription {
  const spec = Object.hasOwn(LIDAR_PRESETS, name) ? LIDAR_PRESETS[name] : undefined;
  if (spec === undefined) {
    throw new ValidationError('argument', undefined, 'sensor', `preset ${JSON.stringify(name)} is unknown (known: ${Object.keys(LIDAR_PRESETS).join(', ')})`);
  }
  if (typeof options !== 'object' || options === null) {
    throw new ValidationError('argument', undefined, 'options', 'must be { columns?, sweepTime? }');
  }
  const unknown = Object.keys(options).filter((k) => k !== 'columns' && k !== 'sweepTime');
  if (unknown.length > 0) {
    throw new ValidationError('argument', undefined, 'options', `has unknown keys ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: columns, sweepTime)`);
  }
  const { columns, sweepTime = spec.sweepTime } = options;
  if (!(typeof sweepTime === 'number' && Number.isFinite(sweepTime) && sweepTime >= 0)) {
    throw new ValidationError('argument', undefined, 'sweepTime', `must be finite and >= 0 (got ${String(sweepTime)})`);
  }
  if (columns !== undefined && !(Number.isInteger(columns) && columns >= 1)) {
    throw new ValidationError('argument', undefined, 'columns', `must be a positive integer (got ${String(columns)})`);
  }
  const followRate = spec.firingPeriod !== undefined && sweepTime > 0 ? Math.max(1, cycles(sweepTime, spec.firingPeriod)) : spec.columns;
  const desc: LidarDescription = {
    elevations: [...spec.elevations],
    azimuthSteps: columns ?? followRate,
    azimuthStart: spec.azimuthStart,
    azimuthEnd: spec.azimuthEnd,
    ...(spec.azimuthOffsets === undefined ? {} : { azimuthOffsets: [...spec.azimuthOffsets] }),
    ...(spec.beamOriginOffset === undefined ? {} : { beamOriginOffset: spec.beamOriginOffset }),
    minRange: spec.minRange,
    maxRange: spec.maxRange,
    sweepTime,
  };
  checkLidar(desc);
  return desc;
}
