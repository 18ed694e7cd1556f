// Types for the ESM build of wgsl_reflect. Node imports it by path (docs/design.md, "Tooling facts"),
// a path the package's own `types` entry does not cover; its declarations are the same.
declare module 'wgsl_reflect/wgsl_reflect.module.js' {
  export * from 'wgsl_reflect';
}
