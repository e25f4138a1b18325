/**
 * The manifest of the demo's sample files (`/sample/manifest.json` in the build output):
 * the built-in sample podcast, or the files given on `npm run demo`'s command line
 * (`/sample/given/manifest.json`). Shared by the page and the Node scripts that write it.
 *
 * @module
 */

/** Where scripts/make-sample.ts writes the built-in sample, relative to the repository. */
export const SAMPLE_DIR = '.cache/sample';

/** One file the page can fetch and upload as if a person dropped it. */
export interface SampleFile {
  /** File name, relative to the manifest's folder. */
  file: string;
  label: string;
  kind: 'video' | 'audio';
  size: number;
}

/** `manifest.json`. */
export interface SampleManifest {
  /** What made it (the generator's options), so a changed recipe regenerates. */
  version: string;
  title: string;
  files: SampleFile[];
}
