// Jobs: running and recent jobs (GET /api/jobs where the server has it; otherwise the dreams it
// records and the jobs started here), live progress from GET /api/jobs/{id}/events, and a dream
// started from the page (a write, behind the switch) whose phases show as they stream.
import { ApiError, callTool, getJson, on, streamEvents, writes } from './api.js';
import { ago, h, notice, put, when } from './dom.js';

const POLL_MS = 3_000;

/** A job's progress report in words: a count, or done/total and the phase message. */
function progressText(p) {
  if (p === null || p === undefined) return '';
  if (typeof p === 'number' || typeof p === 'string') return String(p);
  const done = p.done ?? p.count;
  const msg = p.message ?? p.phase ?? '';
  return `${msg}${done !== undefined ? ` ${done}${p.total !== undefined ? `/${p.total}` : ''}` : ''}`.trim();
}

export function jobsView(root, ctx) {
  const queue = h('p', { class: 'muted', 'data-testid': 'queue' });
  const list = h('div', { class: 'jobs', 'data-testid': 'jobs-list' });
  const followed = h('div', { class: 'followed', 'data-testid': 'followed' });
  const project = h('input', { name: 'project', value: 'default', size: 14, 'data-testid': 'dream-project' });
  const phase = h(
    'select',
    { name: 'phase' },
    ['full', 'nrem', 'rem'].map((p) => h('option', { value: p }, p)),
  );
  const start = h('button', { type: 'submit', class: 'write', disabled: true, 'data-testid': 'dream-start' }, 'Start a dream');
  const message = h('div');
  on('writes', (enabled) => (start.disabled = !enabled));
  put(
    root,
    h('h2', {}, 'Jobs'),
    queue,
    h('form', { class: 'row', onsubmit: (e) => (e.preventDefault(), dream()) }, h('span', { class: 'muted' }, 'Dream over project'), project, phase, start),
    message,
    followed,
    h('h3', {}, 'Running and recent'),
    list,
  );
  const following = new Map();
  let timer = null;
  let noJobList = false;

  async function dream() {
    if (!writes()) return put(message, notice('error', 'Turn on "Enable writes" to start a dream.'));
    put(message);
    try {
      const r = await callTool('trigger_dream', { project_id: project.value.trim() || 'default', phase: phase.value }, { async: true });
      ctx.status(`Dream ${r.dream_id} ${r.status}.`);
      follow(r.job_id, `dream (${phase.value}) over ${r.project_id}`);
    } catch (err) {
      put(message, notice('error', err.message));
    }
  }

  /** Follows one job's event stream into a card: each progress report is a line, then the outcome. */
  function follow(jobId, label) {
    if (following.has(jobId)) return;
    const bar = h('progress', { max: 1, value: 0 });
    const state = h('span', { class: 'state', 'data-testid': 'job-state' }, 'connecting…');
    const phases = h('ol', { class: 'phases', 'data-testid': 'phases' });
    const card = h(
      'div',
      { class: 'job-card', 'data-testid': 'job-card', dataset: { job: jobId } },
      h('div', { class: 'tx-head' }, h('strong', {}, label), h('code', {}, jobId), state),
      bar,
      phases,
    );
    followed.prepend(card);
    following.set(jobId, card);
    streamEvents(`/api/jobs/${encodeURIComponent(jobId)}/events`, (event, data) => {
      if (event === 'state') put(state, data.state);
      else if (event === 'progress') {
        put(state, 'active');
        if (data.total) {
          bar.max = data.total;
          bar.value = data.done ?? 0;
        }
        phases.append(h('li', { 'data-testid': 'phase' }, data.phase ?? progressText(data.progress)));
      } else if (event === 'completed') {
        put(state, 'completed');
        bar.max = 1;
        bar.value = 1;
        const counts = (data.result?.phases ?? []).map(
          (p) =>
            `${p.phase}: ${Object.entries(p.counts ?? {})
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}${p.tx_id ? ` (tx ${p.tx_id})` : ''}`,
        );
        card.append(
          h(
            'ul',
            { class: 'result' },
            counts.map((c) => h('li', {}, c)),
          ),
        );
      } else if (event === 'failed') {
        put(state, 'failed');
        card.append(notice('error', data.error));
      }
    }).catch((err) => put(state, `not followed: ${err.message}`));
  }

  async function refresh() {
    try {
      const health = await getJson('/healthz');
      const c = health.queue?.counts;
      put(
        queue,
        `Queue (${health.queue?.backend}): `,
        c ? `${c.waiting} waiting, ${c.active} active, ${c.failed} failed` : 'unreachable',
        health.outbox ? ` · embedding backlog ${health.outbox.depth}${health.outbox.depth ? `, oldest ${Math.round(health.outbox.oldest_ms / 1000)} s` : ''}` : '',
      );
    } catch (err) {
      put(queue, notice('error', err.message));
    }
    if (noJobList) return dreamsInstead();
    try {
      const r = await getJson('/api/jobs');
      put(list, table(r.jobs ?? []));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) return put(list, notice('error', err.message));
      // Asked once per page load: a server without the listing will not grow one while it runs.
      noJobList = true;
      await dreamsInstead();
    }
  }

  function table(jobs) {
    if (!jobs.length) return h('p', { class: 'muted' }, 'No jobs.');
    return h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['job', 'state', 'progress', 'created', 'finished', ''].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        jobs.map((j) =>
          h(
            'tr',
            { 'data-testid': 'job-row', dataset: { job: j.id } },
            h('td', {}, h('strong', {}, j.name), h('br'), h('code', {}, j.id)),
            h('td', {}, j.state),
            h('td', {}, j.error ? j.error : progressText(j.progress)),
            h('td', { title: when(j.created_at) }, ago(j.created_at)),
            h('td', { title: when(j.finished_at) }, j.finished_at ? ago(j.finished_at) : ''),
            h('td', {}, ['active', 'waiting', 'running', 'queued'].includes(j.state) ? h('button', { onclick: () => follow(j.id, j.name) }, 'Follow') : ''),
          ),
        ),
      ),
    );
  }

  /** Without GET /api/jobs: the dreams the store records (running and recent). */
  async function dreamsInstead() {
    try {
      const r = await callTool('get_dream_status', { limit: 10 });
      const runs = [...r.running, ...r.recent];
      put(
        list,
        h('p', { class: 'muted' }, 'This server does not list its jobs (GET /api/jobs answered 404); showing dreams and consolidations, and the jobs started here above.'),
        table(
          runs.map((d) => ({
            id: d.dream_id,
            name: `${d.phase === 'consolidation' ? 'consolidation' : `dream ${d.phase}`} · ${d.project_id}`,
            state: d.status,
            progress: d.phases.map((p) => p.phase).join(' → ') || null,
            error: d.error,
            created_at: d.created_at,
            finished_at: d.finished_at,
          })),
        ),
      );
    } catch (err) {
      put(list, notice('error', err.message));
    }
  }

  return {
    show() {
      void refresh();
      timer ??= setInterval(refresh, POLL_MS);
    },
    hide() {
      clearInterval(timer);
      timer = null;
    },
  };
}
