import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import type { JobEvents, JobFailedError, JobProgress, Unsubscribe } from './queue.js';

type EventName = 'progress' | 'completed' | 'failed';

/**
 * The in-memory side of JobEvents that both backends share: the in-process queue emits into it
 * directly, the BullMQ queue feeds it from its QueueEvents reader.
 */
export class JobEventBus implements JobEvents {
  private readonly emitter = new EventEmitter();

  /**
   * @param onSubscribe called at every subscription, so BullMQ can start its Redis reader only
   *   once somebody listens.
   */
  constructor(private readonly opts: { logger?: Logger | undefined; onSubscribe?: () => void } = {}) {
    // One listener per waiting caller and job: many at once is normal, not a leak.
    this.emitter.setMaxListeners(0);
  }

  onProgress(jobId: string, listener: (progress: JobProgress) => void): Unsubscribe {
    return this.on('progress', jobId, listener);
  }

  onCompleted(jobId: string, listener: (result: unknown) => void): Unsubscribe {
    return this.on('completed', jobId, listener);
  }

  onFailed(jobId: string, listener: (error: JobFailedError) => void): Unsubscribe {
    return this.on('failed', jobId, listener);
  }

  emitProgress(jobId: string, progress: JobProgress): void {
    this.emitter.emit(`progress:${jobId}`, progress);
  }

  emitCompleted(jobId: string, result: unknown): void {
    this.emitter.emit(`completed:${jobId}`, result);
    this.forget(jobId);
  }

  emitFailed(jobId: string, error: JobFailedError): void {
    this.emitter.emit(`failed:${jobId}`, error);
    this.forget(jobId);
  }

  private on<T>(event: EventName, jobId: string, listener: (value: T) => void): Unsubscribe {
    // A throwing listener must not break the queue that emits, nor the listeners after it.
    const guarded = (value: T) => {
      try {
        listener(value);
      } catch (err) {
        this.opts.logger?.warn({ err, jobId, event }, 'job event listener threw');
      }
    };
    this.emitter.on(`${event}:${jobId}`, guarded);
    this.opts.onSubscribe?.();
    return () => void this.emitter.off(`${event}:${jobId}`, guarded);
  }

  /** A finished job sends nothing more: its listeners would only pile up. */
  private forget(jobId: string): void {
    for (const event of ['progress', 'completed', 'failed'] as const) this.emitter.removeAllListeners(`${event}:${jobId}`);
  }
}
