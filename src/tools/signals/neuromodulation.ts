import * as z from 'zod';
import { MAX_ADJUST, MODULATORS } from '../../services/signals/neuromodulation.js';
import { defineTool, READ_ONLY, WRITE } from '../kit/define.js';
import { rationale } from '../kit/fields.js';

const modulatorSchema = z.object({
  modulator: z.enum(MODULATORS),
  level: z.number().describe('Now, in [0, 1]: the baseline plus every impulse still felt, decayed by its age.'),
  baseline: z.number(),
  half_life_minutes: z.number(),
  driven_by: z.string(),
  modulates: z.string(),
  effect: z.object({
    parameter: z.string(),
    value: z.number().describe('The parameter’s value at this level.'),
    baseline_value: z.number(),
  }),
});

const render = (ms: ReadonlyArray<z.output<typeof modulatorSchema>>) =>
  ms
    .map(
      (m) =>
        `- **${m.modulator}** ${m.level.toFixed(3)} (baseline ${m.baseline}): ${m.effect.parameter} = ${m.effect.value.toFixed(3)} (baseline ${m.effect.baseline_value}) — ${m.modulates}`,
    )
    .join('\n');

export const getNeuromodulationStateTool = defineTool({
  name: 'get_neuromodulation_state',
  title: 'All four neuromodulators',
  description: `Dopamine, serotonin, noradrenaline and acetylcholine: each level (decaying to its baseline with its half-life, computed from the timestamps of what moved it), what drives it and the parameter it sets now: dopamine the Kuramoto sync gain, serotonin the spread of fusion weights, noradrenaline the MMR diversity of search results, acetylcholine the calibration learning rate.
When to use: to see why retrieval behaves as it does right now.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output: z.object({ kind: z.literal('neuromodulationState:v1'), modulators: z.array(modulatorSchema) }),
  async handler(_args, ctx) {
    return { kind: 'neuromodulationState:v1' as const, modulators: await ctx.services.signals.neuromodulation() };
  },
  render: (r) => render(r.modulators),
});

export const getNeuromodulationTool = defineTool({
  name: 'get_neuromodulation',
  title: 'One neuromodulator',
  description: `One neuromodulator's level and the retrieval or calibration parameter it sets now (get_neuromodulation_state lists all four). An unknown name answers the allowed values.
When to use: before a search that should be more exploratory (noradrenaline) or to check the reward of recent feedback (dopamine).
Example: {"modulator": "noradrenaline"}
Advanced: {"modulator": "dopamine", "format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ modulator: z.enum(MODULATORS) }),
  output: z.object({ kind: z.literal('neuromodulation:v1'), modulator: modulatorSchema }),
  async handler(args, ctx) {
    const [m] = await ctx.services.signals.neuromodulation(args.modulator);
    return { kind: 'neuromodulation:v1' as const, modulator: m! };
  },
  render: (r) => render([r.modulator]),
});

export const adjustNeuromodulatorTool = defineTool({
  name: 'adjust_neuromodulator',
  title: 'Move a neuromodulator',
  description: `Move one neuromodulator by delta (−${MAX_ADJUST}…${MAX_ADJUST}); the level stays within [0, 1] and decays back to its baseline with the modulator's half-life. Logged with before/after and your rationale; undo takes the adjustment back. Raising noradrenaline makes search return more diverse results (fewer near duplicates); raising acetylcholine makes the next recalibration move thresholds further; serotonin above baseline evens out the fusion weights, below sharpens the down-weighting of spaces out of sync; dopamine scales how fast sync follows new evidence.
When to use: explore (noradrenaline up) when results repeat themselves; learn faster from feedback (acetylcholine up).
Example: {"modulator": "noradrenaline", "delta": 0.4, "rationale": "results are near duplicates of each other"}
Advanced: {"modulator": "acetylcholine", "delta": -0.2, "rationale": "feedback today is noisy, calibrate slowly", "format": "json"}`,
  annotations: WRITE,
  input: z.strictObject({
    modulator: z.enum(MODULATORS),
    delta: z
      .number()
      .min(-MAX_ADJUST, `must be at least -${MAX_ADJUST}`)
      .max(MAX_ADJUST, `must be at most ${MAX_ADJUST}`)
      .describe(`Change of level in [−${MAX_ADJUST}, ${MAX_ADJUST}].`),
    rationale: rationale('Why, 10–1,000 characters; recorded in the adjustment log.'),
  }),
  output: z.object({
    kind: z.literal('neuromodulatorAdjusted:v1'),
    modulator: z.enum(MODULATORS),
    previous_level: z.number(),
    level: z.number(),
    clamped: z.boolean().describe('True when the level hit 0 or 1.'),
    state: modulatorSchema,
  }),
  async handler(args, ctx) {
    const { before, after } = await ctx.services.signals.adjustModulator(args.modulator, args.delta, { actor: ctx.actor, rationale: args.rationale });
    const [state] = await ctx.services.signals.neuromodulation(args.modulator);
    return {
      kind: 'neuromodulatorAdjusted:v1' as const,
      modulator: args.modulator,
      previous_level: before,
      level: after,
      clamped: Math.abs(after - (before + args.delta)) > 1e-12,
      state: state!,
    };
  },
  render: (r) => `${r.modulator} ${r.previous_level.toFixed(3)} → ${r.level.toFixed(3)}${r.clamped ? ' (clamped)' : ''}.\n${render([r.state])}`,
});
