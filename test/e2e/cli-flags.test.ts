import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { CLI, childEnv, tempDir } from '../helpers/cli.js';

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dir: Awaited<ReturnType<typeof tempDir>>;
before(async () => (dir = await tempDir()));
after(() => dir.remove());

/** Runs the compiled CLI to completion; kills it if it starts serving instead of refusing. */
function cli(args: string[]): Promise<Finished> {
  const proc = spawn(process.execPath, [CLI, ...args], { env: childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A refused command exits at once; one that started anyway is stopped, so the test fails rather than hangs.
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Exit code 2, nothing on stdout (stdio's stdout is for JSON-RPC only), one line naming the flag and the accepted ones. */
function assertRefused(r: Finished, command: string, named: string, accepted: string[]): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  const line = lines[0]!;
  assert.ok(line.startsWith(`context-graph ${command}: `), line);
  assert.ok(line.includes(named), `names ${named}: ${line}`);
  for (const flag of accepted) assert.ok(line.includes(flag), `lists ${flag}: ${line}`);
  assert.ok(!/listening/.test(r.stderr), 'did not start');
}

describe('command-line flags are checked', () => {
  test('serve --prot 1 is refused instead of starting on the default port', async () => {
    assertRefused(await cli(['serve', '--prot', '1']), 'serve', 'unknown flag --prot', ['--port', '--host', '--data-dir', '--help']);
  });

  test('stdio --bogus is refused, and stdio does not take the HTTP flags', async () => {
    const accepted = ['--data-dir', '--database-url', '--help'];
    assertRefused(await cli(['stdio', '--bogus']), 'stdio', 'unknown flag --bogus', accepted);
    const port = await cli(['stdio', '--port', '7411']);
    assertRefused(port, 'stdio', 'unknown flag --port', accepted);
    assert.ok(!/stdio accepts:.*--port/.test(port.stderr), 'stdio does not list --port');
  });

  test('every other command refuses an unknown flag too', async () => {
    assertRefused(await cli(['worker', '--bogus']), 'worker', '--bogus', ['--concurrency', '--redis-url']);
    assertRefused(await cli(['models', 'list', '--bogus']), 'models', '--bogus', ['--into', '--model-dir']);
    assertRefused(await cli(['docs', '--bogus']), 'docs', '--bogus', ['--help']);
  });

  test('a flag without its value is refused by name, even when another flag follows', async () => {
    assertRefused(await cli(['serve', '--port']), 'serve', '--port needs a value', ['--host']);
    // Without the check, "--port" would become the data directory and 1 a stray argument.
    assertRefused(await cli(['serve', '--data-dir', '--port', '1']), 'serve', '--data-dir needs a value', ['--port']);
    assertRefused(await cli(['worker', '--concurrency']), 'worker', '--concurrency needs a value', ['--queue']);
  });

  test('a port that is not a whole number is refused, in either flag form', async () => {
    assertRefused(await cli(['serve', '--port', 'http']), 'serve', '--port must be a whole number', ['--host']);
    // Number('') is 0: an empty value must not quietly pick a random port.
    assertRefused(await cli(['serve', '--port=']), 'serve', '--port must be a whole number', ['--host']);
    assertRefused(await cli(['serve', '--port', '80.5']), 'serve', '--port', ['--host']);
  });

  test('stray arguments are refused: serve 7612 does not mean port 7612', async () => {
    assertRefused(await cli(['serve', '7612']), 'serve', 'unexpected argument "7612"', ['--port']);
  });

  test('a value out of range is still a one-line error naming the flag', async () => {
    const r = await cli(['serve', '--port', '70000']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^context-graph serve: invalid --port="70000": .*\n$/);
  });

  test('an unknown toolset name is refused at start, naming the toolsets there are', async () => {
    const r = await cli(['serve', '--port', '0', '--toolsets', 'core,nope']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^context-graph serve: Unknown toolset nope; toolsets are core, .*graph.*\n$/);
  });

  test('accepted flags still work, in both --flag value and --flag=value forms', async () => {
    const r = await cli(['models', 'list', '--log-level=warn', '--model-dir', dir.path]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.length > 0);
  });

  test('--help still works for every command and lists exactly the flags it accepts', async () => {
    for (const command of ['serve', 'worker', 'models', 'docs']) {
      const r = await cli([command, '--help']);
      assert.equal(r.code, 0, command);
      assert.match(r.stdout, new RegExp(`^Usage: context-graph ${command}`), command);
    }
    // stdio prints help on stderr so stdout stays JSON-RPC only.
    const stdio = await cli(['stdio', '-h']);
    assert.equal(stdio.code, 0);
    assert.equal(stdio.stdout, '');
    assert.match(stdio.stderr, /--data-dir/);
    assert.ok(!stdio.stderr.includes('--port'), 'stdio help does not offer --port');
    const serve = await cli(['serve', '--help']);
    assert.match(serve.stdout, /--port \/ CONTEXT_GRAPH_PORT/);
    assert.ok(!serve.stdout.includes('--concurrency'));
    assert.equal((await cli(['--help'])).code, 0);
  });
});
