import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Piscina } from 'piscina';
import { bundledE1ModelDir } from '../../src/embed/bundled.js';
import { describeEncoders, type EmbedWorkerResult, type EmbedWorkerTask } from '../../src/embed/pool.js';
import { workerFile } from '../../src/paths.js';

// The pool answers encoders() from describeEncoders without starting a worker (issue 15): it
// must be exactly what a worker that loaded the models reports, or vectors would be filed
// under the wrong model id.
for (const e1 of [{ provider: 'glove-static', modelDir: bundledE1ModelDir() }, { provider: 'model-free' }] as const) {
  test(`describeEncoders equals a worker's info (${e1.provider})`, async () => {
    const pool = new Piscina<EmbedWorkerTask, EmbedWorkerResult>({ filename: workerFile('embed'), minThreads: 0, maxThreads: 1 });
    try {
      const fromWorker = await pool.run({ op: 'info', config: { e1 } });
      assert.deepEqual(await describeEncoders(e1), fromWorker);
    } finally {
      await pool.destroy();
    }
  });
}

test('a described E1 refuses to encode', async () => {
  const [info] = await describeEncoders({ provider: 'glove-static', modelDir: bundledE1ModelDir() });
  const { e1Semantic } = await import('../../src/embed/spaces/e1-semantic.js');
  const encoder = await e1Semantic.encoder!({ e1: { provider: 'described', info: info! } });
  assert.throws(() => encoder.encode(['text']), /only described/);
});
