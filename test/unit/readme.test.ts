import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listSurface, REFERENCE_BEGIN, REFERENCE_END, renderReference } from '../../src/mcp/docs.js';
import { ERROR_REGISTRY } from '../../src/errors.js';
import { packageRoot } from '../../src/paths.js';
import { SERVE_NODE_FLAGS } from '../../src/serve-flags.js';
import { callSchema, normalizeArgs } from '../../src/tools/kit/input.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import type * as z from 'zod';

test('the README reference is exactly what the schemas generate (run `node dist/src/cli.js docs` to refresh it)', async () => {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  const begin = readme.indexOf(REFERENCE_BEGIN);
  const end = readme.indexOf(REFERENCE_END);
  assert.ok(begin >= 0 && end > begin, 'README has the reference markers');
  const surface = await listSurface();
  assert.equal(readme.slice(begin, end + REFERENCE_END.length), renderReference(surface));
  // Every tool, resource, prompt and error code is named.
  for (const t of surface.tools) assert.ok(readme.includes(`#### \`${t.name}\``), t.name);
  for (const code of Object.keys(ERROR_REGISTRY)) assert.ok(readme.includes(`| \`${code}\` |`), code);
});

test('every tool has a when-to-use line and two examples, and every example is a valid call', async () => {
  for (const tool of ALL_TOOLS) {
    const d = tool.description;
    assert.match(d, /When to use/i, tool.name);
    const examples = [...d.matchAll(/^(Example|Advanced): (.*)$/gm)];
    assert.deepEqual(
      examples.map((e) => e[1]),
      ['Example', 'Advanced'],
      `${tool.name} has a happy-path and an advanced example`,
    );
    const schema = callSchema(tool.input as unknown as z.ZodObject);
    for (const [, , line] of examples) {
      // One line may show several alternative calls separated by " · ".
      for (const json of line!.split(' · ')) {
        const parsed = schema.safeParse(normalizeArgs(JSON.parse(json), schema.shape));
        assert.ok(parsed.success, `${tool.name} example ${json} is invalid: ${parsed.success ? '' : parsed.error.message}`);
      }
    }
  }
});

test('`npm start`, and the stdio client example, run the server with its Node flags (src/serve-flags.ts)', () => {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.start, `node ${SERVE_NODE_FLAGS.join(' ')} dist/src/cli.js serve`);
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  assert.ok(readme.includes(`"args": [${SERVE_NODE_FLAGS.map((f) => JSON.stringify(f)).join(', ')}, "/path/to/context-graph/dist/src/cli.js", "stdio"]`));
});
