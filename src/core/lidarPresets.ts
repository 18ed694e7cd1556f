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
 *
 * Per-laser data. Two per-channel tables ride along in the spec (LIDAR_PRESETS) and in the
 * LidarDescription that lidarPreset() returns (unless `{ perLaser: false }`): `firingTimeOffsets`, the time of each laser's firing after the column's first
 * firing, from the vendors' timing tables (at 600 RPM a 55 µs cycle turns the head ~0.2°), and
 * `verticalOffsets`, the height of each laser's beam origin (Velodyne's per-laser vertical offset,
 * −15.7 mm to +27.3 mm across these presets). The horizontal beam-origin circle is modelled (beamOriginOffset); Velodyne's
 * distance and horizontal offset corrections are all zero in the tables used here (checked in the
 * test).
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
 * - Hesai Pandar64 firing times: Hesai times each channel's firing back from the end of its block
 *   (HesaiLidar_SDK_2.0 correction/firetime_correction/Pandar64_Firetime Correction File.csv), and
 *   no source read here says which instant the block's azimuth belongs to, so the offsets from
 *   that azimuth cannot be stated.
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
  /**
   * Seconds from a column's first firing (the instant its encoder azimuth is read) to each
   * channel's firing, in the source's channel order (absent: the source gives none). Each is below
   * `firingPeriod`. lidarPreset() puts it in the description (with sweepTime > 0). Channel c of column a fires at
   * columnTime(a) + firingTimeOffsets[c], when the head has turned further by
   * (azimuthEnd − azimuthStart) · firingTimeOffsets[c] / sweepTime.
   */
  readonly firingTimeOffsets?: readonly number[];
  /**
   * Height of each channel's beam origin above the sensor origin (along +z of the preset's frame),
   * metres, in the source's channel order (absent: 0). A return at range d on channel c lies at
   * (0, 0, v_c) + d · direction, as in the VLP-16 User Manual 63-9243 Rev D §9.2 ("After computing
   * X,Y,Z, apply the vertical correction in Table 9-1 … the vertical offset of the laser with
   * respect to sensor origin") and in valgur/velodyne_decoder src/packet_decoder.cpp,
   * PacketDecoder::unpackPoint (z = d sin ω + vert_offset_correction). lidarPreset() puts it in
   * the description (`verticalOffsets`).
   */
  readonly verticalOffsets?: readonly number[];
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

/**
 * Firing-time offsets from a vendor's timing rule: channel k fires slot(k) slots after the
 * column's first firing, each slot `slotNs` nanoseconds. (slot · slotNs) / 1e9 divides exact
 * integers, so each offset is the double nearest the vendor's decimal, with no Math.* call (the
 * same bits in every runtime).
 */
