/**
 * Tests that take a minute or more of a 2-core machine each (process kills, several processes
 * racing, long jobs): skipped by `npm test`, which must stay under 10 minutes, and run by
 * `npm run test:slow` (CONTEXT_GRAPH_SLOW_TESTS=1), which CI runs as well.
 */
export const SLOW = process.env.CONTEXT_GRAPH_SLOW_TESTS === '1' ? false : 'slow: run with npm run test:slow';
