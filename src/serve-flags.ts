/**
 * The Node flags `npm start` runs the server with (package.json "start"; test/unit/readme.test.ts
 * keeps the two equal, and the test helpers start `serve` and `stdio` with them too). V8 sizes
 * the young generation up to two 16 MB semi-spaces, which a starting server fills and keeps
 * until the memory reducer shrinks it about 20 s later; 4 MB ones keep an idle server under
 * 200 MiB (213 → 182 MiB 10 s after start) at no measured cost to `store` or `search`
 * (bench/results/2026-11-27-session8). V8 reads the flag only at start, so it cannot be set
 * from the code.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
