#!/usr/bin/env python3
"""Time to first render of the reservation calendar in headless Chromium.

    python tools/bench/calendar_page.py [--hosts 2000] [--leases 20000]
        [--days 7] [--runs 5] [--screenshot PATH] [--realistic]

Seeds a fresh SQLite file (hosts with public capabilities, one-host
leases spread over --days from now, each host's leases not overlapping),
starts a real ``blazar-ext-all-in-one`` on it, opens /calendar/ in
Debian's headless Chromium through selenium and reads the page's own
performance marks, in milliseconds from navigation:

  first render  the first screenful drawn: HTML, script, the calendar
                fetch of the window for the first rows, parsing, drawing;
  all rows      every row of the window fetched and drawable (the whole
                calendar fetch, parsed).

It prints the median and the spread of --runs fresh page loads, then the
mean time to draw a frame while the page scrolls down through the rows
held, and down and across past the time window held (a proxy for
smoothness: under 16 ms keeps 60 frames a second).

--realistic makes the data a demo would show: leases from a week ago to
a week ahead with their statuses as time made them (terminated, active,
pending, a few in error), several projects, a few hosts out of service.
--screenshot PATH saves the page as an admin sees it (1600x1000), with
a slot search for three hosts for a day.

Needs chromium and chromium-driver (tools/test-setup.sh installs them)
and selenium (test-requirements.txt).
"""

import argparse
import datetime
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from oslo_db.sqlalchemy import engines
from oslo_utils import timeutils
import requests
import sqlalchemy as sa

from blazar_ext import conf as blazar_conf
from blazar_ext import context as blazar_context
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db import migration
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext.query import language
from blazar_ext.tests.functional import browser

# A script beside this one (its directory is on sys.path).
import lease_import  # noqa: I100

CONF = blazar_conf.CONF
PROJECTS = ('physics', 'genomics', 'ml-research', 'systems', 'edu')
WORDS = ('training', 'benchmark', 'kernel-ci', 'sim', 'render', 'etl',
         'hpc-job', 'course-lab', 'demo', 'fuzzing', 'inference', 'build')