function firingOffsets(channels: number, slotNs: number, slot: (k: number) => number): number[] {
  return Array.from({ length: channels }, (_, k) => (slot(k) * slotNs) / 1e9);
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
// Laser k fires k · 2.304 µs after the first: VLP-16 User Manual 63-9243 Rev D §9.4 ("number the
// points in the firing sequence as 0 to 15 … (aka Laser ID)"; TimeOffset = 55.296 µs ·
// SequenceIndex + 2.304 µs · DataPointIndex, p. 62). The same in ros-drivers/velodyne rawdata.cc
// RawData::buildTimings ("VLP16", commit above) and valgur/velodyne_decoder src/packet_decoder.cpp
// (commit 08ddf97f6b7a69016d5997eea04a43ec2635c655, v3.1.0).
const VLP16_FIRE = firingOffsets(16, 2304, (k) => k);
// Vertical correction per laser ID, mm → m: VLP-16 User Manual 63-9243 Rev D, Table 9-1 ("Vertical
// Correction (mm)", VLP-16 / Puck LITE column: 11.2, −0.7, 9.7, …, 0.7, −11.2; rows 7–15 read on
// p. 54 of the copy at https://www.easymanua.ls/velodyne/vlp-16/manual?p=54, rows 0–6 their mirror
// images). valgur/velodyne_decoder src/calib_db.cpp (commit 08ddf97f…) derives all 16 as focal
// distance 41.91 mm · tan(−ω), which rounds to this table to 0.1 mm (checked in the test).
const VLP16_VOFF = [
  11.2e-3, -0.7e-3, 9.7e-3, -2.2e-3, 8.1e-3, -3.7e-3, 6.6e-3, -5.1e-3, 5.1e-3, -6.6e-3, 3.7e-3,
  -8.1e-3, 2.2e-3, -9.7e-3, 0.7e-3, -11.2e-3,
];

// ---------------------------------------------------------------------------------------------
// Velodyne VLP-16 Hi-Res (Puck Hi-Res).
// vert_correction (radians, laser IDs 0–15): ros-drivers/velodyne
// velodyne_pointcloud/params/VLP16_hires_db.yaml (commit 29abd0e1361cb7f5eda451d2b51c35eeca45e0d5);
// rot_correction and every offset correction are 0 there. Same angles as the VLP-16 User Manual
// 63-9243 Rev D, Table 9-1, Puck Hi-Res column (−10°, 0.67°, −8.67°, …, −0.67°, 10°). The driver
// reads it with VLP16_points.launch (calibration:=VLP16_hires_db.yaml; the VLP-16 unpacker serves
// every 16-laser table), so firing cycle, timing, rate and range are the VLP-16's below.
const VLP16HR_VERT = [
  -0.17453292519943295, 0.011635528346628864, -0.15126186850617523, 0.03490658503988659,
  -0.1279908118129175, 0.05817764173314432, -0.10471975511965977, 0.08144869842640205,
  -0.08144869842640205, 0.10471975511965977, -0.05817764173314432, 0.1279908118129175,
  -0.03490658503988659, 0.15126186850617523, -0.011635528346628864, 0.17453292519943295,
];
// Vertical correction per laser ID, m: valgur/velodyne_decoder src/calib_db.cpp
// vertical_offsets[PuckHiRes] (commit 08ddf97f…, from Velodyne's Hi-Res envelope drawing
// 86-0129 Rev A); rows 7–15 equal the VLP-16 manual's Table 9-1 Puck Hi-Res column (−3.7, 3.7,
// −4.6, …, 0.9, −7.4 mm, same page).
const VLP16HR_VOFF = [
  7.4e-3, -0.9e-3, 6.5e-3, -1.8e-3, 5.5e-3, -2.7e-3, 4.6e-3, -3.7e-3, 3.7e-3, -4.6e-3, 2.7e-3,
  -5.5e-3, 1.8e-3, -6.5e-3, 0.9e-3, -7.4e-3,
];

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
// Lasers fire in pairs, 0 and 1 first, then 2 and 3, …, 2.304 µs apart: VLP-32C User Manual
// 63-9325 Rev C §9.4 (Table 9-5, p. 62), so laser k fires ⌊k/2⌋ · 2.304 µs after the first. The
// same in ros-drivers/velodyne rawdata.cc RawData::buildTimings ("32C") and velodyne_decoder.
const VLP32C_FIRE = firingOffsets(32, 2304, (k) => Math.floor(k / 2));
// Vertical offsets, m: Velodyne publishes none for the VLP-32C; valgur/velodyne_decoder
// src/calib_db.cpp (commit 08ddf97f…) approximates them as focal_distances[VLP32C] = 42.4 mm ·
// tan(−ω) ("not provided for some of the models, but it can be approximated from the beam angle
// and focal distance"): +19.8 mm at −25° to −11.4 mm at +15°. Written out here (computed once from
// the table above in float64) so that no runtime's Math.tan enters the preset.
const VLP32C_VOFF = [
  0.01977144470577194, 0.0007400947529564257, 0.00123396087939849, 0.011869409247674947,
  0.008480051969382943, 0, 0.0004936153737058362, 0.006596454034395921, 0.005396969294071636,
  -0.0002464293024427214, 0.0002464293024427214, 0.0045671826828570855, 0.0039579612004332675,
  -0.0009866241474758993, -0.0004936153737058362, 0.0029648968264048415, 0.0034613299961570717,
  -0.00123396087939849, -0.0007400947529564257, 0.002717363145570269, 0.002469271270823216,
  -0.002469271270823216, -0.001727420526035132, 0.0019750589468007446, 0.0022220898416009474,
  -0.005206065382283155, -0.0034613299961570717, 0.001727420526035132, 0.0014806406264501037,
  -0.011361045759079603, -0.007730615731587837, 0.0009866241474758993,
];

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
// The lasers fire one at a time in laser-ID order ("The laser firing order is the same as the
// order in the Ethernet packet", HDL-32E User's Manual, Laser Firing Sequence, p. 10), 1.152 µs
// apart (Appendix E above: + DSR · 1.152 µs), so laser k fires k · 1.152 µs after the first. The same
// in Kitware/VeloView VelodyneHDL/IO/Lidar/Velodyne/vtkVelodynePacketInterpreter.cxx
// HDL32AdjustTimeStamp (commit 7bba7947aaf42fc9ea33b94a19ddbc64ac182600) and velodyne_decoder
// ("1.152 μs x 32 firings + 9.216 μs recharge time = 46.080 μs"). ros-drivers/velodyne's
// buildTimings ("32E") uses ⌊k/2⌋ · 1.152 µs, as if fired in pairs, against these sources.
const HDL32E_FIRE = firingOffsets(32, 1152, (k) => k);
// Vertical offset per laser ID, m: valgur/velodyne_decoder src/calib_db.cpp vertical_offsets[HDL32E]
// (commit 08ddf97f…, from Velodyne's HDL-32E envelope drawing 86-0106 Rev B): 17.17 mm (laser 0,
// −30.67°) … −5.45 mm (laser 31, 10.67°).
const HDL32E_VOFF = [
  17.17e-3, 4.76e-3, 16.27e-3, 4.07e-3, 15.4e-3, 3.38e-3, 14.54e-3, 2.7e-3, 13.71e-3, 2.02e-3,
  12.89e-3, 1.35e-3, 12.09e-3, 0.67e-3, 11.31e-3, 0, 10.54e-3, -0.67e-3, 9.78e-3, -1.35e-3,
  9.04e-3, -2.02e-3, 8.3e-3, -2.7e-3, 7.58e-3, -3.38e-3, 6.86e-3, -4.07e-3, 6.15e-3, -4.76e-3,
  5.45e-3, -5.45e-3,
];

// ---------------------------------------------------------------------------------------------
// Velodyne VLS-128 (Alpha Prime).
// vert_correction and rot_correction (radians, laser IDs 0–127): ros-drivers/velodyne
// velodyne_pointcloud/params/VLS128.yaml (commit 29abd0e1361cb7f5eda451d2b51c35eeca45e0d5); every
// offset correction 0. The same angles, to 2e-15°, as the Alpha Prime table of valgur/
// velodyne_decoder src/calib_db.cpp (from Kitware's LidarView), −25° … +15°. The driver unpacks
// it with the rawdata.cc formula above (RawData::unpack_vls128), so the Velodyne signs apply.
const VLS128_VERT = [
  -0.2049365607691742, -0.034732052114687155, 0.059341194567807204, -0.09232791743050003,
  -0.013613568165555772, 0.0804596785169386, -0.07120943348136864, 0.022863813201125717,
  -0.11344640137963143, -0.01937315469713706, 0.0747000919853573, -0.07696902001294993,
  0.0017453292519943296, 0.11309733552923257, -0.05585053606381855, 0.03822271061867582,
  -0.06736970912698112, 0.026703537555513242, -0.16133823605435582, -0.030892327760299633,
  0.04782202150464463, -0.10384709049366261, -0.009773843811168246, 0.08429940287132612,
  -0.05201081170943102, 0.04206243497306335, -0.1096066770252439, -0.015533430342749533,
  0.06318091892219473, -0.08848819307611251, 0.005585053606381855, 0.1322959573011702,
  -0.005934119456780721, 0.09040805525330627, -0.0635299847725936, 0.030543261909900768,
  -0.4363323129985824, -0.04241150082346221, 0.05166174585903215, -0.10000736613927509,
  0.00942477796076938, 0.16929693744344995, -0.04817108735504349, 0.04590215932745086,
  -0.13351768777756623, -0.027052603405912107, 0.06702064327658225, -0.08464846872172498,
  0.05550147021341968, -0.09616764178488756, -0.0020943951023931952, 0.10000736613927509,
  -0.07504915783575616, 0.019024088846738195, -0.2799857186049304, -0.038571776469074684,
  0.07086036763096977, -0.08080874436733745, 0.013264502315156905, 0.2617993877991494,
  -0.05969026041820607, 0.03438298626428829, -0.11955505376161157, -0.023212879051524585,
  -0.09808750396208132, -0.004014257279586958, 0.0947713783832921, -0.06161012259539983,
  0.01710422666954443, -0.34177037412552963, -0.040491638646268445, 0.053581608036225914,
  -0.08272860654453122, 0.011344640137963142, 0.20507618710933373, -0.046251225177849735,
  0.03246312408709453, -0.12479104151759457, -0.025132741228718343, 0.06894050545377602,
  -0.03665191429188092, 0.05742133239061344, -0.0942477796076938, -0.00017453292519943296,
  0.07853981633974483, -0.07312929565856241, 0.020943951023931952, -0.23675391303303078,
  -0.02129301687433082, 0.07278022980816354, -0.07888888219014369, 0.015184364492350668,
  0.10611601852125524, -0.05777039824101231, 0.03630284844148206, -0.11606439525762292,
  0.024783675378319478, -0.18057176441133332, -0.032812189937493394, 0.061261056745000965,
  -0.10576695267085637, -0.011693705988362009, 0.08237954069413235, -0.06928957130417489,
  0.04014257279586958, -0.11152653920243766, -0.017453292519943295, 0.07661995416255106,
  -0.09040805525330627, 0.003665191429188092, 0.12182398178920421, -0.05393067388662478,
  0.08691739674931762, -0.06544984694978735, 0.028623399732707003, -0.1457698991265664,
  -0.044331363000655974, 0.04974188368183839, -0.10192722831646885, -0.007853981633974483,
  0.14713125594312199, -0.05009094953223726, 0.0439822971502571, -0.10768681484805014,
  -0.02897246558310587, 0.0651007810993885, -0.08656833089891874, 0.007504915783575617,
];
const VLS128_ROT = [
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
  -0.1108982206717197, -0.07937757438070212, -0.04768239516448509, -0.015899949485668342,
  0.015899949485668342, 0.04768239516448509, 0.07937757438070212, 0.1108982206717197,
];
// One firing sequence every 53.3 µs: "On average, it takes 53.3 μs to fire all 128 lasers in a
// VLS-128 and recharge" (VLS-128 User Manual 63-9483 Rev A DRAFT §9.3.1.1), VLS128_SEQ_TDURATION in
// ros-drivers/velodyne velodyne_pointcloud/include/velodyne_pointcloud/rawdata.h. (velodyne_decoder
// notes 2.89 µs groups, a 57.8 µs sequence, from firmware 5.2.3.0 on; this preset follows the
// manual and driver it cites.)
const VLS128_CYCLE = 53.3e-6;
// 600 RPM: ros-drivers/velodyne velodyne_pointcloud/launch/VLS128_points.launch `rpm` default.
const VLS128_SWEEP = 60 / 600;
// Lasers fire in groups of eight, 2.665 µs apart, with one 2.665 µs maintenance period after the
// eighth group: FiringGroupIndex = ⌊k/8⌋ + ⌊k/64⌋, TimeOffset = 2.665 µs · FiringGroupIndex
// (VLS-128 User Manual 63-9483 Rev A DRAFT, Chapter 9, p. 61); the block's azimuth is read "at the
// moment the first firing group of 8 lasers in the sequence was fired" (p. 64). The same in
// ros-drivers rawdata.cc (vls_128_laser_azimuth_cache, i + i/8). Later decoders (velodyne_decoder,
// LidarView) count two slots after the eighth group, for later firmware.
const VLS128_FIRE = firingOffsets(128, 2665, (k) => Math.floor(k / 8) + Math.floor(k / 64));
// Vertical offsets, m: Velodyne publishes none for the VLS-128; valgur/velodyne_decoder
// src/calib_db.cpp (commit 08ddf97f…) approximates them as focal_distances[AlphaPrime] =
// 58.63 mm · tan(−ω): +27.3 mm at −25° to −15.7 mm at +15°. Written out (computed once in float64).
const VLS128_VOFF = [
  0.01218651732096133, 0.0020371594336643876, -0.0034832638264801594, 0.005428619894933888,
  0.0007982128128799707, -0.004727557046743213, 0.0041820802835766165, -0.0013407390016624942,
  0.006680044714725475, 0.0011359901830623373, -0.0043878309481554, 0.004521626223170032,
  -0.00010232875794818937, -0.006659314135292333, 0.0032779258972169467, -0.002242089509295663,
  0.003955872668137707, -0.0015660006519262516, 0.009542199380600986, 0.001811793566482027,
  -0.0028059444612538492, 0.006110536510493773, 0.000573058710486869, -0.004954215080980539,
  0.0030521465324677296, -0.002467575985797494, 0.006452097883219794, 0.0009107982769075221,
  -0.0037092341325577955, 0.0052016464276004185, -0.0003274550976989686, -0.0078020831020344066,
  0.0003479215076370559, -0.005315113409392348, 0.0037297822315699555, -0.0017913085121962651,
  0.027339617997627567, 0.002488078270356278, -0.003031625711376093, 0.005883058049161324,
  -0.0005525910935032642, -0.01002180943222959, 0.0028264574110478577, -0.002693135353232309,
  0.007874993509537962, 0.0015864811751389314, -0.003935314251549913, 0.004974827549870222,
  -0.0032573965948384017, 0.005655754809736327, 0.00012279456439910974, -0.005883058049161324,
  0.0044084118445362605, -0.0011155169067874335, 0.0168584035680421, 0.002262585443611661,
  -0.004161510934965494, 0.004748156422326996, -0.0007777433851501133, -0.015709861152236725,
  0.0035038022211396143, -0.002016669242546474, 0.007043101469287157, 0.001361215599026052,
  0.0057693849582724464, 0.00023535716850586175, -0.005573141181794582, 0.0036167788446121022,
  -0.0010029186143509301, 0.020856451598738557, 0.002375323087458023, -0.00314449952952045,
  0.004861473944090908, -0.0006651647872936449, -0.012195057538082438, 0.0027136445958294273,
  -0.0019039818521220345, 0.007354716310766746, 0.001473842951241611, -0.004048397600204296,
  0.0021498645038412205, -0.0033703177470228297, 0.005542166742041307, 0.000010232865508346392,
  -0.00461428107112738, 0.004295230147384892, -0.001228123425523365, 0.01414618416498402,
  0.0012485982867737112, -0.004274655101941268, 0.004634874132397373, -0.00089032771735279,
  -0.006245040770355214, 0.0033908515191019336, -0.002129371516960742, 0.006835576985656431,
  -0.0014533644665758422, 0.010703509671593869, 0.001924469399067743, -0.003596235674355493,
  0.00622434361049019, 0.0006856332341761028, -0.004840868099364784, 0.004068961405918357,
  -0.002354824053946457, 0.006566046793773853, 0.001023390456741397, -0.004501039321573251,
  0.005315113409392348, -0.00021489113575003425, -0.007178085422081638, 0.003165024514945795,
  -0.005108838590499922, 0.003842813224857417, -0.0016786483896929715, 0.008607542558271905,
  0.002600851827800846, -0.0029187743014009015, 0.005996774945199265, 0.0004604884116523079,
  -0.008689095582930064, 0.0029392911106550118, -0.002580346140247087, 0.006338197111998432,
  0.0016991311027574332, -0.003822260043785127, 0.005088218092921044, -0.0004400214736434856,
];

// ---------------------------------------------------------------------------------------------
// Hesai Pandar64.
// Elevation and horizontal (azimuth) offset per channel 1–64, degrees: the Pandar64 defaults
// `pandarGeneral_elev_angle_map` and `pandarGeneral_horizatal_azimuth_offset_map` of Hesai's SDK,
// HesaiTechnology/HesaiLidar_General_ROS src/HesaiLidar_General_SDK/src/PandarGeneralRaw/src/
// pandarGeneral_internal.cc (commit f574bb8a680e215a6ade9bf35e0898932b2a2234), used when no
// unit correction file is loaded. Each unit ships its own angle-correction file (Pandar64 user
// manual §3.1.4.2: "The accurate horizontal angle offsets are recorded in the angle correction
// file of this lidar"); the manual's example there, channel 5 offset −1.042°, matches.
//
// Why these and not config/Pandar64.csv of the same repository, whose elevations are all 0.174°
// lower (14.708° … −25.071°, azimuths identical): the defaults are the optical design, the CSV one
// unit's calibration. The defaults are referred to the optical axis: channel 18 is exactly 0°, and
// 15 of the 17 angles above it have their exact negative below it (±0.169° … ±11.032°; 0.846°
// pairs with −0.845°), as angles measured from a lens's axis do. The CSV is that table rigidly
// pitched by 0.174°, which is what a unit's calibration measures (its optical axis against its
// base), and the pitch differs from file to file: HesaiTechnology/HesaiLidar_SDK_2.0 (commit
// ea7f86fad62fe53c947bd9f29f9216be5bae7b1d) correction/angle_correction/ ships the same −0.174°
// file as "Pandar64_Angle Correction File.csv", "Pandar40P_Angle Correction File.csv" as 40 of
// these angles +0.328°, and "Pandar40M_Angle Correction File.csv" as 39 of 40 of them −0.001°.
// Hesai's manuals call their tables "design values. The accurate values are in this lidar's
// unit's calibration file" (e.g. PandarXT-16 user manual, Appendix I). For a unit, pitch the
// sensor by its offset (mountPose) or build a description from its own file. The test checks all
// 64 CSV rows against this relation.
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
  for (const table of [spec.elevations, spec.azimuthOffsets, spec.firingTimeOffsets, spec.verticalOffsets]) {
    if (table) {
      Object.freeze(table);
    }
  }
  return Object.freeze(spec);
}

