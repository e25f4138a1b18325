/**
 * The timeline canvas: waveform, one lane per speaker, the cuts coloured by camera, removed
 * ranges hatched, and the playhead. Pointer gestures: click to move the playhead (and select
 * the cut there), drag a cut boundary to move it, wheel to zoom around the pointer.
 *
 * @module
 */
import { speakerName, type SpeakerNames } from '../../contract/speaker-names.ts';
import type { Cut, TimeRange, Turn } from '../../contract/types.ts';
import { cameraColour } from './dom.ts';
import { boundaryNear, msToX, speakerLanes, xToMs, zoomView, type TimelineView } from './model.ts';

/** What the timeline draws. */
export interface TimelineData {
  totalMs: number;
  cuts: readonly Cut[];
  removed: readonly TimeRange[];
  turns: readonly Turn[];
  /** Names of the speakers (label → name) on their lanes. */
  names: SpeakerNames;
  /** Source ids of the cameras, in tile order (colour index). */
  cameraIds: readonly string[];
  /** Peak amplitude (0–1) per `peakStepMs` of reference time, or null while not decoded. */
  peaks: Float32Array | null;
  peakStepMs: number;
  playheadMs: number;
  selectedCut: number;
  /** A thumbnail of a camera at a reference time, when one is ready (see thumbnails.ts). */
  thumbnail?: (sourceId: string, refMs: number) => CanvasImageSource | undefined;
}

/** What the timeline tells the editor. */
export interface TimelineEvents {
  seek(ms: number): void;
  /** A boundary drag ended: cut `index`'s end (and `index + 1`'s start) should move to `ms`. */
  moveBoundary(index: number, ms: number): void;
}

const WAVE_H = 48;
const LANE_H = 18;
const CUT_H = 40;
/** Thumbnail size inside the cuts lane. */
const THUMB_H = CUT_H - 4;
const THUMB_W = Math.round((THUMB_H * 16) / 9);
const GRAB_PX = 6;

/** The canvas timeline. Call {@link Timeline.draw} with new data after every change. */
export class Timeline {
  readonly canvas: HTMLCanvasElement;
  view: TimelineView;
  private data: TimelineData;
  private readonly events: TimelineEvents;
  private drag: { index: number; ms: number } | null = null;

