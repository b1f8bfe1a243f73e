import { BackgroundWrites } from './background-writes.js';

/**
 * Writes that answered before their vectors reached this process's indexes (embedded `store`).
 * A store is acknowledged once its rows are committed; encoding its 13 spaces and inserting them
 * into the indexes follows on the job queue. Reads in this process wait for what is in flight
 * (`settled`), so a search that starts after a store answered still finds it by every signal,
 * while a burst of stores no longer waits for each other's vectors. A tracked write settles
 * once its vectors are in, or when the wait gives up (a job that fails or runs past
 * --embed-wait-ms leaves the write to the outbox, as a store that waited would).
 */
export class PendingVectors extends BackgroundWrites {}
