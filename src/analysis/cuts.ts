/**
 * Cut generation: which camera to show when, from who speaks (turns), who is on which camera
 * (tracks, optionally ranked by the camera map) and an editing preset.
 *
 * The plan is made in output time (the reference timeline with removed ranges taken out), so
 * shot lengths are what a viewer sees, then mapped back to reference time:
 * 1. Desire: single-speaker speech wants that speaker's close-up; overlapping speech wants a
 *    group shot showing the people involved; nobody speaking (or a speaker no camera shows)
 *    wants nothing and stays on the last shot.
 * 2. Minimum shot length: a too-short shot between two different shots may start earlier, in
 *    the pause before it; a run of consecutive too-short shots that involves two or more
 *    speakers and is itself long enough becomes a group shot (quick exchange); any other
 *    too-short shot is absorbed by the shot before it (backchannels do not cause cuts).
 * 3. Maximum shot length: a close-up held longer than the maximum gets a cut-away to a group
 *    shot (monologue relief) and comes back; when only the pause after the speech makes it too
 *    long, the group shot takes the pause.
 * 4. Footage: a shot whose camera was not recording at that moment falls back to a camera
 *    that was.
 *
 * @module
 */

import type { CameraKind, CameraMap, Cut, TimeRange, Track, Turn } from '../contract/types.ts';
import type { SourceSpan } from './cut-rules.ts';
import type { EditPreset } from './presets.ts';

/** A camera the edit may use: a video source that shows at least one speaker. */
export interface EditCamera {
  sourceId: string;
  speakers: string[];
  /** How the reasons name the shot. */
  label: 'close-up' | 'two-shot' | 'wide';
  /** Lower is preferred among equal candidates (camera map kind and confidence). */
  rank: number;
}

/** The cameras of an edit, by role. */
export interface EditCameras {
  /** Each speaker's own camera. */
  closeups: Map<string, EditCamera>;
  /** Cameras showing two or more speakers (a wide or two-shot never counts as anyone's own camera). */
  groups: EditCamera[];
  /** Every usable camera, in track order. */
  all: EditCamera[];
}

const KIND_RANK: Record<CameraKind, number> = { closeup: 0, wide: 0, twoshot: 0, unknown: 1, multi: 2 };

/**
 * Sorts the tracks into close-ups and group shots. Only video sources of the job whose track
 * names speakers are used: the edit never cuts to a camera that shows nobody.
 */
export function editCameras(tracks: readonly Track[], videoSourceIds: ReadonlySet<string>, cameraMap: CameraMap | null): EditCameras {
  const speakersOf = new Map<string, string[]>();
  for (const t of tracks) {
    if (!videoSourceIds.has(t.sourceId)) continue;
    const list = speakersOf.get(t.sourceId) ?? [];
    for (const s of t.speakers) if (!list.includes(s)) list.push(s);
    speakersOf.set(t.sourceId, list);
  }
  const all: EditCamera[] = [];
  for (const [sourceId, speakers] of speakersOf) {
    if (speakers.length === 0) continue;
    const mapped = cameraMap?.cameras.find((c) => c.sourceId === sourceId);
    const rank = (mapped ? KIND_RANK[mapped.kind] * 3 : 3) + (mapped?.confidence === 'high' ? 0 : mapped?.confidence === 'low' ? 1 : 2);
    const label = speakers.length === 1 ? 'close-up' : mapped?.kind === 'twoshot' || speakers.length === 2 ? 'two-shot' : 'wide';
    all.push({ sourceId, speakers, label, rank });
  }
  const closeups = new Map<string, EditCamera>();
  const byRank = all.toSorted((a, b) => a.rank - b.rank);
  for (const cam of byRank) {
    const only = cam.speakers.length === 1 ? cam.speakers[0]! : undefined;
    if (only !== undefined && !closeups.has(only)) closeups.set(only, cam);
  }
  // A camera the map calls a close-up of one speaker, placed on a track with others too.
  for (const c of cameraMap?.cameras ?? []) {
    const who = c.kind === 'closeup' && c.speakers.length === 1 ? c.speakers[0]! : undefined;
    if (who === undefined || closeups.has(who)) continue;
    const cam = all.find((a) => a.sourceId === c.sourceId && a.speakers.includes(who));
    if (cam) closeups.set(who, { ...cam, label: 'close-up' });
  }
  const groups = all.filter((c) => c.speakers.length >= 2 && ![...closeups.values()].some((k) => k.sourceId === c.sourceId));
  return { closeups, groups, all };
}

