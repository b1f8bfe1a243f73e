import { setPriority } from 'node:os';
import { fitAndCheck, type ConeFitInput, type ConeFitOutput } from '../src/utl/poincare.js';
import { fingerprintBatchMath, type BatchInput, type BatchOutput } from '../src/utl/fingerprint-batch.js';

/**
 * Piscina entry for background arithmetic that on the main thread would hold up every call and
 * PGlite statement behind it: the fingerprint job's cosines over the reference window (a few ms
 * per memory; the default export) and the hierarchy fit's epochs (`fitCones`: seconds for a
 * project of thousands of memories). Nobody waits for it, so its thread yields the cores to those that serve calls: on
 * Linux a thread has its own nice value, and setPriority on "this process" sets the calling
 * thread's (elsewhere it may lower the whole process, so it is left alone there).
 */
if (process.platform === 'linux') {
  try {
    setPriority(19);
  } catch {
    // Not permitted here: the arithmetic still runs off the event loop.
  }
}

export default function fingerprintMath(input: BatchInput): BatchOutput {
  const results = fingerprintBatchMath(input);
  return { results, stats: input.stats };
}

export function fitCones(input: ConeFitInput): Promise<ConeFitOutput> {
  return fitAndCheck(input);
}
