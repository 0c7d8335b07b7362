"""Helpers of the differential test against upstream Blazar 18: the
upstream server, the requests sent to both sides and how their answers
are compared.

Upstream runs in its own venv (tools/blazar/setup-venv.sh), served by
tools/blazar/upstream_server.py with its stand-ins for Keystone, Nova,
Placement and Neutron. Both sides get the same requests in the same
order; ids differ, so a step may ``bind`` a value of its answer (on each
side) under a name that later paths and bodies use as ``{name}``.
"""

import dataclasses
import json
import os
import re
import select
import subprocess
import time

import fixtures
import requests

from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import upstream_blazar

SERVER_NAME = os.path.join('blazar', 'upstream_server')
SERVER = blazar_fixtures.tool_path(SERVER_NAME)
# The stand-ins' own module (it imports nothing of upstream's at first).
STAND_INS = blazar_fixtures.tool_module(SERVER_NAME)
# What keystonemiddleware would hand upstream's API; blazar_ext's noauth
# reads the same identity headers.
IDENTITIES = {
    'admin': {'X-User-Id': 'alice', 'X-Project-Id': 'ops',
              'X-Roles': 'admin,member,reader'},
    'member': {'X-User-Id': 'bob', 'X-Project-Id': 'demo',
               'X-Roles': 'member,reader'},
}


class UpstreamBlazar(fixtures.Fixture):
    """Upstream Blazar 18's v1 API on 127.0.0.1 (in-memory SQLite, its
    event loop every second); ``endpoint`` is its base URL."""

    def _setUp(self):
        log = open(os.path.join(self.useFixture(fixtures.TempDir()).path,
                                'upstream.err'), 'w')
        self.addCleanup(log.close)
        self.process = subprocess.Popen(
            [os.path.join(upstream_blazar.venv(), 'bin', 'python'), SERVER,
             '--database', 'sqlite://', '--create-schema', '--events', '1',
             '--plugins', STAND_INS.ALL_PLUGINS],
            stdout=subprocess.PIPE, stderr=log, text=True)
        self.addCleanup(self._stop)
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        line = self.process.stdout.readline() if ready else ''
        if not line.startswith('serving '):
            raise RuntimeError('upstream Blazar did not start (see %s)'
                               % log.name)
        self.endpoint = 'http://127.0.0.1:%d' % int(line.split()[1])

    def _stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclasses.dataclass
class Step:
    """One request sent to both sides.

    ``path`` and ``body`` may name earlier bindings as ``{name}``;
    ``bind`` maps a name to the key path of a value in the answer;
    ``until`` (key path, value) repeats a GET until the answer has the
    value (an event the manager runs), and the step is not compared.
    """
    name: str
    method: str
    path: str
    body: object = None
    who: str = 'admin'
    bind: dict = dataclasses.field(default_factory=dict)
    until: tuple | None = None


@dataclasses.dataclass
class Answer:
    status: int
    body: object


def _dig(value, keys: tuple):
    """value[keys[0]][keys[1]]..., or None."""
    try:
        for key in keys:
            value = value[key]
    except (KeyError, IndexError, TypeError):
        return None
    return value


class Side:
    """One service under test: its endpoint and its bindings."""

    def __init__(self, name: str, endpoint: str, tick=None):
        self.name = name
        # Runs the side's due events, if they do not run by themselves.
        self.tick = tick
        self.endpoint = endpoint
        self.bound = {}
        self.session = requests.Session()

    def resolve(self, value):
        if isinstance(value, str):
            return re.sub(r'\{(\w+)\}',
                          lambda m: str(self.bound[m.group(1)]), value)
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        return value

    def send(self, step: Step) -> Answer:
        headers = dict(IDENTITIES[step.who], **{
            'X-Auth-Token': 'differential',
            'X-Service-Catalog': STAND_INS.CATALOG,
            'Accept': 'application/json',
            'Content-Type': 'application/json'})
        data = None
        if step.body is not None:
            data = json.dumps(self.resolve(step.body))
        resp = self.session.request(
            step.method, self.endpoint + self.resolve(step.path),
            data=data, headers=headers, timeout=60)
        try:
            body = resp.json() if resp.content else None
        except ValueError:
            body = resp.text
        answer = Answer(resp.status_code, body)
        for name, keys in step.bind.items():
            # A failed request binds nothing usable; its step differs.
            self.bound[name] = _dig(body, keys) or 'unbound-%s' % name
        return answer

    def wait(self, step: Step, timeout: float = 30) -> Answer:
        keys, expected = step.until
        deadline = time.monotonic() + timeout
        while True:
            if self.tick:
                self.tick()
            answer = self.send(step)
            if (_dig(answer.body, keys) == expected
                    or time.monotonic() > deadline):
                return answer
            time.sleep(0.2)


# --- Comparing --------------------------------------------------------------

_UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                   r'[0-9a-f]{12}')
_FORMATS = (
    ('YYYY-MM-DD HH:MM:SS.ffffff',
     re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$')),
    ('YYYY-MM-DDTHH:MM:SS.ffffff',
     re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$')),
    ('YYYY-MM-DDTHH:MM:SS', re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$')),
    ('YYYY-MM-DD HH:MM:SS', re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$')),
    ('YYYY-MM-DD HH:MM', re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d$')),
    ('uuid', re.compile('^%s$' % _UUID.pattern)),
)
# Lease dates: a lease started "now" has them cut to the minute.
_DATE_KEYS = ('start_date', 'end_date', 'time')


def _format(value: str) -> str | None:
    for name, pattern in _FORMATS:
        if pattern.match(value):
            return name
    return None


def _volatile(key: str | None) -> bool:
    """Values that differ between the two sides by nature: ids, times."""
    return key is not None and (
        key == 'id' or key.endswith('_id') or key in (
            'created_at', 'updated_at', 'href') or key in _DATE_KEYS)


def normalize(value, key: str | None = None):
    """``value`` with ids and times replaced by their type and format;
    lists in a stable order."""
    if isinstance(value, dict):
        return {k: normalize(v, k) for k, v in value.items()}
    if isinstance(value, list):
        items = [normalize(v, key) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, str):
        if key == 'href':
            return re.sub(r'^https?://[^/]+', '<endpoint>', value)
        if _volatile(key):
            shape = _format(value) or 'str'
            if key in _DATE_KEYS and shape != 'uuid' and re.search(
                    r':00(\.0+)?$', value):
                shape += ' (whole minute)'
            return '<%s>' % shape
        return _UUID.sub('<uuid>', value)
    if _volatile(key) and value is not None and not isinstance(value, bool):
        return '<%s>' % type(value).__name__
    return value


def message_of(answer: Answer) -> str:
    if isinstance(answer.body, dict):
        return str(answer.body.get('error_message', ''))
    return str(answer.body)


def _unbind(text: str, side: Side) -> str:
    """``text`` with the side's bound ids and any uuid as placeholders."""
    for name, value in side.bound.items():
        if isinstance(value, str) and len(value) > 3:
            text = text.replace(value, '{%s}' % name)
    return _UUID.sub('<uuid>', text)


def compare(upstream: Answer, ours: Answer, up_side: Side,
            our_side: Side) -> list:
    """The differences between two answers to one request, as sentences;
    none when blazar_ext answers as upstream."""
    if upstream.status >= 500:
        if 400 <= ours.status < 500:
            return ['upstream answers %d, blazar_ext %d (a client error)'
                    % (upstream.status, ours.status)]
        return ['upstream answers %d, blazar_ext %d'
                % (upstream.status, ours.status)]
    if upstream.status != ours.status:
        return ['status: upstream %d, blazar_ext %d: %s'
                % (upstream.status, ours.status,
                   message_of(ours)[:200])]
    if upstream.status >= 400:
        found = []
        up_message = _unbind(message_of(upstream), up_side)
        our_message = _unbind(message_of(ours), our_side)
        if up_message not in our_message:
            found.append('message: upstream %r, blazar_ext %r'
                         % (up_message, our_message))
        if isinstance(upstream.body, dict):
            keys = set(upstream.body) - set(ours.body or {})
            if keys:
                found.append('error keys missing: %s' % sorted(keys))
            for k in set(upstream.body) & set(ours.body or {}):
                if type(upstream.body[k]) is not type(ours.body[k]):
                    found.append('error key %s: upstream %r, blazar_ext %r'
                                 % (k, upstream.body[k], ours.body[k]))
        return found
    up, our = normalize(upstream.body), normalize(ours.body)
    return [d for d in _diff(up, our, '')]


def _diff(up, our, where: str):
    if isinstance(up, dict) and isinstance(our, dict):
        for key in sorted(set(up) - set(our)):
            yield '%s: key %r missing' % (where or '.', key)
        for key in sorted(set(our) - set(up)):
            yield '%s: extra key %r' % (where or '.', key)
        for key in sorted(set(up) & set(our)):
            yield from _diff(up[key], our[key], '%s.%s' % (where, key))
    elif isinstance(up, list) and isinstance(our, list):
        if len(up) != len(our):
            yield '%s: %d items upstream, %d here' % (where, len(up),
                                                      len(our))
        for i, (u, o) in enumerate(zip(up, our)):
            yield from _diff(u, o, '%s[%d]' % (where, i))
    elif json.dumps(up) != json.dumps(our):
        yield '%s: upstream %s, blazar_ext %s' % (
            where, json.dumps(up)[:120], json.dumps(our)[:120])


@dataclasses.dataclass
class Outcome:
    step: Step
    upstream: Answer
    ours: Answer
    differences: list


def run(steps: list, upstream: Side, ours: Side) -> list:
    """Send every step to both sides in turn; the compared outcomes."""
    outcomes = []
    for step in steps:
        if step.until:
            upstream.wait(step)
            ours.wait(step)
            continue
        up_answer = upstream.send(step)
        our_answer = ours.send(step)
        outcomes.append(Outcome(step, up_answer, our_answer,
                                compare(up_answer, our_answer, upstream,
                                        ours)))
    return outcomes


def _allowed(outcome: Outcome, difference: str, allowed: list) -> str:
    """The reason ``allowed`` gives for the difference, or ''."""
    for step, pattern, reason in allowed:
        if re.search(step, outcome.step.name) and re.search(pattern,
                                                            difference):
            return reason
    return ''


def report(outcomes: list, allowed: list) -> tuple:
    """(The report, how many differences ``allowed`` does not list):
    the count of requests answered alike, then every difference."""
    identical = sum(1 for o in outcomes if not o.differences)
    lines = ['%d identical requests / %d' % (identical, len(outcomes))]
    unexpected = 0
    for o in outcomes:
        if o.differences:
            lines.append('%s (%s %s): upstream %d, blazar_ext %d'
                         % (o.step.name, o.step.method, o.step.path,
                            o.upstream.status, o.ours.status))
        for difference in o.differences:
            reason = _allowed(o, difference, allowed)
            unexpected += not reason
            lines.append('    %s %s' % ('allowed:' if reason else
                                        'UNEXPECTED:', difference))
    lines.insert(1, '%d unexpected differences' % unexpected)
    return '\n'.join(lines), unexpected