/**
 * The group shot for a moment involving `involved`: the one showing most of them; for an
 * overlap or exchange the tightest such shot (a two-shot of both beats the wide), for a
 * monologue relief the widest (it shows the listeners). `null` when no group shot shows any
 * of them.
 */
export function chooseGroupShot(cameras: EditCameras, involved: readonly string[], purpose: 'together' | 'relief'): EditCamera | null {
  let best: EditCamera | null = null;
  let bestKey: number[] = [];
  for (const cam of cameras.groups) {
    const shown = involved.filter((s) => cam.speakers.includes(s)).length;
    if (shown === 0) continue;
    const size = purpose === 'together' ? cam.speakers.length : -cam.speakers.length;
    const key = [-shown, size, cam.rank];
    if (!best || compareKeys(key, bestKey) < 0) {
      best = cam;
      bestKey = key;
    }
  }
  return best;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  return 0;
}

/** Maps reference time to output time and back, around sorted, non-overlapping removed ranges. */
export class OutputClock {
  readonly lengthMs: number;
  constructor(
    readonly startMs: number,
    readonly endMs: number,
    readonly removed: readonly TimeRange[],
  ) {
    let kept = endMs - startMs;
    for (const r of removed) kept -= r.endMs - r.startMs;
    this.lengthMs = kept;
  }

  /** Output time of reference instant `t` (clamped to the timeline). */
  toOutput(t: number): number {
    const c = Math.min(Math.max(t, this.startMs), this.endMs);
    let out = c - this.startMs;
    for (const r of this.removed) {
      if (r.startMs >= c) break;
      out -= Math.min(c, r.endMs) - r.startMs;
    }
    return out;
  }

  /** The earliest reference instant shown at output time `o`. */
  toReference(o: number): number {
    if (o <= 0) return this.startMs;
    if (o >= this.lengthMs) return this.endMs;
    let t = this.startMs + o;
    for (const r of this.removed) {
      if (t > r.startMs) t += r.endMs - r.startMs;
      else break;
    }
    return t;
  }
}

interface Shot {
  startMs: number;
  endMs: number;
  camera: EditCamera;
  reason: string;
  /** Whose speech asked for this shot (used to detect quick exchanges). */
  speakers: string[];
  /** Speakers whose short turns were absorbed into this shot. */
  ignored: string[];
  closeupOf: string | null;
  /** End of the last speech that asked for this shot; after it the shot only holds a pause. */
  speechEndMs: number;
}

const len = (s: { startMs: number; endMs: number }): number => s.endMs - s.startMs;

/** A stretch of output time during which the same speakers talk. */
interface Segment {
  startMs: number;
  endMs: number;
  speakers: string[];
}

/** Elementary segments of output time with the set of speakers talking in each. */
function speechSegments(turns: readonly Turn[], clock: OutputClock): Segment[] {
  const edges: Array<{ t: number; speaker: string; delta: 1 | -1 }> = [];
  for (const turn of turns) {
    if (!Number.isFinite(turn.startMs) || !Number.isFinite(turn.endMs)) continue;
    const a = clock.toOutput(turn.startMs);
    const b = clock.toOutput(turn.endMs);
    if (b <= a) continue;
    edges.push({ t: a, speaker: turn.speaker, delta: 1 }, { t: b, speaker: turn.speaker, delta: -1 });
  }
  edges.sort((x, y) => x.t - y.t || x.delta - y.delta);
  const active = new Map<string, number>();
  const segments: Segment[] = [];
  let prevT = 0;
  for (const e of edges) {
    if (e.t > prevT) {
      const speakers = [...active.keys()].sort();
      segments.push({ startMs: prevT, endMs: e.t, speakers });
      prevT = e.t;
    }
    const n = (active.get(e.speaker) ?? 0) + e.delta;
    if (n > 0) active.set(e.speaker, n);
    else active.delete(e.speaker);
  }
  if (clock.lengthMs > prevT) segments.push({ startMs: prevT, endMs: clock.lengthMs, speakers: [] });
  return segments;
}

