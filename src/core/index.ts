/**
 * The core: box and ray types, validation and canonical forms, constructors and helpers.
 * Everything here is float64 and backend-independent.
 *
 * @example
 * import { toObb, obbFromMatrix, rayFromScreen, boxArrayFrom } from './core/index.ts'
 */

export * from './types.ts';
export {
  boxArrayFrom,
  boxAt,
  makeBoxArray,
  makeRayArray,
  rayArrayFrom,
  rayAt,
  setBox,
  setRay,
  toObb,
  toRay,
  validateBoxArray,
  validateRayArray,
} from './canonical.ts';
export type { ValidateBoxOptions, ValidateRayOptions } from './canonical.ts';
export {
  MATRIX_SHEAR_TOLERANCE,
  obbFromAxes,
  obbFromMatrix,
  obbFromPoints,
  obbFromQuaternion,
} from './construct.ts';
export { obbCorners, obbEdges, obbFromAabb, obbToAabb, rayFromScreen } from './helpers.ts';
export type { ScreenRayOptions } from './helpers.ts';
export { symmetricEigen3 } from './jacobi.ts';
export type { SymmetricEigen3 } from './jacobi.ts';
export * as vec3 from './vec.ts';