/**
 * The presets by name (frozen). Use lidarPreset(name) for a validated description; the specs
 * also hold the per-channel `firingTimeOffsets` and `verticalOffsets` that lidarPreset() puts in
 * the description (see LidarPresetSpec).
 *
 * @example
 * Object.keys(LIDAR_PRESETS) // ['velodyne-vlp16', 'velodyne-vlp16-hires', 'velodyne-vlp32c', 'velodyne-hdl32e', 'velodyne-vls128', 'hesai-pandar64', 'ouster-os1-64-sample']
 * LIDAR_PRESETS['velodyne-vlp16']!.source
 * LIDAR_PRESETS['velodyne-hdl32e']!.verticalOffsets![0] // 0.01717: laser 0's beam origin, 17.17 mm up
 */
export const LIDAR_PRESETS: Readonly<Record<string, LidarPresetSpec>> = Object.freeze({
  'velodyne-vlp16': freezeSpec({
    model: 'Velodyne VLP-16 (Puck)',
    calibration: 'nominal',
    source: 'ros-drivers/velodyne VLP16db.yaml; VLP-16 User Manual 63-9243 Rev D (Table 9-1 angles and vertical corrections, §8.1, §9.4); VLP16_points.launch',
    ...velodyne(VLP16_VERT, undefined),
    columns: cycles(VLP16_SWEEP, VLP16_CYCLE),
    firingPeriod: VLP16_CYCLE,
    sweepTime: VLP16_SWEEP,
    // min_range 0.4 m, max_range 130 m: the defaults of ros-drivers/velodyne
    // velodyne_pointcloud/launch/VLP16_points.launch (the driver's window, not a datasheet figure).
    minRange: 0.4,
    maxRange: 130,
    firingTimeOffsets: VLP16_FIRE,
    verticalOffsets: VLP16_VOFF,
  }),
  'velodyne-vlp16-hires': freezeSpec({
    model: 'Velodyne VLP-16 Hi-Res (Puck Hi-Res)',
    calibration: 'nominal',
    source: 'ros-drivers/velodyne VLP16_hires_db.yaml; VLP-16 User Manual 63-9243 Rev D (Table 9-1 Puck Hi-Res column, §8.1, §9.4); velodyne_decoder calib_db.cpp (vertical offsets); VLP16_points.launch',
    ...velodyne(VLP16HR_VERT, undefined),
    columns: cycles(VLP16_SWEEP, VLP16_CYCLE),
    firingPeriod: VLP16_CYCLE,
    sweepTime: VLP16_SWEEP,
    // min_range 0.4 m, max_range 130 m: VLP16_points.launch, as for the VLP-16 (the driver's window).
    minRange: 0.4,
    maxRange: 130,
    firingTimeOffsets: VLP16_FIRE,
    verticalOffsets: VLP16HR_VOFF,
  }),
  'velodyne-vlp32c': freezeSpec({
    model: 'Velodyne VLP-32C (Ultra Puck)',
    calibration: 'nominal',
    source: 'ros-drivers/velodyne VeloView-VLP-32C.yaml; VLP-32C User Manual 63-9325 Rev C (Tables 9-2, 9-5, 9-6, §8.1); VLP-32C_points.launch; velodyne_decoder calib_db.cpp (vertical offsets, approximated from a focal distance)',
    ...velodyne(VLP32C_VERT, VLP32C_ROT),
    columns: cycles(VLP32C_SWEEP, VLP32C_CYCLE),
    firingPeriod: VLP32C_CYCLE,
    sweepTime: VLP32C_SWEEP,
    // min_range 0.4 m, max_range 200 m: defaults of ros-drivers/velodyne
    // velodyne_pointcloud/launch/VLP-32C_points.launch (the driver's window).
    minRange: 0.4,
    maxRange: 200,
    firingTimeOffsets: VLP32C_FIRE,
    verticalOffsets: VLP32C_VOFF,
  }),
  'velodyne-hdl32e': freezeSpec({
    model: 'Velodyne HDL-32E',
    calibration: 'nominal',
    source: "ros-drivers/velodyne 32db.yaml; HDL-32E User's Manual (Laser Firing Sequence, Appendix E); 32e_points.launch; velodyne_decoder calib_db.cpp (vertical offsets)",
    ...velodyne(HDL32E_VERT, undefined),
    columns: cycles(HDL32E_SWEEP, HDL32E_CYCLE),
    firingPeriod: HDL32E_CYCLE,
    sweepTime: HDL32E_SWEEP,
    // min_range 0.4 m, max_range 130 m: the defaults of ros-drivers/velodyne
    // velodyne_pointcloud/launch/32e_points.launch, the driver whose table, frame and rate this
    // preset follows, like the other Velodyne presets (the driver's window, not a datasheet
    // figure). The manual rates the sensor to 100 m ("0 = no return within 100 m", Appendix B,
    // Figure B1); for that, spread the preset: { ...lidarPreset('velodyne-hdl32e'), maxRange: 100 }.
    minRange: 0.4,
    maxRange: 130,
    firingTimeOffsets: HDL32E_FIRE,
    verticalOffsets: HDL32E_VOFF,
  }),
  'velodyne-vls128': freezeSpec({
    model: 'Velodyne VLS-128 (Alpha Prime)',
    calibration: 'nominal',
    source: 'ros-drivers/velodyne VLS128.yaml, rawdata.h; VLS-128 User Manual 63-9483 Rev A DRAFT (§9.3.1.1, firing timing p. 61); VLS128_points.launch; velodyne_decoder calib_db.cpp (vertical offsets, approximated from a focal distance)',
    ...velodyne(VLS128_VERT, VLS128_ROT),
    columns: cycles(VLS128_SWEEP, VLS128_CYCLE),
    firingPeriod: VLS128_CYCLE,
    sweepTime: VLS128_SWEEP,
    // min_range 0.4 m, max_range 200 m: the defaults of ros-drivers/velodyne
    // velodyne_pointcloud/launch/VLS128_points.launch (the driver's window).
    minRange: 0.4,
    maxRange: 200,
    firingTimeOffsets: VLS128_FIRE,
    verticalOffsets: VLS128_VOFF,
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
  /**
   * Whether the description carries the preset's per-laser tables, `verticalOffsets` and
   * `firingTimeOffsets` (default true; the firing times only with sweepTime > 0). false: every
   * beam of a column fires at once from z = 0, as before these tables were modelled.
   */
  readonly perLaser?: boolean;
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
    throw new ValidationError('argument', undefined, 'options', 'must be { columns?, sweepTime?, perLaser? }');
  }
  const unknown = Object.keys(options).filter((k) => k !== 'columns' && k !== 'sweepTime' && k !== 'perLaser');
  if (unknown.length > 0) {
    throw new ValidationError('argument', undefined, 'options', `has unknown keys ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: columns, sweepTime, perLaser)`);
  }
  const { columns, sweepTime = spec.sweepTime, perLaser = true } = options;
  if (typeof perLaser !== 'boolean') {
    throw new ValidationError('argument', undefined, 'perLaser', `must be true or false (got ${String(perLaser)})`);
  }
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
    ...(perLaser && spec.verticalOffsets !== undefined ? { verticalOffsets: [...spec.verticalOffsets] } : {}),
    ...(perLaser && sweepTime > 0 && spec.firingTimeOffsets !== undefined ? { firingTimeOffsets: [...spec.firingTimeOffsets] } : {}),
    minRange: spec.minRange,
    maxRange: spec.maxRange,
    sweepTime,
  };
  const last = desc.firingTimeOffsets ? Math.max(...desc.firingTimeOffsets) : 0;
  if (last > 0 && !(last < sweepTime / desc.azimuthSteps)) {
    throw new ValidationError('argument', undefined, 'columns', `${desc.azimuthSteps} columns in ${sweepTime} s leave ${sweepTime / desc.azimuthSteps} s per column, less than the preset's last firing (${last} s after the column's first); take fewer columns or { perLaser: false }`);
  }
  checkLidar(desc);
  return desc;
}
