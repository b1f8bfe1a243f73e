import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors.js';
import type { Db, Queryable } from '../store/db.js';
import { claimIdempotencyKey, idempotencyRecord, saveIdempotentResult, type IdempotencyRecord, type KeyClaim } from '../store/idempotency-repo.js';

/**
 * Idempotency keys for every mutating tool (the kit's invoke() wraps each keyed call in `run`).
 *
 * The key is written by the call's first transaction, inside it (`writeTransaction` asks
 * `claimInTransaction`), so "committed" and "key recorded" cannot disagree: a crash between
 * commit and answer leaves the key, and the retry writes nothing. The answer is saved once the
 * call has it, and a retry gets that answer back.
 */

/** The keyed call running in this async context. */
interface KeyedCall extends KeyClaim {
  /** Set once a transaction of this call committed with the key. */
  recorded: boolean;
}

const current = new AsyncLocalStorage<KeyedCall>();

/** Thrown inside a transaction when another call committed the same new key first: rolls this write back. */
class KeyTakenError extends Error {
  override name = 'KeyTakenError';
}

/**
 * For `writeTransaction`, inside the transaction once its tx_id exists: claims the key of the
 * keyed call this transaction belongs to, if any and not yet claimed. Answers what to do after
 * the commit (mark the call recorded).
 */
export async function claimInTransaction(tx: Queryable, txId: number, entityId: string | null): Promise<(() => void) | null> {
  const call = current.getStore();
  if (!call || call.recorded) return null;
  const holder = await claimIdempotencyKey(tx, call, { txId, entityId });
  if (holder !== call.callId) throw new KeyTakenError(`idempotency key of ${call.tool} taken by a concurrent call`);
  return () => (call.recorded = true);
}

/** The arguments a key was first used with, as a stable hash (object keys sorted, dates as ISO). */
export function argsHash(args: Record<string, unknown>): string {
  const canonical = (v: unknown): unknown => {
    if (v instanceof Date) return v.toISOString();
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(args)))
    .digest('hex');
}

export interface KeyedRequest {
  tool: string;
  key: string;
  args: Record<string, unknown>;
  /** The tool is idempotent by nature: when the first answer was lost, running it again changes nothing. */
  rerunnable: boolean;
  /** Rebuilds the first answer from the write it made, when the tool can (store). */
  rebuild?: ((write: { txId: number; entityId: string }) => Promise<Record<string, unknown> | null>) | undefined;
}

export interface KeyedOutcome {
  payload: Record<string, unknown>;
  /** An earlier call with the key made the change; nothing was written now. */
  replayed: boolean;
}

/** How long a retry waits for the answer of a first call still running in another process. */
const IN_FLIGHT_WAIT_MS = 10_000;
const POLL_MS = 50;

export class IdempotencyService {
  /** Call ids running in this process: a key held by none of them and not answered is a lost answer. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: { db: Db; /** Other front ends share the database: a key may be in flight there. */ shared: boolean }) {}

  /**
   * Runs `handler` once per (tool, key): the first call runs it, every later call with the same
   * arguments answers the first result; other arguments are IDEMPOTENCY_KEY_REUSED. `save`
   * says whether an answer is final (a needsInput answer is not: the client calls again).
   */
  async run(req: KeyedRequest, handler: () => Promise<Record<string, unknown>>, save: (payload: Record<string, unknown>) => boolean): Promise<KeyedOutcome> {
    const hash = argsHash(req.args);
    for (let attempt = 0; ; attempt++) {
      const prior = await idempotencyRecord(this.deps.db, req.tool, req.key);
      if (prior) {
        const answer = await this.answerOf(req, hash, prior);
        if (answer) return { payload: answer, replayed: true };
        // The first answer is lost and the tool may run again: this call's answer becomes the key's.
      }
      const call: KeyedCall = { tool: req.tool, key: req.key, argsHash: hash, callId: randomUUID(), recorded: false };
      this.inFlight.add(call.callId);
      try {
        const payload = await current.run(call, handler);
        if (save(payload)) await saveIdempotentResult(this.deps.db, call, payload);
        return { payload, replayed: false };
      } catch (err) {
        // A concurrent first use won between our look-up and our commit: answer its write.
        if (err instanceof KeyTakenError && attempt < 3) continue;
        throw err;
      } finally {
        this.inFlight.delete(call.callId);
      }
    }
  }

  /** The first call's answer; null when it is lost and the tool may simply run again. */
  private async answerOf(req: KeyedRequest, hash: string, first: IdempotencyRecord): Promise<Record<string, unknown> | null> {
    if (first.args_hash !== null && first.args_hash !== hash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        `The idempotency_key was already used for a ${req.tool} call with other arguments; nothing was changed. Use a new key for a new change.`,
        { tool: req.tool, first_tx_id: first.tx_id },
      );
    }
    const settled = first.result ? first : await this.awaitAnswer(req, first);
    if (settled.result) return settled.result;
    if (settled.tx_id !== null && settled.entity_id !== null && req.rebuild) {
      const rebuilt = await req.rebuild({ txId: settled.tx_id, entityId: settled.entity_id });
      if (rebuilt) return rebuilt;
    }
    if (req.rerunnable || settled.tx_id === null) return null;
    throw new AppError(
      'ALREADY_APPLIED',
      `An earlier ${req.tool} call with this idempotency_key committed in transaction ${settled.tx_id}, but its answer was lost; nothing was written now.`,
      { tool: req.tool, tx_id: settled.tx_id, entity_id: settled.entity_id },
    );
  }

  /** A first call still running (here, or in another front end for a while) is waited for. */
  private async awaitAnswer(req: KeyedRequest, first: IdempotencyRecord): Promise<IdempotencyRecord> {
    const runningHere = () => first.call_id !== null && this.inFlight.has(first.call_id);
    const maybeElsewhere = () => this.deps.shared && Date.now() - first.created_at.getTime() < IN_FLIGHT_WAIT_MS;
    const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
    let latest = first;
    while (!latest.result && (runningHere() || maybeElsewhere()) && Date.now() < deadline) {
      await sleep(POLL_MS);
      latest = (await idempotencyRecord(this.deps.db, req.tool, req.key)) ?? latest;
    }
    return latest;
  }
}
