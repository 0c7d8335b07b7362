/* The reservation calendar of blazar_ext: resources down the side, time
 * across, leases as bars. The Find a slot panel is slots.js (it asks
 * POST /v1/leases/plan and books with POST /v1/leases); the series view
 * is series.js.
 *
 * Plain JavaScript and SVG, no library. Only what is visible is drawn
 * (rows and bars in view, redrawn on scroll), and data is fetched by time
 * window (three views wide), so thousands of hosts and tens of thousands of
 * leases scroll as smoothly as ten.
 */
'use strict';

(function () {
  const LABEL_W = 190;
  const AXIS_H = 44;
  const ROW_H = 24;
  const BAR_PAD = 3;
  const MINUTE = 60e3;
  const HOUR = 60 * MINUTE;
  const DAY = 24 * HOUR;
  const SPANS = {'6h': 6 * HOUR, '1d': DAY, '7d': 7 * DAY, '30d': 30 * DAY,
                 '90d': 90 * DAY};
  const MIN_SPAN = HOUR;
  const MAX_SPAN = 180 * DAY;
  // The scrollable stretch of time around now.
  const DOMAIN_BEFORE = 120 * DAY;
  const DOMAIN_AFTER = 400 * DAY;
  const TOKEN_KEY = 'blazar-calendar-token';
  const STATUS_COLOURS = {
    PENDING: '#3f7fc4', ACTIVE: '#2e9e5b', STARTING: '#d6952b',
    UPDATING: '#d6952b', TERMINATING: '#d6952b', DELETING: '#d6952b',
    TERMINATED: '#9aa3ad', ERROR: '#c9302c',
  };
  const OTHER_COLOUR = '#6f5fb0';
  const TICK_STEPS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY,
                      2 * DAY, 7 * DAY, 14 * DAY];
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug',
                  'Sep', 'Oct', 'Nov', 'Dec'];
  const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  // The API's root: the page lives at <root>calendar/.
  const BASE = location.pathname.replace(/calendar\/[^/]*$/, '');

  const $ = (id) => document.getElementById(id);
  // The tabs, by key: one per enabled resource type (tabs.json gives
  // {key, label, column, noun, path}).
  const TABS = new Map();
  const collator = new Intl.Collator(undefined, {numeric: true});

  const state = {
    tab: 'hosts',
    token: localStorage.getItem(TOKEN_KEY) || '',
    span: 7 * DAY,
    domainStart: 0,
    domainEnd: 0,
    rows: [],
    leases: new Map(),
    rowsTab: null,
    rowCount: 0,      // resources in all (rows may hold the first page)
    loaded: null,     // {tab, start, end} of the data held
    pending: null,    // the same, of the request in flight
    seq: 0,
    fetchTimer: null,
    frame: 0,
    slots: [],        // [{start, end}] (ms) from the last search
    chosen: null,     // {start, end} (ms) of the slot to lease
    search: null,     // the parameters of the last search
    newLease: null,   // id of the lease just created, outlined
    firstRender: false,
    complete: false,
    drag: null,
  };

  // ---- Time ----------------------------------------------------------

  function parseUtc(text) {
    const m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d))?/.exec(
      text);
    return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] || 0));
  }

  function fmtUtc(ms) {
    return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  }

  function floorMinute(ms) {
    return Math.floor(ms / MINUTE) * MINUTE;
  }

  function fmtDuration(ms) {
    const minutes = Math.round(ms / MINUTE);
    const d = Math.floor(minutes / 1440);
    const h = Math.floor((minutes % 1440) / 60);
    const m = minutes % 60;
    return [d && d + ' d', h && h + ' h', m && m + ' min'].filter(Boolean)
      .join(' ') || '0 min';
  }

  // ---- The API ---------------------------------------------------------

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  // The message the API gave, as it gave it, in any of the three families'
  // error shapes.
  function errorMessage(status, data, text) {
    if (data && typeof data === 'object') {
      if (typeof data.error_message === 'string') {
        return data.error_message;
      }
      if (Array.isArray(data.errors) && data.errors.length) {
        return data.errors[0].detail || data.errors[0].title;
      }
      if (data.error && data.error.message) {
        return data.error.message;
      }
      if (typeof data.message === 'string') {
        return data.message;
      }
    }
    return 'HTTP ' + status + (text ? ': ' + text.slice(0, 300) : '');
  }

  async function api(method, path, body, headers) {
    const sent = Object.assign({Accept: 'application/json'}, headers || {});
    if (state.token) {
      sent['X-Auth-Token'] = state.token;
    }
    const init = {method: method, headers: sent};
    if (body !== undefined) {
      sent['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const resp = await fetch(BASE + path.replace(/^\//, ''), init);
    const text = await resp.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (e) {
      data = null;
    }
    if (!resp.ok) {
      throw new ApiError(resp.status, errorMessage(resp.status, data, text));
    }
    return data;
  }

  function query(params) {
    return Object.keys(params).filter((k) => params[k] !== '' &&
                                      params[k] !== undefined)
      .map((k) => encodeURIComponent(k) + '=' + encodeURIComponent(params[k]))
      .join('&');
  }

  function setStatus(text, isError) {
    const el = $('status');
    el.textContent = text;
    el.classList.toggle('error', !!isError);
  }

  function authProblem(err) {
    if (err.status === 401 || (err.status === 403 && !state.token)) {
      $('auth').classList.add('needed');
      setStatus('The API needs to know who you are: enter a token (under ' +
                'noauth "admin" or "user:project", under Keystone a ' +
                'token) and press Use. The API said: ' + err.message, true);
      return true;
    }
    return false;
  }

  // ---- Geometry ----------------------------------------------------------

  function view() {
    const scroller = $('scroller');
    const width = scroller.clientWidth;
    const height = scroller.clientHeight;
    const perMs = Math.max(1, width - LABEL_W) / state.span;
    const t0 = state.domainStart + scroller.scrollLeft / perMs;
    return {width: width, height: height, perMs: perMs, t0: t0,
            t1: t0 + state.span, top: scroller.scrollTop};
  }

  function layout(centre) {
    const scroller = $('scroller');
    const perMs = Math.max(1, scroller.clientWidth - LABEL_W) / state.span;
    const spacer = $('spacer');
    spacer.style.width = Math.ceil(
      LABEL_W + (state.domainEnd - state.domainStart) * perMs) + 'px';
    spacer.style.height = (AXIS_H + state.rowCount * ROW_H) + 'px';
    if (centre !== undefined) {
      scroller.scrollLeft = Math.max(
        0, (centre - state.span / 2 - state.domainStart) * perMs);
    }
  }

  function setSpan(span, anchor, anchorX) {
    const v = view();
    const at = anchor === undefined ? (v.t0 + v.t1) / 2 : anchor;
    const frac = anchorX === undefined ? 0.5 :
      (anchorX - LABEL_W) / Math.max(1, v.width - LABEL_W);
    state.span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, span));
    layout(at - (frac - 0.5) * state.span);
    markZoom();
    schedule();
  }

  function markZoom() {
    document.querySelectorAll('.zoom button[data-span]').forEach((b) => {
      b.classList.toggle('active', SPANS[b.dataset.span] === state.span);
    });
  }

  // ---- Drawing -----------------------------------------------------------

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({
      '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;',
    })[c]);
  }

  function schedule() {
    if (!state.frame) {
      state.frame = requestAnimationFrame(() => {
        state.frame = 0;
        render();
        ensureData();
      });
    }
  }

  // The index of the first allocation ending after ``t`` (a row's
  // allocations do not overlap, so ends are sorted as starts are).
  function firstEndingAfter(allocs, t) {
    let lo = 0;
    let hi = allocs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (allocs[mid].e <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  function render() {
    const v = view();
    const chart = $('chart');
    chart.setAttribute('width', v.width);
    chart.setAttribute('height', v.height);
    const x = (t) => LABEL_W + (t - v.t0) * v.perMs;
    const first = Math.max(0, Math.floor(v.top / ROW_H));
    const last = Math.min(state.rows.length,
                          first + Math.ceil((v.height - AXIS_H) / ROW_H) + 1);
    const rowsSvg = [];
    const rowLines = [];
    const barsSvg = [];
    const labelsSvg = ['<rect class="label-bg" x="0" y="' + AXIS_H +
                       '" width="' + LABEL_W + '" height="' + v.height +
                       '"/>'];
    for (let i = first; i < last; i++) {
      const row = state.rows[i];
      const y = AXIS_H + i * ROW_H - v.top;
      if (row.out) {
        rowsSvg.push('<rect x="' + LABEL_W + '" y="' + y + '" width="' +
                     v.width + '" height="' + ROW_H +
                     '" fill="url(#hatch-out)"/>');
      }
      rowLines.push('M0 ' + (y + ROW_H) + 'H' + v.width);
      labelsSvg.push('<text x="8" y="' + (y + 16) + '" data-resource="' +
                     esc(row.res.id) + '">' + esc(clip(row.res.name,
                                                       row.out ? 15 : 26)) +
                     '</text>');
      if (row.out) {
        const reason = row.res.reservable_reason;
        labelsSvg.push('<text class="out-label" x="' + (LABEL_W - 6) +
                       '" y="' + (y + 16) + '" text-anchor="end">' +
                       'out of service' + (reason ? '<title>' + esc(reason) +
                                           '</title>' : '') + '</text>');
      }
      drawBars(row, y, v, x, barsSvg);
    }
    // The corner last, over the labels of a row scrolled half under it.
    labelsSvg.push('<rect class="axis-bg" x="0" y="0" width="' + LABEL_W +
                   '" height="' + AXIS_H + '"/><text x="8" y="' +
                   (AXIS_H - 4) + '">' + esc(tabOf().column || '') + ' (' +
                   state.rowCount + ')</text>');
    // One path for every row's line: fewer elements to style and lay out
    // each frame.
    rowsSvg.push('<path class="row-line" d="' + rowLines.join('') + '"/>');
    $('rows').innerHTML = rowsSvg.join('');
    $('bars').innerHTML = barsSvg.join('');
    $('labels').innerHTML = labelsSvg.join('');
    $('slots').innerHTML = drawSlots(v, x);
    // Scrolling down leaves the time axis as it was.
    const axisKey = [v.t0, v.perMs, v.width, v.height, state.tab].join();
    if (axisKey !== state.axisKey) {
      state.axisKey = axisKey;
      $('axis').innerHTML = drawAxis(v, x);
    }
    const now = Date.now();
    const nowLine = $('now-line');
    const nx = x(now);
    nowLine.setAttribute('x1', nx);
    nowLine.setAttribute('x2', nx);
    nowLine.setAttribute('y1', AXIS_H - 6);
    nowLine.setAttribute('y2', v.height);
    nowLine.setAttribute('visibility', nx >= LABEL_W ? 'visible' : 'hidden');
  }

  function clip(text, chars) {
    return text.length > chars ? text.slice(0, chars - 1) + '…' : text;
  }

  function drawBars(row, y, v, x, out) {
    const allocs = row.allocs;
    for (let j = firstEndingAfter(allocs, v.t0); j < allocs.length; j++) {
      const a = allocs[j];
      if (a.s >= v.t1) {
        break;
      }
      const x0 = Math.max(LABEL_W - 2, x(a.s));
      const x1 = Math.min(v.width + 2, x(a.e));
      const w = Math.max(1, x1 - x0);
      const lease = a.lease;
      const name = lease ? lease.name : 'reserved';
      const fill = lease ? (STATUS_COLOURS[lease.status] || OTHER_COLOUR) :
        'url(#hatch-reserved)';
      const classes = 'bar' + (lease && lease.degraded ? ' degraded' : '') +
        (lease && lease.id === state.newLease ? ' new' : '');
      // No <title> per bar: one tooltip for all (see showTooltip) keeps
      // the elements redrawn per frame to a minimum.
      out.push('<rect class="' + classes + '" x="' + x0.toFixed(1) +
               '" y="' + (y + BAR_PAD) + '" width="' + w.toFixed(1) +
               '" height="' + (ROW_H - 2 * BAR_PAD) + '" rx="3" fill="' +
               fill + '" data-lease="' + (lease ? esc(lease.id) : '') +
               '" data-name="' + esc(name) + '" data-resource="' +
               esc(row.res.id) + '" data-start="' + a.start +
               '" data-end="' + a.end + '"/>');
      if (w > 36) {
        out.push('<text class="bar-text" x="' + (x0 + 5).toFixed(1) +
                 '" y="' + (y + 16) + '">' +
                 esc(clip(name, Math.floor((w - 8) / 6.5))) + '</text>');
      }
    }
  }

  function drawSlots(v, x) {
    if (state.tab !== 'hosts' || !state.slots.length) {
      return '';
    }
    const parts = [];
    state.slots.forEach((slot, i) => {
      if (slot.end <= v.t0 || slot.start >= v.t1) {
        return;
      }
      const x0 = Math.max(LABEL_W, x(slot.start));
      const x1 = Math.min(v.width, x(slot.end));
      parts.push('<rect class="slot' + (i === 0 ? ' earliest' : '') +
                 '" x="' + x0.toFixed(1) + '" y="' + (AXIS_H - 8) +
                 '" width="' + Math.max(1, x1 - x0).toFixed(1) +
                 '" height="' + v.height + '"><title>free: ' +
                 fmtUtc(slot.start) + ' → ' + fmtUtc(slot.end) +
                 '</title></rect>');
    });
    const chosen = state.chosen;
    if (chosen && chosen.end > v.t0 && chosen.start < v.t1) {
      const x0 = Math.max(LABEL_W, x(chosen.start));
      const x1 = Math.min(v.width, x(chosen.end));
      parts.push('<rect class="slot earliest" id="chosen-slot" x="' +
                 x0.toFixed(1) + '" y="' + (AXIS_H - 8) + '" width="' +
                 Math.max(2, x1 - x0).toFixed(1) + '" height="8"/>');
    }
    return parts.join('');
  }

  function tickStep(perMs) {
    for (const step of TICK_STEPS) {
      if (step * perMs >= 64) {
        return step;
      }
    }
    return 0;  // Months.
  }

  function ticks(t0, t1, step) {
    const out = [];
    if (step === 0) {
      const d = new Date(t0);
      let t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      while (t < t1) {
        out.push(t);
        const m = new Date(t);
        t = Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1);
      }
      return out;
    }
    // Weeks start on Monday (the epoch was a Thursday).
    const offset = step % (7 * DAY) === 0 ? 4 * DAY : 0;
    for (let t = Math.floor((t0 + offset) / step) * step - offset; t < t1;
      t += step) {
      out.push(t);
    }
    return out;
  }

  function dayLabel(t) {
    const d = new Date(t);
    return WEEKDAYS[d.getUTCDay()] + ' ' + d.getUTCDate() + ' ' +
      MONTHS[d.getUTCMonth()] + ' ' + d.getUTCFullYear();
  }

  function drawAxis(v, x) {
    const parts = ['<rect class="axis-bg" x="0" y="0" width="' + v.width +
                   '" height="' + AXIS_H + '"/>'];
    const step = tickStep(v.perMs);
    const minorLabel = (t) => {
      const d = new Date(t);
      if (step === 0) {
        return MONTHS[d.getUTCMonth()] + ' ' + d.getUTCFullYear();
      }
      if (step < DAY) {
        return String(d.getUTCHours()).padStart(2, '0') + ':00';
      }
      return d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()];
    };
    for (const t of ticks(v.t0, v.t1, step)) {
      const tx = x(t);
      if (tx < LABEL_W) {
        continue;
      }
      parts.push('<line class="tick" x1="' + tx.toFixed(1) + '" x2="' +
                 tx.toFixed(1) + '" y1="' + (AXIS_H - 14) + '" y2="' +
                 v.height + '"/>');
      parts.push('<text x="' + (tx + 3).toFixed(1) + '" y="' +
                 (AXIS_H - 4) + '">' + minorLabel(t) + '</text>');
    }
    // Major marks: days under a day's steps, else months.
    const majors = step !== 0 && step < DAY ? ticks(v.t0, v.t1, DAY) :
      ticks(v.t0, v.t1, 0);
    let lastX = -1e9;
    for (const t of majors) {
      const tx = x(t);
      if (tx >= LABEL_W) {
        parts.push('<line class="tick major" x1="' + tx.toFixed(1) +
                   '" x2="' + tx.toFixed(1) + '" y1="0" y2="' + v.height +
                   '"/>');
      }
      const lx = Math.max(LABEL_W, tx) + 3;
      if (lx - lastX > 120) {
        parts.push('<text x="' + lx.toFixed(1) + '" y="14">' +
                   (step !== 0 && step < DAY ? dayLabel(Math.max(t, v.t0)) :
                    MONTHS[new Date(Math.max(t, v.t0)).getUTCMonth()] + ' ' +
                    new Date(Math.max(t, v.t0)).getUTCFullYear()) +
                   '</text>');
        lastX = lx;
      }
    }
    return parts.join('');
  }

  // ---- Data --------------------------------------------------------------

  function ensureData() {
    if (!TABS.has(state.tab)) {
      return;  // tabs.json not read yet
    }
    const v = view();
    const have = (w) => w && w.tab === state.tab && v.t0 >= w.start &&
      v.t1 <= w.end;
    if (have(state.loaded)) {
      // Back in the data held: what was asked for on the way is not needed.
      clearTimeout(state.fetchTimer);
      if (state.pending) {
        state.pending = null;
        state.seq++;
      }
      // Tests and the benchmark wait for this: the view's data is drawn.
      document.documentElement.dataset.idle = 'true';
      return;
    }
    document.documentElement.dataset.idle = 'false';
    if (have(state.pending)) {
      return;
    }
    clearTimeout(state.fetchTimer);
    // While scrolling, ask once the view rests, for where it rests.
    state.fetchTimer = setTimeout(() => {
      const now = view();
      const span = now.t1 - now.t0;
      load(floorMinute(now.t0 - span), floorMinute(now.t1 + span) + MINUTE);
    }, state.loaded ? 120 : 0);
  }

  async function load(start, end) {
    const seq = ++state.seq;
    const tab = state.tab;
    state.pending = {tab: tab, start: start, end: end};
    const path = TABS.get(tab).path + '?' + query({start: fmtUtc(start),
                                                   end: fmtUtc(end)});
    let data;
    try {
      // The rows in view first: thousands of resources and tens of
      // thousands of leases need not wait for one another.
      const v = view();
      const top = state.rowsTab === tab ?
        Math.min(Math.floor(v.top / ROW_H), state.rows.length) : 0;
      const page = {limit: Math.ceil(v.height / ROW_H) + 20};
      if (top > 0) {
        page.marker = state.rows[top - 1].res.name;
      }
      const first = await api('GET', path + '&' + query(page));
      if (seq !== state.seq) {
        return;
      }
      ingest(first.calendar, tab, start, end, true);
      data = await api('GET', path);
    } catch (err) {
      if (seq === state.seq) {
        state.pending = null;
        if (!authProblem(err)) {
          setStatus(err.message, true);
        }
      }
      return;
    }
    if (seq !== state.seq) {
      return;
    }
    state.pending = null;
    ingest(data.calendar, tab, start, end);
  }

  function reload() {
    state.loaded = null;
    state.pending = null;
    schedule();
  }

  // Rows of the calendar response as objects keyed by its field names.
  function rowReader(fields) {
    const at = {};
    fields.forEach((name, i) => {
      at[name] = i;
    });
    return at;
  }

  // A page of rows (``partial``) joins the rows held (for rows out of
  // view until the whole arrives); the whole replaces them.
  function ingest(calendar, tab, start, end, partial) {
    const lf = rowReader(calendar.lease_fields);
    const merge = partial && state.rowsTab === tab &&
      state.rowCount === calendar.resource_count;
    const leases = merge ? state.leases : new Map();
    state.leases = leases;
    for (const l of calendar.leases) {
      leases.set(l[lf.id], {id: l[lf.id], name: l[lf.name],
                            status: l[lf.status], degraded: l[lf.degraded],
                            project_id: l[lf.project_id]});
    }
    const byId = new Map();
    // In the API's order (by name), the same for a page and the whole.
    const rows = calendar.resources.map((res) => {
      const row = {res: res, out: !res.reservable || !!res.disabled,
                   allocs: []};
      byId.set(res.id, row);
      return row;
    });
    const af = rowReader(calendar.allocation_fields);
    for (const a of calendar.allocations) {
      const row = byId.get(a[af.resource_id]);
      if (row) {
        const leaseId = a[af.lease_id];
        row.allocs.push({s: parseUtc(a[af.start]), e: parseUtc(a[af.end]),
                         start: a[af.start], end: a[af.end],
                         lease: leaseId ? leases.get(leaseId) : null});
      }
    }
    for (const row of rows) {
      row.allocs.sort((p, q) => p.s - q.s);
    }
    const grew = calendar.resource_count !== state.rowCount;
    if (merge) {
      const at = new Map(state.rows.map((row, i) => [row.res.id, i]));
      for (const row of rows) {
        if (at.has(row.res.id)) {
          state.rows[at.get(row.res.id)] = row;
        }
      }
    } else {
      state.rows = rows;
    }
    state.rowsTab = tab;
    state.rowCount = calendar.resource_count;
    if (grew) {
      layout();
    }
    if (partial) {
      render();
      setStatus('Loading all ' + state.rowCount + ' rows…');
    } else {
      state.loaded = {tab: tab, start: start, end: end};
      render();
      ensureData();
      const outCount = rows.filter((r) => r.out).length;
      setStatus(rows.length + ' ' + TABS.get(tab).noun +
                (outCount ? ' (' + outCount + ' out of service)' : '') +
                ', ' + calendar.allocations.length + ' reservations from ' +
                calendar.start + ' to ' + calendar.end + ' UTC.');
    }
    if (!state.rowCount) {
      setStatus('No ' + TABS.get(tab).noun + ' are registered.');
    }
    $('auth').classList.remove('needed');
    if (!state.firstRender) {
      state.firstRender = true;
      performance.mark('calendar-first-render');
      document.documentElement.dataset.rendered = 'true';
    }
    if (!partial && !state.complete) {
      // Every row of the window held and drawable (the benchmark reads
      // both marks).
      state.complete = true;
      performance.mark('calendar-complete');
    }
    document.documentElement.dataset.loads =
      String(+(document.documentElement.dataset.loads || 0) + 1);
  }

  // ---- Find a slot -------------------------------------------------------

  function valuesOf(prop) {
    return (prop.values || []).map((v) => (typeof v === 'object' ?
      v.value : v)).filter((v) => v !== undefined && v !== null)
      .map(String);
  }

  function elementsOf(values) {
    const set = new Set();
    for (const value of values) {
      let parsed = null;
      try {
        parsed = JSON.parse(value);
      } catch (e) {
        parsed = null;
      }
      if (Array.isArray(parsed)) {
        parsed.forEach((item) => set.add(String(item)));
      } else {
        set.add(value);
      }
    }
    return Array.from(set).sort(collator.compare);
  }

  function isNumeric(prop, values) {
    if (prop.type === 'integer' || prop.type === 'number') {
      return true;
    }
    return !prop.type && values.length > 0 &&
      values.every((v) => /^-?\d+(\.\d+)?$/.test(v));
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach((k) => {
      if (k === 'text') {
        node.textContent = attrs[k];
      } else {
        node.setAttribute(k, attrs[k]);
      }
    });
    (children || []).forEach((c) => node.appendChild(c));
    return node;
  }

  // One control per public property, suited to its type and operators:
  // checkboxes for <all-in>, a select for <or> (and plain values), a number
  // range for numbers.
  function propertyControl(prop) {
    const name = prop.property;
    const values = valuesOf(prop);
    const ops = prop.operators || [];
    const box = el('div', {'class': 'prop', 'data-property': name});
    box.appendChild(el('span', {'class': 'prop-name',
                                text: prop.title ? prop.title + ' (' + name +
                                  ')' : name}));
    if (ops.indexOf('<all-in>') >= 0 || prop.type === 'array') {
      box.dataset.kind = 'all-in';
      const checks = el('div', {'class': 'checks'});
      for (const item of elementsOf(values)) {
        const input = el('input', {type: 'checkbox', value: item,
                                   name: 'prop-' + name});
        checks.appendChild(el('label', {}, [input,
                                            document.createTextNode(
                                              ' ' + item)]));
      }
      box.appendChild(checks);
    } else if (isNumeric(prop, values)) {
      box.dataset.kind = 'range';
      const nums = values.map(Number).filter((n) => !isNaN(n));
      const lo = nums.length ? Math.min.apply(null, nums) : '';
      const hi = nums.length ? Math.max.apply(null, nums) : '';
      box.appendChild(el('div', {'class': 'row'}, [
        el('input', {type: 'number', 'data-bound': 'min', step: 'any',
                     placeholder: 'min ' + lo, 'aria-label': name + ' min'}),
        document.createTextNode('to'),
        el('input', {type: 'number', 'data-bound': 'max', step: 'any',
                     placeholder: 'max ' + hi, 'aria-label': name + ' max'}),
      ]));
    } else {
      box.dataset.kind = 'select';
      const options = prop.type === 'boolean' ? ['true', 'false'] :
        elementsOf(values);
      const select = el('select', {'aria-label': name},
                        [el('option', {value: '', text: 'any'})]);
      options.forEach((o) => select.appendChild(el('option', {value: o,
                                                              text: o})));
      box.appendChild(select);
    }
    return box;
  }

  async function loadProperties() {
    const fieldset = $('properties');
    fieldset.querySelectorAll('.prop').forEach((n) => n.remove());
    const hint = $('properties-hint');
    hint.textContent = 'Loading…';
    let props;
    try {
      props = await api('GET', '/v1/physical:host/properties?detail=true');
    } catch (err) {
      hint.textContent = 'Property discovery is not open to you (' +
        err.message + '); traits, count and duration still apply.';
      return;
    }
    const visible = props.filter((p) => !p.private);
    hint.textContent = visible.length ? '' : 'No public properties.';
    visible.sort((a, b) => collator.compare(a.property, b.property))
      .forEach((p) => fieldset.appendChild(propertyControl(p)));
  }

  function addChip(name, mode) {
    const chips = $('trait-chips');
    if (chips.querySelector('[data-trait="' + CSS.escape(name) + '"]')) {
      return;
    }
    const chip = el('button', {type: 'button', 'class': 'chip',
                               'data-trait': name, 'data-mode': mode || '',
                               text: name});
    if (mode) {
      chip.classList.add(mode);
    }
    chip.addEventListener('click', () => {
      const next = {'': 'required', required: 'forbidden',
                    forbidden: ''}[chip.dataset.mode];
      chip.dataset.mode = next;
      chip.classList.remove('required', 'forbidden');
      if (next) {
        chip.classList.add(next);
      }
      chip.title = next || 'not asked';
    });
    chips.appendChild(chip);
  }

  async function loadTraits() {
    $('trait-chips').textContent = '';
    let associated = [];
    let all = [];
    const v16 = {'OpenStack-API-Version': 'placement 1.6'};
    try {
      associated = (await api('GET', '/placement/traits?associated=true',
                              undefined, v16)).traits;
      all = (await api('GET', '/placement/traits', undefined, v16)).traits;
    } catch (err) {
      // Listing traits may be closed by policy; names can still be typed.
    }
    associated.sort().forEach((t) => addChip(t));
    const list = $('trait-names');
    list.textContent = '';
    all.forEach((t) => list.appendChild(el('option', {value: t})));
  }

  function resourceProperties() {
    const conds = [];
    document.querySelectorAll('#properties .prop').forEach((box) => {
      const ref = '$' + box.dataset.property;
      if (box.dataset.kind === 'all-in') {
        const checked = Array.from(box.querySelectorAll('input:checked'))
          .map((c) => c.value);
        if (checked.length) {
          conds.push(['<all-in>', ref].concat(checked));
        }
      } else if (box.dataset.kind === 'range') {
        const min = box.querySelector('[data-bound="min"]').value;
        const max = box.querySelector('[data-bound="max"]').value;
        if (min !== '') {
          conds.push(['>=', ref, min]);
        }
        if (max !== '') {
          conds.push(['<=', ref, max]);
        }
      } else {
        const value = box.querySelector('select').value;
        if (value !== '') {
          conds.push(['==', ref, value]);
        }
      }
    });
    if (!conds.length) {
      return '';
    }
    return JSON.stringify(conds.length === 1 ? conds[0] :
      ['and'].concat(conds));
  }

  function traitsValue() {
    return Array.from(document.querySelectorAll('#trait-chips .chip'))
      .filter((c) => c.dataset.mode)
      .map((c) => (c.dataset.mode === 'forbidden' ? '!' : '') +
        c.dataset.trait).join(',');
  }

  // ---- Interaction -------------------------------------------------------

  function onWheel(event) {
    event.preventDefault();
    const scroller = $('scroller');
    if (event.ctrlKey || event.metaKey) {
      const rect = $('chart').getBoundingClientRect();
      const px = event.clientX - rect.left;
      const v = view();
      const at = v.t0 + (px - LABEL_W) / v.perMs;
      setSpan(state.span * Math.exp(event.deltaY * 0.002), at, px);
      return;
    }
    const dx = event.shiftKey ? event.deltaY : event.deltaX;
    const dy = event.shiftKey ? 0 : event.deltaY;
    scroller.scrollLeft += dx;
    scroller.scrollTop += dy;
  }

  function showTooltip(event) {
    const tip = $('tooltip');
    const bar = event.target.closest && event.target.closest('rect.bar');
    if (!bar || state.drag) {
      tip.hidden = true;
      return;
    }
    const lease = state.leases.get(bar.dataset.lease);
    tip.textContent = (lease ?
      lease.name + ' (' + lease.status +
        (lease.degraded ? ', degraded' : '') + ')\nproject ' +
        lease.project_id :
      'reserved by another project') + '\n' + bar.dataset.start + ' → ' +
      bar.dataset.end + ' UTC';
    const box = $('calendar').getBoundingClientRect();
    tip.style.left = Math.min(event.clientX - box.left + 12,
                              box.width - 330) + 'px';
    tip.style.top = (event.clientY - box.top + 14) + 'px';
    tip.hidden = false;
  }

  function onPointerDown(event) {
    if (event.button !== 0) {
      return;
    }
    const scroller = $('scroller');
    state.drag = {x: event.clientX, y: event.clientY,
                  left: scroller.scrollLeft, top: scroller.scrollTop};
    $('chart').classList.add('dragging');
  }

  function onPointerMove(event) {
    if (!state.drag) {
      return;
    }
    const scroller = $('scroller');
    scroller.scrollLeft = state.drag.left - (event.clientX - state.drag.x);
    scroller.scrollTop = state.drag.top - (event.clientY - state.drag.y);
  }

  function onPointerUp() {
    state.drag = null;
    $('chart').classList.remove('dragging');
  }

  function tabOf() {
    return TABS.get(state.tab) || {};
  }

  // A button per tab; the first is shown unless the page's default is.
  async function loadTabs() {
    let tabs;
    try {
      tabs = (await api('GET', '/calendar/tabs.json')).tabs;
    } catch (err) {
      setStatus(err.message, true);
      return;
    }
    for (const tab of tabs) {
      TABS.set(tab.key, tab);
      const button = el('button', {type: 'button', role: 'tab',
                                   id: 'tab-' + tab.key});
      button.dataset.tab = tab.key;
      button.textContent = tab.label;
      button.addEventListener('click', () => switchTab(tab.key));
      $('tabs').appendChild(button);
    }
    if (!TABS.has(state.tab) && tabs.length) {
      state.tab = tabs[0].key;
    }
    markTabs();
    $('finder').hidden = state.tab !== 'hosts';
    if (!tabs.length) {
      setStatus('No resource type with a calendar is enabled.');
    }
    schedule();
  }

  function markTabs() {
    document.querySelectorAll('.tabs [role="tab"]').forEach((b) => {
      b.setAttribute('aria-selected', String(b.dataset.tab === state.tab));
    });
  }

  function switchTab(tab) {
    if (tab === state.tab) {
      return;
    }
    const centre = (view().t0 + view().t1) / 2;
    state.tab = tab;
    markTabs();
    state.rows = [];
    state.rowCount = 0;
    $('finder').hidden = tab !== 'hosts';
    $('scroller').scrollTop = 0;
    layout(centre);
    reload();
  }

  function legend() {
    const items = Object.keys(STATUS_COLOURS)
      .filter((s) => ['STARTING', 'UPDATING', 'TERMINATING', 'DELETING']
        .indexOf(s) < 0)
      .map((s) => [s.toLowerCase(), STATUS_COLOURS[s]]);
    items.splice(2, 0, ['changing', STATUS_COLOURS.STARTING]);
    items.push(['reserved (another project)', 'url(#hatch-reserved)'],
               ['out of service', 'url(#hatch-out)'],
               ['free slot', 'rgba(46, 158, 91, .28)']);
    const ul = $('legend');
    for (const [label, fill] of items) {
      const li = document.createElement('li');
      li.innerHTML = '<svg width="18" height="12">' +
        '<rect width="18" height="12" rx="2" fill="' + fill +
        '"/></svg>' + esc(label);
      ul.appendChild(li);
    }
    const now = document.createElement('li');
    now.innerHTML = '<svg width="18" height="12"><line x1="9" x2="9" ' +
      'y1="0" y2="12" stroke="#d9362b" stroke-width="2"/></svg>now';
    ul.appendChild(now);
  }

  function init() {
    const now = Date.now();
    state.domainStart = floorMinute(now - DOMAIN_BEFORE);
    state.domainEnd = floorMinute(now + DOMAIN_AFTER);
    $('token').value = state.token;
    legend();
    layout(now + state.span * 0.35);
    markZoom();
    const scroller = $('scroller');
    scroller.addEventListener('scroll', schedule, {passive: true});
    const chart = $('chart');
    chart.addEventListener('wheel', onWheel, {passive: false});
    chart.addEventListener('pointerdown', onPointerDown);
    chart.addEventListener('pointermove', showTooltip);
    chart.addEventListener('pointerleave', () => {
      $('tooltip').hidden = true;
    });
    window.addEventListener('pointermove', onPointerMove);
    window.addEventListener('pointerup', onPointerUp);
    window.addEventListener('resize', () => {
      const v = view();
      layout((v.t0 + v.t1) / 2);
      schedule();
    });
    document.querySelectorAll('.zoom button[data-span]').forEach((b) => {
      b.addEventListener('click', () => setSpan(SPANS[b.dataset.span]));
    });
    $('go-now').addEventListener('click', () => {
      layout(Date.now() + state.span * 0.35);
      schedule();
    });
    $('auth').addEventListener('submit', (event) => {
      event.preventDefault();
      state.token = $('token').value.trim();
      localStorage.setItem(TOKEN_KEY, state.token);
      setStatus('');
      // Nothing seen under the previous identity stays on screen.
      state.rowsTab = null;
      state.rows = [];
      state.leases = new Map();
      reload();
      loadProperties();
      loadTraits();
    });
    $('trait-add-button').addEventListener('click', () => {
      const name = $('trait-add').value.trim().toUpperCase();
      if (name) {
        addChip(name, 'required');
        $('trait-add').value = '';
      }
    });
    setInterval(schedule, 30e3);  // The now-line moves.
    loadTabs();
    loadProperties();
    loadTraits();
  }

  // What slots.js (the finder across resource types) builds on.
  window.blazarCalendar = {
    state: state, api: api, el: el, schedule: schedule, layout: layout,
    view: view, reload: reload, fmtUtc: fmtUtc, parseUtc: parseUtc,
    fmtDuration: fmtDuration, floorMinute: floorMinute,
    resourceProperties: resourceProperties, traitsValue: traitsValue,
  };

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
