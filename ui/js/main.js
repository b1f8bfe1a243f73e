// The explorer's shell: views by URL hash (#search, #graph/<id>, #activity, #jobs, #health),
// the token prompt when the API answers 401, the write switch, and the memory panel.
import * as api from './api.js';
import { $, put } from './dom.js';
import { openMemory } from './detail.js';
import { searchView } from './search.js';
import { graphView } from './graph.js';
import { activityView } from './activity.js';
import { jobsView } from './jobs.js';
import { healthView } from './health.js';

const ctx = {
  /** Opens a memory in the side panel. */
  open: (id) => openMemory($('#detail'), id, ctx),
  /** Shows a memory's neighbourhood. */
  graph: (id) => (location.hash = `#graph/${encodeURIComponent(id)}`),
  status: (text) => put($('#status'), text),
};

const views = {
  search: searchView($('#view-search'), ctx),
  graph: graphView($('#view-graph'), ctx),
  activity: activityView($('#view-activity'), ctx),
  jobs: jobsView($('#view-jobs'), ctx),
  health: healthView($('#view-health'), ctx),
};
let current = null;

function route() {
  const [name, ...rest] = location.hash.replace(/^#/, '').split('/');
  const view = views[name] ? name : 'search';
  for (const [n, v] of Object.entries(views)) {
    const active = n === view;
    $(`#view-${n}`).hidden = !active;
    document.querySelector(`nav a[data-view="${n}"]`).classList.toggle('active', active);
    if (!active && n === current) v.hide?.();
  }
  current = view;
  views[view].show(rest.map(decodeURIComponent).join('/'));
}

api.on('unauthorized', (err) => {
  $('#auth').hidden = false;
  put($('#auth-reason'), err.message);
  $('#token').focus();
});

$('#auth-form').addEventListener('submit', (e) => {
  e.preventDefault();
  api.setToken($('#token').value.trim());
  $('#token').value = '';
  $('#auth').hidden = true;
  route();
  void probe();
});

const writes = $('#writes');
writes.checked = false;
writes.addEventListener('change', () => api.setWrites(writes.checked));
api.on('writes', (on) => {
  document.body.classList.toggle('writes-on', on);
  ctx.status(on ? 'Writes enabled: undo, relate and dreams change the memory.' : 'Read-only.');
});

/** One cheap read at start: it shows whether the API answers, or asks for the token (401). */
async function probe() {
  try {
    const r = await api.callTool('history', { limit: 1 });
    ctx.status(`Connected · read-only · last transaction ${r.as_of_tx_id}.`);
  } catch (err) {
    ctx.status(err.status === 401 ? 'The API refused the request: it needs the access token.' : `The API did not answer: ${err.message}`);
  }
}

window.addEventListener('hashchange', route);
route();
void probe();
