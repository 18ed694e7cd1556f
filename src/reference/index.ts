export * from './query/rayObb.ts';
export * from './query/obbObbSat.ts';
export * from './raycast.ts';
export * from './pairs.ts';
export * from './cornerOracle.ts';
export * from './lidar.ts';
export * from './frustum.ts';
export * from './accel.ts';