function wantedShot(speakers: readonly string[], cameras: EditCameras): Omit<Shot, 'startMs' | 'endMs' | 'ignored' | 'speechEndMs'> | null {
  if (speakers.length === 1) {
    const who = speakers[0]!;
    const own = cameras.closeups.get(who);
    if (own) return { camera: own, reason: `${who} speaks (close-up)`, speakers: [who], closeupOf: who };
    const group = chooseGroupShot(cameras, [who], 'together');
    if (group) return { camera: group, reason: `${who} speaks (${group.label}, no close-up)`, speakers: [who], closeupOf: null };
    return null;
  }
  if (speakers.length >= 2) {
    const group = chooseGroupShot(cameras, speakers, 'together');
    if (group) return { camera: group, reason: `overlap ${speakers.join('+')} (${group.label})`, speakers: [...speakers], closeupOf: null };
  }
  return null;
}

/** Joins shot `k + 1` into shot `k` while they use the same camera. */
function mergeForward(shots: Shot[], k: number): void {
  const a = shots[k];
  if (!a) return;
  for (let b = shots[k + 1]; b && b.camera.sourceId === a.camera.sourceId; b = shots[k + 1]) {
    joinShot(a, b);
    shots.splice(k + 1, 1);
  }
}

function joinShot(last: Shot, s: Shot): void {
  last.endMs = s.endMs;
  last.speechEndMs = Math.max(last.speechEndMs, s.speechEndMs);
  // Both reasons stay visible: "overlap A+B (wide), then quick exchange A+C (wide)".
  if (!last.reason.split(', then ').includes(s.reason)) last.reason = `${last.reason}, then ${s.reason}`;
  for (const x of s.ignored) if (!last.ignored.includes(x)) last.ignored.push(x);
  for (const x of s.speakers) if (!last.speakers.includes(x)) last.speakers.push(x);
  if (last.closeupOf !== s.closeupOf) last.closeupOf = null;
}

function mergeSameCamera(shots: Shot[]): Shot[] {
  const out: Shot[] = [];
  for (const s of shots) {
    const last = out.at(-1);
    if (last && last.camera.sourceId === s.camera.sourceId) joinShot(last, s);
    else out.push(s);
  }
  return out;
}

/** The shot shown before anyone speaks, or for the whole edit when nobody does. */
function openingShot(cameras: EditCameras): Omit<Shot, 'startMs' | 'endMs' | 'ignored' | 'speechEndMs'> | null {
  const widest = cameras.groups.toSorted((a, b) => b.speakers.length - a.speakers.length || a.rank - b.rank)[0];
  if (widest) return { camera: widest, reason: `nobody speaks (${widest.label})`, speakers: [], closeupOf: null };
  const first = cameras.all[0];
  if (first) return { camera: first, reason: `nobody speaks (${first.label})`, speakers: [], closeupOf: null };
  return null;
}

/** Step 1: the wanted shots, pauses and unmapped speakers staying on the shot before. */
function desiredShots(segments: readonly Segment[], cameras: EditCameras, clock: OutputClock): Shot[] {
  const shots: Shot[] = [];
  let pendingStart: number | null = null; // output time not yet given to any shot (before the first)
  for (const seg of segments) {
    const want = wantedShot(seg.speakers, cameras);
    const last = shots.at(-1);
    if (!want) {
      if (last) last.endMs = seg.endMs;
      else pendingStart ??= seg.startMs;
      continue;
    }
    const startMs = last ? seg.startMs : (pendingStart ?? seg.startMs);
    shots.push({ ...want, startMs, endMs: seg.endMs, ignored: [], speechEndMs: seg.endMs });
  }
  if (shots.length === 0) {
    const open = openingShot(cameras);
    if (open && clock.lengthMs > 0) shots.push({ ...open, startMs: 0, endMs: clock.lengthMs, ignored: [], speechEndMs: 0 });
  }
  return mergeSameCamera(shots);
}

