/**
 * A link that saves a signed file when clicked: the signed URL with `download=<name>`, which the
 * service answers with `Content-Disposition: attachment` (src/routes/uploads.ts). Use it as a
 * plain `href`, without the `download` attribute: Chromium does not route `<a download>` through
 * a service worker, so such a click never reaches the tab's service.
 *
 * @module
 */

/**
 * The signed `url` with the file name to save under.
 *
 * @example
 * link.href = downloadUrl(summary.outputUrl, 'Episode 12.mp4');
 */
export function downloadUrl(url: string, filename: string): string {
  const out = new URL(url, globalThis.location?.href);
  out.searchParams.set('download', filename);
  return out.href;
}
