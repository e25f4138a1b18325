/**
 * The soft costs of the shot plan: per step and camera, how badly that camera serves the
 * moment (single-speaker speech wants that speaker's close-up, overlapping speech a group shot
 * showing the people involved, nobody speaking costs almost nothing), and the cost of a cut.
 *
 * @module
 */

import type { EditCamera } from './camera-set.ts';

/**
 * The soft costs of the plan, per millisecond of output time unless noted. The defaults are
 * {@link DEFAULT_CUT_COSTS}; tests pass other weights to compute, for example, the best close-up
 * share the hard constraints allow.
 */
export interface CutCosts {
  /** One cut, in milliseconds of a speaker missing their close-up: enough to stop flapping. */
  cut: number;
  /** A speaker with a recording close-up shown on a group shot that includes them. */
  missOnGroup: number;
  /** A speaker shown on a camera that does not show them (someone else's close-up). */
  missElsewhere: number;
  /** A speaker without a close-up not on a group shot that shows them. */
  noCloseupMiss: number;
  /** Plan quick exchanges of short turns on a group shot (see quickExchanges). */
  quickExchanges: boolean;
}

/** The costs planEdit uses. Showing the wrong person is worse than the wide showing the speaker. */
export const DEFAULT_CUT_COSTS: Readonly<CutCosts> = {
  cut: 100,
  missOnGroup: 1,
  missElsewhere: 1.2,
  noCloseupMiss: 0.15,
  quickExchanges: true,
};
/** Per millisecond and camera size: tie-breaks (tightest group for speech, widest for silence). */
const TIE = 0.001;

/** Cost per millisecond of showing each camera during one step (see the module comment). */
export function stepCosts(
  who: readonly string[],
  cams: readonly EditCamera[],
  closeupIdx: ReadonlyMap<string, number>,
  avail: (c: number) => boolean,
  costs: CutCosts,
): number[] {
  const mapped = who.filter((s) => cams.some((c) => c.speakers.includes(s)));
  if (mapped.length === 0) {
    // Nobody (or only someone no camera shows) speaks: free, the widest shot by a hair.
    const widest = Math.max(...cams.map((c) => c.speakers.length));
    return cams.map((c) => TIE * 0.1 * (widest - c.speakers.length));
  }
  if (mapped.length === 1) {
    const x = mapped[0]!;
    const own = closeupIdx.get(x);
    if (own !== undefined && avail(own)) {
      return cams.map((c, i) =>
        i === own ? 0 : c.speakers.includes(x) ? costs.missOnGroup - TIE * c.speakers.length : costs.missElsewhere,
      );
    }
    return cams.map((c) => (c.speakers.includes(x) ? TIE * c.speakers.length : costs.noCloseupMiss));
  }
  return cams.map((c) => {
    const shown = mapped.filter((s) => c.speakers.includes(s)).length;
    return costs.missOnGroup * (1 - shown / mapped.length) + TIE * c.speakers.length;
  });
}
