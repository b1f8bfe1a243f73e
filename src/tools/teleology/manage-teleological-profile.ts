import * as z from 'zod';
import { markersFor } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { AppError } from '../../errors.js';
import { profileNameField, spaceWeightsField } from './fields.js';

const profile = z.object({ name: z.string(), weights: z.record(z.string(), z.number()), description: z.string(), builtin: z.boolean() });

const output = z.object({
  kind: z.literal('teleological_profiles:v1'),
  action: z.enum(['list', 'get', 'save', 'delete']),
  profiles: z.array(profile),
  deleted: z.boolean().nullable(),
  contract_markers: contractMarkersSchema,
});

export const manageTeleologicalProfileTool = defineTool({
  name: 'manage_teleological_profile',
  title: 'Weight profiles',
  description: `List, read, save or delete per-space weight profiles; search_graph searches with one by name.
When to use: to favour a family of spaces for a kind of question (e.g. identifiers E7 for code, E2–E4 for time) and reuse it. A saved profile named like a built-in one replaces it; deleting it restores the built-in.
Example: {"action": "list"}
Advanced: {"action": "save", "name": "code-heavy", "weights": {"E7": 3, "E13": 0.5, "E1": 0.5}, "description": "identifiers first"}`,
  annotations: IDEMPOTENT_WRITE,
  input: z.strictObject({
    action: z.enum(['list', 'get', 'save', 'delete']).default('list'),
    name: profileNameField.optional(),
    weights: spaceWeightsField.optional(),
    description: z.string().max(500).optional(),
  }),
  output,
  async handler(args, ctx) {
    const t = ctx.services.teleology;
    const need = (field: 'name' | 'weights') => {
      throw new AppError('INVALID_PARAMS', `action ${args.action} needs ${field}.`, { issues: [{ path: field, message: 'required for this action' }] });
    };
    const out = (profiles: Awaited<ReturnType<typeof t.profiles>>, deleted: boolean | null = null) => ({
      kind: 'teleological_profiles:v1' as const,
      action: args.action,
      profiles: profiles.map((p) => ({ ...p, weights: p.weights })),
      deleted,
      contract_markers: markersFor(profiles.length),
    });
    if (args.action === 'list') return out(await t.profiles());
    if (!args.name) return need('name');
    if (args.action === 'get') return out([await t.profile(args.name)]);
    if (args.action === 'delete') return out([], await t.deleteProfile(args.name, ctx.actor));
    if (!args.weights) return need('weights');
    return out([await t.saveProfile({ name: args.name, weights: args.weights, description: args.description }, ctx.actor)]);
  },
  render(r) {
    if (r.action === 'delete') return r.deleted ? 'Profile deleted.' : 'No saved profile by that name (built-in profiles cannot be deleted).';
    return r.profiles
      .map(
        (p) =>
          `- **${p.name}**${p.builtin ? ' (built-in)' : ''}: ${Object.entries(p.weights)
            .map(([s, w]) => `${s} ${w}`)
            .join(', ')}${p.description ? ` — ${p.description}` : ''}`,
      )
      .join('\n');
  },
});