CAPABILITIES = {
    'gpu': lambda i: 'true' if i % 4 == 0 else 'false',
    'cpu_model': lambda i: ('Icelake-Server', 'EPYC-Milan',
                            'SapphireRapids')[i % 3],
    'network_speed_gbps': lambda i: ('25', '100')[i % 2],
    'memory_gb': lambda i: ('192', '384', '768')[i % 3],
    'rack': lambda i: 'r%02d' % (i // 10),
}


def configure(path: str) -> None:
    CONF([], project='blazar-ext', default_config_files=[])
    CONF.set_override('connection', 'sqlite:///%s' % path, group='database')
    engine = engines.create_engine('sqlite:///%s' % path)
    migration.upgrade('head', engine)
    db_session.context_manager.patch_engine(engine)


def load_hosts(count: int, out_of_service: int) -> list:
    """Insert hosts with public capabilities; their ids, by name order."""
    context = blazar_context.get_admin_context()
    host = host_models.ComputeHost
    names = ['node-%04d' % i for i in range(count)]
    down = set(random.sample(range(count), out_of_service))
    with db_session.writer.using(context) as session:
        session.execute(sa.insert(host), [
            {'hypervisor_hostname': name, 'vcpus': 64, 'cpu_info': '{}',
             'hypervisor_type': 'baremetal', 'hypervisor_version': 1,
             'memory_mb': 393216, 'local_gb': 960,
             'reservable': i not in down}
            for i, name in enumerate(names)])
        ids = dict(session.execute(sa.select(host.hypervisor_hostname,
                                             host.id)).all())
        cap_ids = {}
        for name in CAPABILITIES:
            row = host_models.ExtraCapability(
                resource_type='physical:host', capability_name=name,
                private=False)
            session.add(row)
            session.flush()
            cap_ids[name] = row.id
        session.execute(sa.insert(host_models.ComputeHostExtraCapability), [
            {'computehost_id': ids[name], 'capability_id': cap_ids[cap],
             'capability_value': value(i),
             'capability_number': language.number_of(value(i))}
            for i, name in enumerate(names)
            for cap, value in CAPABILITIES.items()])
        capability_api.fill_values(session, 'physical:host')
    return [ids[name] for name in names]


def plan_leases(host_ids: list, count: int, start: datetime.datetime,
                days: float) -> list:
    """``count`` one-host leases from ``start`` over about ``days``: each
    host's leases one after another with random lengths and gaps, hosts
    out of step with each other, as real bookings are."""
    per_host, extra = divmod(count, len(host_ids))
    counts = [per_host + (1 if i < extra else 0)
              for i in range(len(host_ids))]
    random.shuffle(counts)
    mean = datetime.timedelta(days=days) / max(1, per_host + 1)
    items = []
    for host_id, n in zip(host_ids, counts):
        t = start + mean * random.uniform(0, 0.4)
        for _ in range(n):
            begin = t.replace(second=0, microsecond=0)
            end = (t + mean * random.uniform(0.25, 1.0)).replace(
                second=0, microsecond=0)
            end = max(end, begin + datetime.timedelta(minutes=30))
            project = random.choice(PROJECTS)
            items.append({'name': '%s-%s-%d' % (
                project.split('-')[0], random.choice(WORDS), len(items)),
                'project_id': project, 'user_id': project + '-user',
                'host_id': host_id, 'start_date': begin, 'end_date': end})
            t = end + mean * random.uniform(0.05, 0.5)
    return items


def age_leases(now: datetime.datetime) -> None:
    """Statuses as time made them; past events done (the event loop then
    has nothing to catch up on), a few leases in error."""
    context = blazar_context.get_admin_context()
    lease = lease_models.Lease
    event = lease_models.Event
    with db_session.writer.using(context) as session:
        session.execute(sa.update(lease).where(lease.end_date <= now)
                        .values(status='TERMINATED'))
        session.execute(sa.update(lease).where(
            lease.start_date <= now, lease.end_date > now)
            .values(status='ACTIVE'))
        session.execute(sa.update(event).where(event.time <= now)
                        .values(status='DONE'))
        ids = list(session.scalars(sa.select(lease.id).where(
            lease.status == 'TERMINATED')))
        for lease_id in random.sample(ids, min(3, len(ids))):
            session.execute(sa.update(lease).where(lease.id == lease_id)
                            .values(status='ERROR'))


def seed(path: str, hosts: int, leases: int, days: float,
         realistic: bool) -> None:
    configure(path)
    host_ids = load_hosts(hosts, max(1, hosts // 25) if realistic else 0)
    now = timeutils.utcnow().replace(second=0, microsecond=0)
    start = now - datetime.timedelta(days=days / 2) if realistic else now
    items = plan_leases(host_ids, leases, start, days)
    for i in range(0, len(items), 20000):
        lease_import.bulk_import(blazar_context.get_admin_context(),
                                 items[i:i + 20000])
    if realistic:
        age_leases(now)


def start_all_in_one(state: str) -> tuple:
    port = browser.free_port()
    config = os.path.join(state, 'blazar-ext.conf')
    with open(config, 'w') as f:
        f.write('[DEFAULT]\nstate_path = %s\n[api]\nhost = 127.0.0.1\n'
                'port = %d\n[manager]\nevent_interval = 3600\n'
                % (state, port))
    log = open(os.path.join(state, 'all-in-one.log'), 'ab')
    process = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable),
                      'blazar-ext-all-in-one'), '--config-file', config],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True)
    url = 'http://127.0.0.1:%d' % port
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            requests.get(url + '/calendar/', timeout=2)
            return process, url
        except requests.RequestException:
            if process.poll() is not None:
                break
            time.sleep(0.3)
    process.kill()
    raise SystemExit('blazar-ext-all-in-one did not start; see %s'
                     % log.name)