/** Step 2: no shot shorter than the preset's minimum (unless it is the only one). */
function enforceMinimum(input: Shot[], cameras: EditCameras, minMs: number): Shot[] {
  const shots = mergeSameCamera(input);
  // Shots before the first short one stay long enough whatever happens later, so each scan
  // starts where the previous one left off (this keeps long edits fast).
  let from = 0;
  for (;;) {
    if (shots.length <= 1) return shots;
    let i = -1;
    for (let k = from; k < shots.length; k++) {
      if (len(shots[k]!) < minMs) {
        i = k;
        break;
      }
    }
    if (i < 0) return shots;
    from = Math.max(0, i - 1);
    let j = i;
    while (j + 1 < shots.length && len(shots[j + 1]!) < minMs) j++;
    const first = shots[i]!;
    const lastShort = shots[j]!;
    // A short shot between two different cameras may start earlier, in the pause that ends the
    // shot before (the cut then falls in silence). Between two pieces of the same shot it is a
    // backchannel and must not cause a cut, so this is not done there.
    const before = shots[i - 1];
    const after = shots[i + 1];
    if (before && after?.camera.sourceId !== before.camera.sourceId) {
      const earliest = Math.max(before.speechEndMs, before.startMs + minMs);
      if (first.endMs - earliest >= minMs) {
        before.endMs = first.startMs = first.endMs - minMs;
        continue;
      }
    }
    if (j > i && lastShort.endMs - first.startMs >= minMs) {
      const involved = [...new Set(shots.slice(i, j + 1).flatMap((s) => s.speakers))].sort();
      const group = involved.length >= 2 ? chooseGroupShot(cameras, involved, 'together') : null;
      if (group) {
        const exchange: Shot = {
          startMs: first.startMs,
          endMs: lastShort.endMs,
          camera: group,
          reason: `quick exchange ${involved.join('+')} (${group.label})`,
          speakers: involved,
          ignored: [],
          closeupOf: null,
          speechEndMs: Math.max(...shots.slice(i, j + 1).map((s) => s.speechEndMs)),
        };
        shots.splice(i, j - i + 1, exchange);
        mergeForward(shots, i);
        if (i > 0) mergeForward(shots, i - 1);
        continue;
      }
    }
    // Absorb the short shot into the one before (stay on the current shot: no flapping),
    // or into the one after when it opens the edit.
    const host = i > 0 ? shots[i - 1]! : shots[1]!;
    if (i > 0) host.endMs = first.endMs;
    else host.startMs = first.startMs;
    host.speechEndMs = Math.max(host.speechEndMs, first.speechEndMs);
    for (const s of first.speakers) if (!host.speakers.includes(s) && !host.ignored.includes(s)) host.ignored.push(s);
    shots.splice(i, 1);
    if (i > 0) mergeForward(shots, i - 1);
  }
}

/**
 * Step 3: cut away from a close-up held longer than the maximum, then come back. The cut-away
 * starts at a natural moment when there is one (a pause, or a listener's backchannel: the
 * group shot then shows the reaction), otherwise as late as the maximum allows.
 *
 * @param moments output times where the speaker is silent or someone else makes a sound
 */
