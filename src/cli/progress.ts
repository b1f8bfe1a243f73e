import type { ImportCounts } from '../services/import-records.js';

/**
 * Progress of a long command on stderr (stdout may carry data, as `export` does). On a terminal
 * it is one line redrawn in place: a bar when the total is known, rate, ETA and the counts. Off
 * a terminal (a log file, CI) it is a plain line every few seconds, with no control characters,
 * so the log stays readable.
 */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): boolean;
}

export interface ProgressState {
  /** Units processed so far (bytes of input for import, lines for export). */
  done: number;
  /** Units in all, when known: enables the bar and the ETA. */
  total: number | null;
  /** Records handled, for the rate. */
  records: number;
  counts?: ImportCounts | undefined;
}

const TTY_REDRAW_MS = 100;
const PLAIN_EVERY_MS = 2_000;
const BAR_WIDTH = 24;

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

const n = (v: number) => v.toLocaleString('en-US');

export function describeCounts(c: ImportCounts): string {
  return `inserted ${n(c.inserted)}, updated ${n(c.updated)}, skipped ${n(c.skipped)}, rejected ${n(c.rejected)}`;
}

export class Progress {
  private readonly started = Date.now();
  private lastDraw = 0;
  private drawn = false;
  private state: ProgressState = { done: 0, total: null, records: 0 };
  private readonly tty: boolean;

  constructor(
    private readonly out: ProgressStream,
    private readonly label: string,
    opts: { tty?: boolean } = {},
  ) {
    this.tty = opts.tty ?? out.isTTY === true;
  }

  update(state: ProgressState): void {
    this.state = state;
    const now = Date.now();
    if (now - this.lastDraw < (this.tty ? TTY_REDRAW_MS : PLAIN_EVERY_MS)) return;
    this.lastDraw = now;
    this.draw();
  }

  /** A free-form state line (no counts), throttled like update. */
  status(text: string): void {
    const now = Date.now();
    if (now - this.lastDraw < (this.tty ? TTY_REDRAW_MS : PLAIN_EVERY_MS)) return;
    this.lastDraw = now;
    this.print(`${this.label}: ${text}, elapsed ${formatDuration(this.elapsedSeconds())}`);
  }

  /** A message that must not be overwritten by the bar (a rejected line, a warning). */
  note(text: string): void {
    if (this.tty && this.drawn) this.out.write('\r\x1b[2K');
    this.out.write(text.endsWith('\n') ? text : `${text}\n`);
    this.drawn = false;
  }

  /** Clears the bar; the caller prints its summary. */
  finish(): void {
    if (this.tty && this.drawn) this.out.write('\r\x1b[2K');
    this.drawn = false;
  }

  elapsedSeconds(): number {
    return (Date.now() - this.started) / 1000;
  }

  private line(): string {
    const { done, total, records, counts } = this.state;
    const elapsed = Math.max(this.elapsedSeconds(), 0.001);
    const rate = records / elapsed;
    const parts = [this.label];
    if (total && total > 0) {
      const fraction = Math.min(done / total, 1);
      const eta = fraction > 0 ? (elapsed / fraction) * (1 - fraction) : Number.NaN;
      if (this.tty) {
        const filled = Math.round(fraction * BAR_WIDTH);
        parts.push(`[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`);
      }
      parts.push(`${Math.floor(fraction * 100)}%`, `ETA ${formatDuration(eta)}`);
    }
    parts.push(`${n(records)} records`, `${n(Math.round(rate))}/s`, `elapsed ${formatDuration(elapsed)}`);
    if (counts) parts.push(`| ${describeCounts(counts)}`);
    return parts.join(' ');
  }

  private draw(): void {
    this.print(this.line());
  }

  private print(text: string): void {
    if (this.tty) {
      const width = this.out.columns && this.out.columns > 20 ? this.out.columns - 1 : 200;
      this.out.write(`\r\x1b[2K${text.slice(0, width)}`);
      this.drawn = true;
    } else {
      this.out.write(`${text}\n`);
    }
  }
}
