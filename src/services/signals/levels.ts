import type { Queryable } from '../../store/db.js';
import { outcomesSince, recentAdjustments } from '../../store/signals-repo.js';
import { BASELINE, excessAt, HALF_LIVES_READ, levelFrom, MODULATORS, MODULATOR_SPECS, OUTCOME_IMPULSES, type Impulse, type Modulator } from './neuromodulation.js';

/** The excess of every modulator over its baseline at `ref`: levelFrom gives the level at any later instant. */
export interface ModulatorAnchor {
  ref: number;
  excess: Record<Modulator, number>;
}

const OLDEST_READ_MS = HALF_LIVES_READ * Math.max(...MODULATORS.map((m) => MODULATOR_SPECS[m].halfLifeMs));

/**
 * Every impulse still felt at `now`: manual adjustments (the change they made to the unclamped
 * level) and retrieval outcomes (OUTCOME_IMPULSES), from their stored timestamps.
 */
export async function readImpulses(q: Queryable, now: number): Promise<Impulse[]> {
  const since = new Date(now - OLDEST_READ_MS);
  const manual = await recentAdjustments(q, { subsystem: 'neuromodulation', since, limit: 10_000 });
  const impulses: Impulse[] = manual.flatMap((a) =>
    (MODULATORS as readonly string[]).includes(a.target) && a.impulse !== null ? [{ modulator: a.target as Modulator, at: a.at.getTime(), delta: Number(a.impulse) }] : [],
  );
  for (const o of await outcomesSince(q, since)) {
    for (const [modulator, delta] of Object.entries(OUTCOME_IMPULSES[o.outcome] ?? {})) impulses.push({ modulator: modulator as Modulator, at: o.at.getTime(), delta });
  }
  return impulses;
}

export async function readAnchor(q: Queryable, now: number): Promise<ModulatorAnchor> {
  return { ref: now, excess: excessAt(await readImpulses(q, now), now) };
}

/** The level without the [0, 1] clamp: what an adjustment starts from, so that it moves the visible level by what it says. */
export function rawLevel(anchor: ModulatorAnchor, modulator: Modulator, now: number): number {
  return BASELINE + anchor.excess[modulator] * Math.pow(2, -Math.max(0, now - anchor.ref) / MODULATOR_SPECS[modulator].halfLifeMs);
}

export function levelsOf(anchor: ModulatorAnchor, now: number): Record<Modulator, number> {
  return Object.fromEntries(MODULATORS.map((m) => [m, levelFrom(m, anchor.excess[m], anchor.ref, now)])) as Record<Modulator, number>;
}