function addMonologueRelief(shots: Shot[], cameras: EditCameras, preset: EditPreset, moments: readonly number[]): Shot[] {
  const out: Shot[] = [];
  for (const shot of shots) {
    const relief = shot.closeupOf !== null ? chooseGroupShot(cameras, [shot.closeupOf], 'relief') : null;
    if (!relief || relief.sourceId === shot.camera.sourceId || len(shot) <= preset.maxShotMs) {
      out.push(shot);
      continue;
    }
    let t = shot.startMs;
    let first = true;
    while (shot.endMs - t > preset.maxShotMs) {
      // Too long only because of the pause after the speech: go to the group shot for the pause.
      const speechEnd = Math.max(shot.speechEndMs, t + preset.minShotMs);
      if (speechEnd - t <= preset.maxShotMs && shot.endMs - speechEnd >= preset.minShotMs) {
        const reason = first ? shot.reason : `${shot.closeupOf} continues (close-up)`;
        out.push({ ...shot, startMs: t, endMs: speechEnd, reason, ignored: first ? shot.ignored : [], speakers: [...shot.speakers] });
        out.push({
          startMs: speechEnd,
          endMs: shot.endMs,
          camera: relief,
          reason: `pause (${relief.label})`,
          speakers: [],
          ignored: [],
          closeupOf: null,
          speechEndMs: speechEnd,
        });
        t = shot.endMs;
        break;
      }
      // maxShotMs > reliefMs + 2 * minShotMs (presets.ts) keeps every piece at or above the minimum.
      const latest = t + Math.min(preset.maxShotMs, shot.endMs - t - preset.reliefMs - preset.minShotMs);
      const earliest = t + preset.minShotMs;
      let at = latest;
      for (const m of moments) if (m >= earliest && m <= latest) at = m; // the last natural moment in the window
      const reason = first ? shot.reason : `${shot.closeupOf} continues (close-up)`;
      out.push({ ...shot, startMs: t, endMs: at, reason, ignored: first ? shot.ignored : [], speakers: [...shot.speakers] });
      out.push({
        startMs: at,
        endMs: at + preset.reliefMs,
        camera: relief,
        reason: `monologue relief (${relief.label})`,
        speakers: [],
        ignored: [],
        closeupOf: null,
        speechEndMs: at + preset.reliefMs,
      });
      t = at + preset.reliefMs;
      first = false;
    }
    if (t < shot.endMs) out.push({ ...shot, startMs: t, endMs: shot.endMs, reason: `${shot.closeupOf} continues (close-up)`, ignored: [], speakers: [...shot.speakers] });
  }
  return out;
}

function reasonOf(shot: Shot): string {
  return shot.ignored.length > 0 ? `${shot.reason}; backchannel ${shot.ignored.join(', ')} ignored` : shot.reason;
}

/** Step 4: give every instant a camera that was recording then; holes nobody recorded stay uncut. */
function fitToFootage(cuts: Cut[], cameras: EditCameras, spans: readonly SourceSpan[], minShotMs: number): Cut[] {
  const spanOf = new Map(spans.map((s) => [s.sourceId, s]));
  const covers = (id: string, a: number, b: number): boolean => {
    const s = spanOf.get(id);
    return s !== undefined && s.startMs <= a && s.endMs >= b;
  };
  const out: Cut[] = [];
  for (const cut of cuts) {
    if (covers(cut.sourceId, cut.startMs, cut.endMs)) {
      out.push(cut);
      continue;
    }
    // When the wanted camera records only a sliver of the shot (under the minimum and under
    // half of it), a camera that records all of it shows the whole shot: one cut instead of a
    // flash of the close-up.
    const span = spanOf.get(cut.sourceId);
    const recorded = span ? Math.max(0, Math.min(span.endMs, cut.endMs) - Math.max(span.startMs, cut.startMs)) : 0;
    if (recorded < minShotMs && recorded < (cut.endMs - cut.startMs) / 2) {
      const shown = cameras.all.find((c) => c.sourceId === cut.sourceId)?.speakers ?? [];
      const whole = cameras.all
        .filter((c) => covers(c.sourceId, cut.startMs, cut.endMs))
        .toSorted(
          (x, y) =>
            y.speakers.filter((s) => shown.includes(s)).length - x.speakers.filter((s) => shown.includes(s)).length ||
            y.speakers.length - x.speakers.length ||
            x.rank - y.rank,
        )[0];
      if (whole) {
        out.push({ ...cut, sourceId: whole.sourceId, reason: `${cut.reason ?? 'shot'}; camera not recording, ${whole.label} instead` });
        continue;
      }
    }
    const marks = new Set([cut.startMs, cut.endMs]);
    for (const s of spans) for (const t of [s.startMs, s.endMs]) if (t > cut.startMs && t < cut.endMs) marks.add(t);
    const points = [...marks].sort((a, b) => a - b);
    const shown = cameras.all.find((c) => c.sourceId === cut.sourceId)?.speakers ?? [];
    for (let k = 1; k < points.length; k++) {
      const a = points[k - 1]!;
      const b = points[k]!;
      if (covers(cut.sourceId, a, b)) {
        out.push({ ...cut, startMs: a, endMs: b });
        continue;
      }
      // Prefer a camera showing the same people, then one that lasts for the rest of the shot
      // (one fallback cut instead of several), then the widest camera.
      const reach = (c: EditCamera): number => Math.min(spanOf.get(c.sourceId)?.endMs ?? b, cut.endMs);
      const candidates = cameras.all
        .filter((c) => covers(c.sourceId, a, b))
        .toSorted((x, y) => {
          const sx = x.speakers.filter((s) => shown.includes(s)).length;
          const sy = y.speakers.filter((s) => shown.includes(s)).length;
          return sy - sx || reach(y) - reach(x) || y.speakers.length - x.speakers.length || x.rank - y.rank;
        });
      const cam = candidates[0];
      if (cam) {
        out.push({ startMs: a, endMs: b, sourceId: cam.sourceId, reason: `${cut.reason ?? 'shot'}; camera not recording, ${cam.label} instead` });
        continue;
      }
      const anyFootage = spans.find((s) => s.startMs <= a && s.endMs >= b);
      if (anyFootage) out.push({ startMs: a, endMs: b, sourceId: anyFootage.sourceId, reason: 'no mapped camera recording (only footage)' });
      // else: no video source recorded this span; the cut list leaves a hole (rule cut-gap allows it).
    }
  }
  const merged: Cut[] = [];
  for (const c of out) {
    const last = merged.at(-1);
    if (last && last.sourceId === c.sourceId && last.endMs === c.startMs) last.endMs = c.endMs;
    else merged.push({ ...c });
  }
  return merged;
}

