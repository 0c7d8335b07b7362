/* Lease series and maintenance windows on the reservation calendar
 * (issue 30), beside calendar.js and apart from it.
 *
 * A series is listed once, in a panel, with its occurrences (GET
 * /v1/lease-series); its occurrences' bars on the chart are marked as one
 * (class in-series, data-series), all outlined when the series is chosen,
 * and their tooltip says which occurrence of which series they are. The
 * bars of maintenance holds (GET /v1/maintenance, for operators) are
 * marked and their tooltip gives the window's reason and status.
 *
 * It reads what calendar.js draws (the bars' data-lease) and never its
 * state: the bars are decorated each time #bars is redrawn.
 */
'use strict';

(function () {
  const TOKEN_KEY = 'blazar-calendar-token';
  const BASE = location.pathname.replace(/calendar\/[^/]*$/, '');
  const REFRESH_MS = 30e3;
  const $ = (id) => document.getElementById(id);

  const state = {
    series: [],            // as GET /v1/lease-series answers them
    byLease: new Map(),    // lease id -> {series, index}
    holds: new Map(),      // hold lease id -> maintenance window
    chosen: null,          // id of the series outlined
    seq: 0,
    lastFetch: 0,
  };

  async function get(path) {
    const headers = {Accept: 'application/json'};
    const token = localStorage.getItem(TOKEN_KEY) || '';
    if (token) {
      headers['X-Auth-Token'] = token;
    }
    const resp = await fetch(BASE + path.replace(/^\//, ''),
                             {headers: headers});
    if (!resp.ok) {
      const err = new Error('HTTP ' + resp.status);
      err.status = resp.status;
      throw err;
    }
    return resp.json();
  }

  function utc(text) {
    return text ? text.slice(0, 16).replace('T', ' ') : '';
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') {
        node.textContent = v;
      } else {
        node.setAttribute(k, v);
      }
    }
    for (const child of children || []) {
      node.appendChild(child);
    }
    return node;
  }

  // ---- Data ------------------------------------------------------------

  async function refresh() {
    const seq = ++state.seq;
    state.lastFetch = Date.now();
    let series = [];
    let windows = [];
    try {
      series = (await get('/v1/lease-series')).lease_series;
    } catch (err) {
      series = null;  // No token yet, or refused: nothing to show.
    }
    try {
      windows = (await get('/v1/maintenance')).maintenances;
    } catch (err) {
      windows = [];  // Operators only.
    }
    if (seq !== state.seq) {
      return;
    }
    ingest(series || [], windows || []);
    renderPanel(series === null);
    decorate();
    document.documentElement.dataset.series = String(state.series.length);
  }

  function ingest(series, windows) {
    state.series = series;
    state.byLease = new Map();
    for (const s of series) {
      s.occurrences.forEach((o, i) => {
        if (o.lease_id) {
          state.byLease.set(o.lease_id, {series: s, index: i});
        }
      });
    }
    state.holds = new Map();
    for (const w of windows) {
      if (w.lease_id) {
        state.holds.set(w.lease_id, w);
      }
    }
  }

  // ---- The panel ---------------------------------------------------------

  function panel() {
    let section = $('series-panel');
    if (!section) {
      section = el('section', {id: 'series-panel', class: 'series-panel',
                               'aria-label': 'Lease series'}, [
        el('h2', {text: 'Lease series'}),
        el('ul', {id: 'series-list', class: 'series-list'}),
      ]);
      ($('finder') || document.querySelector('main')).appendChild(section);
    }
    return section;
  }

  function renderPanel(refused) {
    const list = panel().querySelector('#series-list');
    list.replaceChildren();
    if (!state.series.length) {
      list.appendChild(el('li', {class: 'hint', text: refused ?
        'Give a token to see your lease series.' : 'No lease series.'}));
      return;
    }
    for (const s of state.series) {
      list.appendChild(seriesItem(s));
    }
  }

  function seriesItem(s) {
    const booked = s.occurrences.filter((o) => o.lease_id).length;
    const button = el('button', {type: 'button', class: 'series-name',
                                 'data-series': s.id,
                                 'aria-pressed': String(s.id ===
                                                        state.chosen),
                                 text: s.name});
    button.addEventListener('click', () => choose(s.id));
    const occurrences = el('ol', {class: 'occurrences'},
                           s.occurrences.map((o) => el('li', {
                             'data-lease': o.lease_id || '',
                             'data-status': o.status,
                             text: utc(o.start_date) + ' → ' +
                               utc(o.end_date).slice(11) + ' ' +
                               o.status.toLowerCase()})));
    const details = el('details', {}, [
      el('summary', {text: s.recurrence + ' · ' + s.timezone + ' · ' +
                     booked + ' of ' + s.occurrences.length +
                     ' booked' + (s.status === 'ACTIVE' ? '' :
                                  ' · ' + s.status.toLowerCase())}),
      occurrences]);
    details.open = s.id === state.chosen;
    return el('li', {class: 'series', 'data-series': s.id},
              [button, details]);
  }

  function choose(seriesId) {
    state.chosen = state.chosen === seriesId ? null : seriesId;
    renderPanel(false);
    decorate();
  }

  // ---- The chart -----------------------------------------------------------

  // Marks the bars calendar.js drew; attributes only, so the observer of
  // #bars' children is not woken again.
  function decorate() {
    for (const bar of document.querySelectorAll('#bars rect.bar')) {
      const found = state.byLease.get(bar.dataset.lease);
      const hold = state.holds.get(bar.dataset.lease);
      bar.classList.toggle('in-series', !!found);
      bar.classList.toggle('series-chosen',
                           !!found && found.series.id === state.chosen);
      bar.classList.toggle('maintenance', !!hold);
      if (found) {
        bar.dataset.series = found.series.id;
      } else {
        delete bar.dataset.series;
      }
    }
  }

  function tooltipLine(bar) {
    const found = state.byLease.get(bar.dataset.lease);
    if (found) {
      return 'series ' + found.series.name + ': occurrence ' +
        (found.index + 1) + ' of ' + found.series.occurrences.length +
        ' (' + found.series.recurrence + ', ' + found.series.timezone + ')';
    }
    const hold = state.holds.get(bar.dataset.lease);
    if (hold) {
      return 'maintenance ' + hold.status.toLowerCase() +
        (hold.reason ? ': ' + hold.reason : '');
    }
    return '';
  }

  // Runs after calendar.js's own pointermove (registered first), which
  // has just written the tooltip.
  function onPointerMove(event) {
    const bar = event.target.closest && event.target.closest('rect.bar');
    const tip = $('tooltip');
    if (!bar || !tip || tip.hidden) {
      return;
    }
    const line = tooltipLine(bar);
    if (line && !tip.textContent.endsWith(line)) {
      tip.textContent += '\n' + line;
    }
  }

  function legend() {
    const ul = $('legend');
    if (!ul) {
      return;
    }
    for (const [label, cls] of [['series occurrence', 'in-series'],
                                ['maintenance', 'maintenance']]) {
      const li = el('li', {class: 'series-legend'});
      li.innerHTML = '<svg width="18" height="12"><rect class="bar ' + cls +
        '" x="1" y="1" width="16" height="10" rx="2" fill="#9aa3ad"/>' +
        '</svg>';
      li.appendChild(document.createTextNode(label));
      ul.appendChild(li);
    }
  }

  function init() {
    document.head.appendChild(el('link', {rel: 'stylesheet',
                                          href: 'series.css'}));
    panel();
    legend();
    const bars = $('bars');
    if (bars) {
      new MutationObserver(decorate).observe(bars, {childList: true});
    }
    const chart = $('chart');
    if (chart) {
      chart.addEventListener('pointermove', onPointerMove);
    }
    const auth = $('auth');
    if (auth) {
      auth.addEventListener('submit', () => setTimeout(refresh, 0));
    }
    // The calendar counts its loads: a reload brings the series again,
    // at most once every few seconds.
    new MutationObserver(() => {
      if (Date.now() - state.lastFetch > 2000) {
        refresh();
      }
    }).observe(document.documentElement,
               {attributes: true, attributeFilter: ['data-loads']});
    setInterval(refresh, REFRESH_MS);
    refresh();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
