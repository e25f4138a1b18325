/**
 * Mixing several channels into one: the mean of the channels, sample by sample, as long as the
 * longest (a shorter channel adds nothing past its end).
 *
 * @module
 */

/** The mean of `channels` per sample, as long as the longest channel. */
export function mixDown(channels: readonly Float32Array[]): Float32Array {
  const length = Math.max(0, ...channels.map((c) => c.length));
  const mix = new Float32Array(length);
  for (const channel of channels) for (let i = 0; i < channel.length; i++) mix[i]! += channel[i]! / channels.length;
  return mix;
}
