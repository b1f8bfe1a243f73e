import { Piscina, type PiscinaTask, type TaskQueue } from 'piscina';

/** What a task carries to ask for the background lane (a symbol key: the worker never sees it). */
export const BACKGROUND_LANE = { [Piscina.queueOptionsSymbol]: { lane: 'background' } } as const;

function inBackground(task: PiscinaTask): boolean {
  const options = (task as unknown as Record<symbol, { lane?: string } | null>)[Piscina.queueOptionsSymbol];
  return options?.lane === 'background';
}

/**
 * The embedding pool's queue: two first-in-first-out lanes, and a waiting task of the first lane
 * (a search's query, a store's duplicate check: a call waits for it) goes before every waiting
 * task of the background lane (a job's vectors). A query that arrives during an import waits for
 * the one batch running, not for the batches queued behind it.
 */
export class TaskLanes implements TaskQueue {
  private readonly lanes: [PiscinaTask[], PiscinaTask[]] = [[], []];

  get size(): number {
    return this.lanes[0].length + this.lanes[1].length;
  }

  push(task: PiscinaTask): void {
    this.lanes[inBackground(task) ? 1 : 0].push(task);
  }

  unshift(task: PiscinaTask): void {
    this.lanes[inBackground(task) ? 1 : 0].unshift(task);
  }

  shift(): PiscinaTask | null {
    return this.lanes[0].shift() ?? this.lanes[1].shift() ?? null;
  }

  remove(task: PiscinaTask): void {
    for (const lane of this.lanes) {
      const at = lane.indexOf(task);
      if (at >= 0) lane.splice(at, 1);
    }
  }
}
