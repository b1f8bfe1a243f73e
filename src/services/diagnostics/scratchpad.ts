import { AppError } from '../../errors.js';

/**
 * Working memory of one MCP session (seed 001 §3.6 REQ-MCP-P2-007): plain key → text pairs held
 * by the session's own server object, so nothing reaches the graph, the transaction log or
 * another session, and everything is gone when the session ends. Bounded in entries and bytes
 * (UTF-8 of keys and values); a write past either bound is SCRATCHPAD_FULL and changes nothing.
 */
export const SCRATCHPAD_MAX_ENTRIES = 100;
export const SCRATCHPAD_MAX_BYTES = 64 * 1024;

export interface ScratchpadEntry {
  key: string;
  value: string;
  bytes: number;
  written_at: string;
}

const sizeOf = (key: string, value: string) => Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');

export class Scratchpad {
  private readonly entries = new Map<string, ScratchpadEntry>();

  constructor(private readonly limits: { maxEntries: number; maxBytes: number } = { maxEntries: SCRATCHPAD_MAX_ENTRIES, maxBytes: SCRATCHPAD_MAX_BYTES }) {}

  usage(): { entries: number; bytes: number; max_entries: number; max_bytes: number } {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.bytes;
    return { entries: this.entries.size, bytes, max_entries: this.limits.maxEntries, max_bytes: this.limits.maxBytes };
  }

  write(key: string, value: string): { entry: ScratchpadEntry; replaced: boolean } {
    const before = this.usage();
    const old = this.entries.get(key);
    const bytes = sizeOf(key, value);
    const entries = before.entries + (old ? 0 : 1);
    const total = before.bytes - (old?.bytes ?? 0) + bytes;
    if (entries > this.limits.maxEntries || total > this.limits.maxBytes) {
      throw new AppError(
        'SCRATCHPAD_FULL',
        `The scratchpad holds ${before.entries} entries and ${before.bytes} bytes; writing "${key}" (${bytes} bytes) would exceed ${entries > this.limits.maxEntries ? `${this.limits.maxEntries} entries` : `${this.limits.maxBytes} bytes`}. Clear keys you no longer need.`,
        { ...before, key, value_bytes: bytes },
      );
    }
    const entry = { key, value, bytes, written_at: new Date().toISOString() };
    this.entries.set(key, entry);
    return { entry, replaced: Boolean(old) };
  }

  read(key?: string): ScratchpadEntry[] {
    if (key !== undefined) {
      const e = this.entries.get(key);
      return e ? [e] : [];
    }
    return [...this.entries.values()];
  }

  /** Removes one key, or every key; answers how many went. */
  clear(key?: string): number {
    if (key !== undefined) return this.entries.delete(key) ? 1 : 0;
    const n = this.entries.size;
    this.entries.clear();
    return n;
  }
}