def first_render_ms(driver, url: str, token: str) -> tuple:
    """One fresh load of the page: the page's own marks, milliseconds
    from navigation to the first screenful drawn and to every row of the
    window held."""
    driver.get(url + '/calendar/')
    driver.execute_script(
        'localStorage.setItem("blazar-calendar-token", arguments[0]);',
        token)
    driver.get(url + '/calendar/')
    browser.wait_until(
        driver, 'performance.getEntriesByName("calendar-complete").length',
        120)
    return tuple(driver.execute_script(
        'return ["calendar-first-render", "calendar-complete"].map('
        'n => performance.getEntriesByName(n)[0].startTime);'))


def scroll_frame_ms(driver, dx: int = 41, dy: int = 97) -> float:
    """Mean milliseconds per frame while the page scrolls 60 frames by
    (dx, dy) pixels a frame."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const [dx, dy] = [arguments[0], arguments[1]];
        const scroller = document.getElementById('scroller');
        let frames = 0;
        const t0 = performance.now();
        function step() {
          scroller.scrollTop += dy;
          scroller.scrollLeft += dx;
          if (++frames < 60) { requestAnimationFrame(step); }
          else { requestAnimationFrame(() =>
            done((performance.now() - t0) / frames)); }
        }
        requestAnimationFrame(step);
    """, dx, dy)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=2000)
    parser.add_argument('--leases', type=int, default=20000)
    parser.add_argument('--days', type=float, default=7)
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--realistic', action='store_true')
    parser.add_argument('--screenshot')
    parser.add_argument('--token', default='admin')
    args = parser.parse_args(argv)
    random.seed(19)
    state = tempfile.mkdtemp(prefix='blazar-ext-calendar-bench-')
    t = time.perf_counter()
    seed(os.path.join(state, 'blazar_ext.sqlite'), args.hosts, args.leases,
         args.days, args.realistic)
    print('seeded %d hosts and %d leases in %.1f s'
          % (args.hosts, args.leases, time.perf_counter() - t))
    process, url = start_all_in_one(state)
    driver = None
    try:
        driver = browser.start_chrome(os.path.join(state, 'chrome'),
                                      width=1600, height=1000)
        marks = [first_render_ms(driver, url, args.token)
                 for _ in range(args.runs)]
        for label, times in (('first render', [m[0] for m in marks]),
                             ('all rows', [m[1] for m in marks])):
            print('%s: median %.0f ms, min %.0f ms, max %.0f ms over %d '
                  'loads (%d hosts, %d leases in the window)'
                  % (label, statistics.median(times), min(times),
                     max(times), len(times), args.hosts, args.leases))
        # Down through the rows held, then across time past them (which
        # fetches the next window while scrolling).
        print('scrolling down: %.1f ms per frame'
              % scroll_frame_ms(driver, 0, 97))
        print('scrolling down and across: %.1f ms per frame'
              % scroll_frame_ms(driver, 41, 97))
        if args.screenshot:
            driver.execute_script(
                'document.getElementById("scroller").scrollTop = 0;')
            browser.settle(driver, driver.find_element(
                'css selector', '#go-now').click)
            # Some of the past in view, and a slot search shown: three
            # hosts for a day.
            browser.settle(driver, lambda: driver.execute_script(
                'const s = document.getElementById("scroller");'
                's.scrollLeft -= s.clientWidth * 0.2;'))
            for element_id, value in (('count', '3'), ('duration', '1')):
                field = driver.find_element('id', element_id)
                field.clear()
                field.send_keys(value)
            driver.find_element('id', 'duration-unit').send_keys('days')
            driver.find_element('id', 'find').click()
            browser.wait_until(driver,
                               'document.getElementById("slot-list")')
            browser.settle(driver)
            driver.save_screenshot(args.screenshot)
            print('screenshot: %s' % args.screenshot)
    finally:
        if driver is not None:
            driver.quit()
        process.terminate()
        process.wait(30)
        shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
