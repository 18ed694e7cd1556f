/**
 * The one shape of a file-format error: `path` names the offending value in the JSON
 * (`boxes[3].halfExtents[1]`, `rays[17].t`; empty for the whole file) and `detail` says what is
 * wrong with it. {@link SceneError} and the judge's ResultError are its two kinds.
 *
 * Browser- and Node-safe.
 */
export abstract class FileFieldError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(path ? `${path} ${detail}` : detail);
  }
}
