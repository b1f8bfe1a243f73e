import type { Queryable } from '../../store/db.js';
import { notify } from '../../store/locks.js';
import { lambdaImage, restoreLambda } from '../../store/meta-utl-repo.js';
import { profileByName, restoreProfile, restoreSynergy, synergyImage, type ProfileImage } from '../../store/profiles-repo.js';
import { deleteSignalRow, restoreSignalRow, signalRowForUpdate, type SignalTable } from '../../store/signals-repo.js';
import type { TxChange } from '../../store/tx-log.js';
import { image } from '../writes.js';
import { SIGNALS_CHANNEL } from './sync-job.js';

/**
 * Signal changes in the transaction log (entity 'signal'), so `undo` reverts them like any write.
 * An entity id names what changed:
 *
 * - `state:<key>`: a state document of signal_state (the Kuramoto coupling and phases, the calibration map and threshold);
 * - `adjustment:<id>`: a row of signal_adjustments (a neuromodulator impulse lives there; the others are the audit trail);
 * - `outcome:<id>`: a row of retrieval_outcomes (feedback: modulator impulses and calibration observations);
 * - `lambda:<project>`: a project's refit UTL λ with the stored L of the memories the refit rewrote;
 * - `profile:<name>`: a saved teleological profile (manage_teleological_profile save/delete);
 * - `synergy:<project>`: a project's synergy matrix (update_synergy_matrix).
 *
 * Undoing a creation deletes the row; undoing a change puts the logged image back. Every revert
 * announces itself on SIGNALS_CHANNEL, so each front end reloads its cached weights and threshold.
 */
export type Log = (change: TxChange) => void;

const TABLES: Record<string, SignalTable> = { state: 'signal_state', adjustment: 'signal_adjustments', outcome: 'retrieval_outcomes' };

/** Logs inserted rows (adjustments or outcomes) as created signal entities. */
export function logCreated(log: Log, prefix: 'adjustment' | 'outcome', rows: ReadonlyArray<Record<string, unknown> & { id: number }>): void {
  for (const row of rows) log({ entity: 'signal', entityId: `${prefix}:${row.id}`, before: null, after: image(row) });
}

/** The image of a state document as the log records it (null: no document yet). */
export async function stateImage(tx: Queryable, key: string): Promise<Record<string, unknown> | null> {
  const row = await signalRowForUpdate(tx, 'signal_state', key);
  return row ? image(row) : null;
}

/** Logs a state document's change when its value changed. */
export async function logState(tx: Queryable, log: Log, key: string, before: Record<string, unknown> | null): Promise<void> {
  const after = await stateImage(tx, key);
  if (JSON.stringify(before?.value ?? null) !== JSON.stringify(after?.value ?? null)) log({ entity: 'signal', entityId: `state:${key}`, before, after });
}

/** Restores one signal entity to `target` (null: absent) and answers its images before and after. */
export async function revertSignal(
  tx: Queryable,
  entityId: string,
  target: Record<string, unknown> | null,
): Promise<{ before: Record<string, unknown> | null; after: Record<string, unknown> | null }> {
  const cut = entityId.indexOf(':');
  const [kind, key] = [entityId.slice(0, cut), entityId.slice(cut + 1)];
  await notify(tx, SIGNALS_CHANNEL, `undo ${entityId}`);
  if (kind === 'lambda') {
    const nids = ((target ?? {}).learning as Array<[number, number]> | undefined)?.map(([nid]) => nid) ?? [];
    const before = await lambdaImage(tx, key, nids);
    if (target) await restoreLambda(tx, target as unknown as Parameters<typeof restoreLambda>[1]);
    return { before, after: target ? await lambdaImage(tx, key, nids) : null };
  }
  if (kind === 'profile') {
    const current = await profileByName(tx, key);
    const after = await restoreProfile(tx, key, target as ProfileImage | null);
    const asImage = (row: object | null) => (row ? (image(row) as Record<string, unknown>) : null);
    return { before: asImage(current), after: asImage(after) };
  }
  if (kind === 'synergy') {
    const before = await synergyImage(tx, key);
    await restoreSynergy(tx, key, target as { rows: [] } | null);
    return { before, after: await synergyImage(tx, key) };
  }
  const table = TABLES[kind];
  if (!table) throw new Error(`unknown signal entity ${entityId}`);
  const current = await signalRowForUpdate(tx, table, key);
  const before = current ? image(current) : null;
  if (target === null) {
    if (current) await deleteSignalRow(tx, table, key);
    return { before, after: null };
  }
  return { before, after: image(await restoreSignalRow(tx, table, target)) };
}