  constructor(data: TimelineData, events: TimelineEvents) {
    this.data = data;
    this.events = events;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'timeline';
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', 'timeline: waveform, speaker turns, cuts and removed pauses');
    this.view = { startMs: 0, endMs: Math.max(1000, data.totalMs), widthPx: 800 };
    this.canvas.addEventListener('pointerdown', (e) => this.onDown(e));
    this.canvas.addEventListener('pointermove', (e) => this.onMove(e));
    this.canvas.addEventListener('pointerup', (e) => this.onUp(e));
    this.canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.zoom(e.deltaY < 0 ? 1.25 : 0.8, xToMs(this.view, e.offsetX));
    });
  }

  /** The y of the cuts lane's top (for tests and hit-testing). */
  get cutsTop(): number {
    return WAVE_H + speakerLanes(this.data.turns).length * LANE_H + 4;
  }

  zoom(factor: number, anchorMs = this.data.playheadMs): void {
    this.view = zoomView(this.view, factor, anchorMs, this.data.totalMs);
    this.draw(this.data);
  }

  // Over 80 lines on purpose: one paint per frame, its commented layers (waveform, lanes, cuts,
  // removed ranges, playhead) share the view, context and scale; split, each would recompute them.
  draw(data: TimelineData): void {
    this.data = data;
    const lanes = speakerLanes(data.turns);
    const width = Math.max(200, this.canvas.clientWidth || 800);
    const height = this.cutsTop + CUT_H + 14;
    const dpr = globalThis.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.height = `${height}px`;
    }
    this.view = { ...this.view, widthPx: width };
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#15171c';
    ctx.fillRect(0, 0, width, height);
    const x = (ms: number): number => msToX(this.view, ms);

    // Waveform: one vertical bar per pixel, the loudest peak under it.
    ctx.fillStyle = '#5b6b84';
    if (data.peaks) {
      for (let px = 0; px < width; px++) {
        const a = Math.floor(xToMs(this.view, px) / data.peakStepMs);
        const b = Math.max(a + 1, Math.floor(xToMs(this.view, px + 1) / data.peakStepMs));
        let peak = 0;
        for (let i = Math.max(0, a); i < Math.min(b, data.peaks.length); i++) peak = Math.max(peak, data.peaks[i]!);
        const h = peak * (WAVE_H - 6);
        ctx.fillRect(px, WAVE_H / 2 - h / 2, 1, Math.max(1, h));
      }
    } else {
      ctx.fillRect(0, WAVE_H / 2, width, 1);
    }

    // Speaker lanes.
    ctx.font = '11px system-ui, sans-serif';
    lanes.forEach((speaker, i) => {
      const y = WAVE_H + i * LANE_H;
      ctx.fillStyle = i % 2 ? '#1d2027' : '#191b21';
      ctx.fillRect(0, y, width, LANE_H);
      ctx.fillStyle = '#9fb3c8';
      for (const t of data.turns)
        if (t.speaker === speaker)
          ctx.fillRect(x(t.startMs), y + 3, Math.max(1, x(t.endMs) - x(t.startMs)), LANE_H - 6);
      ctx.fillStyle = '#e6e6e6';
      ctx.fillText(speakerName(speaker, data.names), 4, y + LANE_H - 5);
    });

    // Cuts, coloured by camera; the selected one outlined.
    const top = this.cutsTop;
    data.cuts.forEach((cut, i) => {
      const cam = data.cameraIds.indexOf(cut.sourceId);
      ctx.fillStyle = cameraColour(cam < 0 ? 8 : cam);
      const x0 = x(cut.startMs);
      const w = Math.max(1, x(cut.endMs) - x0);
      ctx.fillRect(x0, top, w, CUT_H);
      // A frame of the cut's camera at its start, where the cut is wide enough to show it.
      const thumb = w > THUMB_W + 18 ? data.thumbnail?.(cut.sourceId, cut.startMs + 250) : undefined;
      if (thumb) ctx.drawImage(thumb, x0 + 16, top + 2, THUMB_W, THUMB_H);
      ctx.fillStyle = '#000';
      if (w > 14) ctx.fillText(String(cam + 1), x0 + 4, top + 18);
      if (i === data.selectedCut) {
        ctx.strokeStyle = '#fff';
        ctx.lineWidth = 2;
        ctx.strokeRect(x0 + 1, top + 1, w - 2, CUT_H - 2);
      }
    });

    // Removed ranges: dark and hatched across the whole height.
    for (const r of data.removed) {
      const x0 = x(r.startMs);
      const w = Math.max(1, x(r.endMs) - x0);
      ctx.fillStyle = 'rgba(0,0,0,0.6)';
      ctx.fillRect(x0, 0, w, height);
      ctx.strokeStyle = 'rgba(255,80,80,0.8)';
      ctx.lineWidth = 1;
      for (let hx = x0 - height; hx < x0 + w; hx += 6) {
        ctx.beginPath();
        ctx.moveTo(Math.max(x0, hx), top + CUT_H - Math.max(0, x0 - hx));
        ctx.lineTo(Math.min(x0 + w, hx + CUT_H), top + Math.max(0, hx + CUT_H - (x0 + w)));
        ctx.stroke();
      }
    }

    // A boundary being dragged, then the playhead.
    if (this.drag) {
      ctx.fillStyle = '#fff';
      ctx.fillRect(x(this.drag.ms) - 1, top - 4, 2, CUT_H + 8);
    }
    ctx.fillStyle = '#ff3b3b';
    ctx.fillRect(x(data.playheadMs) - 1, 0, 2, height);
  }

  private onDown(e: PointerEvent): void {
    const ms = xToMs(this.view, e.offsetX);
    const tolerance = ((this.view.endMs - this.view.startMs) / this.view.widthPx) * GRAB_PX;
    const index = e.offsetY >= this.cutsTop - 4 ? boundaryNear(this.data.cuts, ms, tolerance) : null;
    if (index !== null) {
      this.drag = { index, ms };
      this.canvas.setPointerCapture(e.pointerId);
    } else {
      this.events.seek(ms);
    }
  }

  private onMove(e: PointerEvent): void {
    if (this.drag) {
      this.drag.ms = xToMs(this.view, e.offsetX);
      this.draw(this.data);
      return;
    }
    const ms = xToMs(this.view, e.offsetX);
    const tolerance = ((this.view.endMs - this.view.startMs) / this.view.widthPx) * GRAB_PX;
    const near = e.offsetY >= this.cutsTop - 4 && boundaryNear(this.data.cuts, ms, tolerance) !== null;
    this.canvas.style.cursor = near ? 'ew-resize' : 'pointer';
  }

  private onUp(e: PointerEvent): void {
    if (!this.drag) return;
    const { index } = this.drag;
    const ms = xToMs(this.view, e.offsetX);
    this.drag = null;
    this.canvas.releasePointerCapture(e.pointerId);
    this.events.moveBoundary(index, ms);
  }
}