/** Input of {@link planCuts}. */
export interface PlanCutsInput {
  turns: readonly Turn[];
  cameras: EditCameras;
  preset: EditPreset;
  /** The reference timeline to cover. */
  startMs: number;
  endMs: number;
  /** Footage of every video source on the reference timeline. */
  spans: readonly SourceSpan[];
  /** Removed ranges: sorted, non-overlapping, inside the timeline. */
  removedRanges: readonly TimeRange[];
}

/**
 * The cut list of an edit, in reference time, covering `[startMs, endMs]` wherever some video
 * source has footage. Every cut carries a `reason`.
 */
export function planCuts(input: PlanCutsInput): Cut[] {
  const { cameras, preset } = input;
  const clock = new OutputClock(input.startMs, input.endMs, input.removedRanges);
  if (!(input.endMs > input.startMs)) return [];
  const segments = speechSegments(input.turns, clock);
  let shots = desiredShots(segments, cameras, clock);
  shots = enforceMinimum(shots, cameras, preset.minShotMs);
  // Natural cut-away moments: a pause, or anyone but a single speaker making a sound.
  const moments = segments.filter((s, i) => i > 0 && s.speakers.length !== 1).map((s) => s.startMs);
  for (let i = 1; i < segments.length; i++) {
    const prev = segments[i - 1]!.speakers;
    const cur = segments[i]!.speakers;
    if (cur.length === 1 && prev.length === 1 && cur[0] !== prev[0]) moments.push(segments[i]!.startMs);
  }
  moments.sort((a, b) => a - b);
  shots = addMonologueRelief(shots, cameras, preset, moments);
  const cuts: Cut[] = shots.map((s) => ({
    startMs: clock.toReference(s.startMs),
    endMs: clock.toReference(s.endMs),
    sourceId: s.camera.sourceId,
    reason: reasonOf(s),
  }));
  const first = cuts[0];
  const last = cuts.at(-1);
  if (first) first.startMs = input.startMs;
  if (last) last.endMs = input.endMs;
  if (cuts.length === 0) {
    // No camera shows anyone: show the first video source rather than nothing.
    const span = input.spans[0];
    if (span) cuts.push({ startMs: input.startMs, endMs: input.endMs, sourceId: span.sourceId, reason: 'no camera shows a speaker (first video source)' });
  }
  return fitToFootage(
    cuts.filter((c) => c.endMs > c.startMs),
    cameras,
    input.spans,
    preset.minShotMs,
  );
}
