/* "Find a slot" across resource types: hosts (with the panel's
 * properties and traits), floating IPs of a network and instances of a
 * size, searched together with POST /v1/leases/plan; the options drawn on
 * the chart and listed; one booked with a click (POST /v1/leases with the
 * option's dates and the same reservations).
 *
 * Loaded after calendar.js, on what it exposes (window.blazarCalendar);
 * it takes over the panel's two forms.
 */
'use strict';

(function () {
  const cal = window.blazarCalendar;
  const MINUTE = 60e3;
  const DAY = 1440 * MINUTE;
  const $ = (id) => document.getElementById(id);
  const found = {reservations: null, duration: 0};

  function number(id, fallback) {
    const value = Math.floor(+$(id).value);
    return Number.isFinite(value) ? value : fallback;
  }

  function row(label, id, value, min) {
    return cal.el('div', {'class': 'row'}, [
      cal.el('label', {'for': id, text: label}),
      cal.el('input', {id: id, type: 'number', min: String(min),
                       value: String(value)}),
    ]);
  }

  // Floating IPs and instances, beside the hosts of the form.
  function addFields() {
    $('count').setAttribute('min', '0');
    const network = cal.el('input', {id: 'fip-network', list: 'networks',
                                     spellcheck: 'false',
                                     placeholder: 'network id'});
    const fieldset = cal.el('fieldset', {id: 'other-types'}, [
      cal.el('legend', {text: 'With them'}),
      row('Floating IPs', 'fip-amount', 0, 0),
      cal.el('div', {'class': 'row'}, [
        cal.el('label', {'for': 'fip-network', text: 'of network'}),
        network, cal.el('datalist', {id: 'networks'})]),
      row('Instances', 'instance-amount', 0, 0),
      row('VCPUs each', 'instance-vcpus', 1, 1),
      row('RAM MB', 'instance-memory', 1024, 1),
      row('Disk GB', 'instance-disk', 10, 0),
    ]);
    $('find-form').insertBefore(fieldset, $('find'));
  }

  async function loadNetworks() {
    let ips = [];
    try {
      ips = (await cal.api('GET', '/v1/floatingips')).floatingips || [];
    } catch (err) {
      return;  // Closed by policy: the id can still be typed.
    }
    const networks = Array.from(new Set(ips.map(
      (ip) => ip.floating_network_id))).sort();
    const list = $('networks');
    list.textContent = '';
    networks.forEach((n) => list.appendChild(cal.el('option', {value: n})));
    if (networks.length && !$('fip-network').value) {
      $('fip-network').value = networks[0];
    }
  }

  function reservations() {
    const out = [];
    const hosts = number('count', 0);
    if (hosts > 0) {
      const host = {resource_type: 'physical:host', min: hosts, max: hosts,
                    hypervisor_properties: '',
                    resource_properties: cal.resourceProperties()};
      const traits = cal.traitsValue();
      if (traits) {
        host.traits = traits;
      }
      out.push(host);
    }
    const ips = number('fip-amount', 0);
    if (ips > 0) {
      out.push({resource_type: 'virtual:floatingip', amount: ips,
                network_id: $('fip-network').value.trim()});
    }
    const instances = number('instance-amount', 0);
    if (instances > 0) {
      out.push({resource_type: 'virtual:instance', amount: instances,
                vcpus: number('instance-vcpus', 1),
                memory_mb: number('instance-memory', 1024),
                disk_gb: number('instance-disk', 0), affinity: null,
                resource_properties: ''});
    }
    return out;
  }

  function describe(list) {
    return list.map((r) => {
      if (r.resource_type === 'physical:host') {
        return r.min + ' host' + (r.min === 1 ? '' : 's');
      }
      if (r.resource_type === 'virtual:floatingip') {
        return r.amount + ' floating IP' + (r.amount === 1 ? '' : 's');
      }
      return r.amount + ' instance' + (r.amount === 1 ? '' : 's') + ' of ' +
        r.vcpus + ' VCPU';
    }).join(', ');
  }

  function clear(text, isError, id) {
    const result = $('result');
    result.textContent = '';
    if (text) {
      result.appendChild(cal.el('p', {id: id, text: text,
                                      'class': isError ? 'error' : ''}));
    }
    cal.state.slots = [];
    cal.state.chosen = null;
    $('lease-form').hidden = true;
    cal.schedule();
  }

  async function find() {
    $('lease-error').textContent = '';
    $('lease-message').textContent = '';
    const wanted = reservations();
    if (!wanted.length) {
      clear('Ask for at least one host, floating IP or instance.', true,
            'find-error');
      return;
    }
    const minutes = Math.round(+$('duration').value *
                               +$('duration-unit').value);
    const now = cal.floorMinute(Date.now());
    const body = {
      reservations: wanted, duration: minutes * 60, limit: 5,
      not_before: cal.fmtUtc(now),
      not_after: cal.fmtUtc(now + (+$('search-days').value || 30) * DAY),
    };
    $('result').textContent = 'Asking…';
    let options;
    try {
      options = (await cal.api('POST', '/v1/leases/plan', body)).options;
    } catch (err) {
      clear(err.message, true, 'find-error');
      return;
    }
    found.reservations = wanted;
    found.duration = minutes;
    if (!options.length) {
      clear('No slot of ' + cal.fmtDuration(minutes * MINUTE) + ' for ' +
            describe(wanted) + ' in the window.', true, 'no-slot');
      return;
    }
    show(options, wanted, minutes);
  }

  function show(options, wanted, minutes) {
    const result = $('result');
    result.textContent = '';
    result.appendChild(cal.el('p', {id: 'asked', text: describe(wanted) +
      ' for ' + cal.fmtDuration(minutes * MINUTE) + ' can start:'}));
    const list = cal.el('ol', {id: 'slot-list'});
    options.forEach((option, i) => {
      const button = cal.el('button', {
        type: 'button', 'data-start': option.start_date,
        'data-end': option.end_date,
        text: (i === 0 ? 'Earliest: ' : '') + option.start_date + ' → ' +
          option.end_date});
      const li = cal.el('li', {}, [button]);
      button.addEventListener('click', () => choose(option, li));
      list.appendChild(li);
    });
    result.appendChild(list);
    cal.state.slots = options.map((o) => ({start: cal.parseUtc(o.start_date),
                                           end: cal.parseUtc(o.end_date)}));
    choose(options[0], list.firstChild);
    if (!$('lease-name').value) {
      $('lease-name').value = 'lease-' +
        cal.fmtUtc(Date.now()).replace(/[- :]/g, '');
    }
    $('lease-form').hidden = false;
  }

  function choose(option, li) {
    document.querySelectorAll('#slot-list li').forEach(
      (n) => n.classList.toggle('chosen', n === li));
    const start = cal.parseUtc(option.start_date);
    cal.state.chosen = {start: start, end: cal.parseUtc(option.end_date)};
    const v = cal.view();
    if (start < v.t0 || start > v.t1) {
      cal.layout(start + (v.t1 - v.t0) * 0.35);
    }
    cal.schedule();
  }

  async function book() {
    const error = $('lease-error');
    const message = $('lease-message');
    error.textContent = '';
    message.textContent = '';
    const chosen = cal.state.chosen;
    if (!chosen || !found.reservations) {
      return;
    }
    // An option starting now may have begun a minute ago: start it now.
    const start = Math.max(chosen.start, cal.floorMinute(Date.now()));
    const body = {name: $('lease-name').value,
                  start_date: cal.fmtUtc(start),
                  end_date: cal.fmtUtc(start + found.duration * MINUTE),
                  reservations: found.reservations, events: []};
    $('reserve').disabled = true;
    try {
      const lease = (await cal.api('POST', '/v1/leases', body)).lease;
      cal.state.newLease = lease.id;
      message.textContent = 'Lease ' + lease.name + ' created (' +
        lease.status + '), ' + lease.start_date.slice(0, 16)
        .replace('T', ' ') + ' → ' +
        lease.end_date.slice(0, 16).replace('T', ' ') + ' UTC.';
      message.dataset.lease = lease.id;
      $('lease-name').value = '';
      clear('');
      cal.reload();
    } catch (err) {
      // The API's own words, enforcement's and a lost race's included.
      error.textContent = err.message;
    } finally {
      $('reserve').disabled = false;
    }
  }

  function init() {
    addFields();
    // The search and the booking forms of the panel (one handler on
    // their parent).
    $('finder').addEventListener('submit', (event) => {
      const id = event.target.id;
      if (id !== 'find-form' && id !== 'lease-form') {
        return;
      }
      event.preventDefault();
      event.stopPropagation();
      (id === 'find-form' ? find : book)();
    }, true);
    $('auth').addEventListener('submit', loadNetworks);
    loadNetworks();
  }

  if (cal) {
    init();
  }
})();
