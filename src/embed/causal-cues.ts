/**
 * The phrases that state a cause in plain text, one list for every reader of causality: the E5
 * encoder (which side of a memory is cause, which effect) and the link job's Causal edges
 * (src/services/navigation/cause-text.ts). Each reader adds the few cues only it can use.
 */

/** "<effect> because <cause>": the cause follows the cue. */
export const CAUSE_FOLLOWS_CUES: readonly string[] = ['as a result of', 'because of', 'caused by', 'due to', 'owing to', 'thanks to', 'because', 'since'];

/** "<cause> therefore <effect>": the effect follows the cue. */
export const EFFECT_FOLLOWS_CUES: readonly string[] = [
  'as a result',
  'which is why',
  "that's why",
  'that is why',
  'consequently',
  'therefore',
  'resulted in',
  'results in',
  'leading to',
  'led to',
  'leads to',
  'lead to',
  'caused',
  'causes',
  'hence',
  'thus',
];
