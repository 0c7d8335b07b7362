"""The README's commands, run as written.

The ``sh`` blocks of README.md are read from the README itself. The first
holds the two commands: the first of them (install, then run the
all-in-one) runs as written in a fresh virtualenv, from this checkout;
the second (the test command) would run this test again, so it is only
checked to be the command CI runs. Every later ``sh`` block then runs, in
order, in one shell against that all-in-one, with the clients of
test-requirements.txt on the PATH after the virtualenv's.
"""

import glob
import os
import re
import shlex
import socket
import sys
import time

import fixtures
import requests
import testtools
import testtools.content

from blazar_ext.tests.functional import services

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
README = os.path.join(REPO, 'README.md')
# Where the README's commands say the all-in-one answers.
ENDPOINT = 'http://127.0.0.1:1234'
# pip install, start and migrations; then the client commands.
INSTALL_TIMEOUT = 300
CLIENTS_TIMEOUT = 300


def code_blocks(text: str, info: str) -> list[str]:
    """The fenced code blocks of a Markdown text with this info string
    ('' for none), in order."""
    blocks, current, current_info = [], None, None
    for line in text.splitlines():
        if current is None and line.startswith('```'):
            current, current_info = [], line[3:].strip()
        elif current is not None and line.strip() == '```':
            if current_info == info:
                blocks.append('\n'.join(current) + '\n')
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def _requirement_names(path: str) -> set[str]:
    with open(path) as f:
        return {re.split(r'[<>=!~\[; #]', line.strip(), maxsplit=1)[0].lower()
                for line in f if line.strip() and not line.startswith('#')}


def _port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(('127.0.0.1', port)) == 0


class TestReadme(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with open(README, encoding='utf-8') as f:
            self.readme = f.read()
        self.blocks = code_blocks(self.readme, 'sh')
        self.assertGreater(len(self.blocks), 1, 'no sh blocks in README.md')

    def test_second_command_is_what_ci_runs(self):
        first, second = self.blocks[0].strip().splitlines()
        install, _, test = second.partition(' && ')
        self.assertEqual('python3 -m pip install tox', install)
        with open(os.path.join(REPO, '.ci', 'run')) as f:
            ci = f.read()
        # Alone on its line, perhaps with arguments after it.
        self.assertRegex(ci, r'(?m)^\s*%s(\s|$)' % re.escape(test))

    def test_client_install_line_names_the_tested_clients(self):
        [line] = [b.strip() for b in code_blocks(self.readme, '')
                  if 'python-openstackclient' in b]
        prefix = 'python3 -m pip install '
        self.assertTrue(line.startswith(prefix), line)
        tested = _requirement_names(os.path.join(REPO,
                                                 'test-requirements.txt'))
        for name in line[len(prefix):].split():
            self.assertIn(name.lower(), tested)

    def test_links_into_the_repository_exist(self):
        links = re.findall(r'\]\(([^)#]+)\)', self.readme)
        self.assertTrue(links)
        for link in links:
            self.assertTrue(os.path.exists(os.path.join(REPO, link)), link)

    def test_commands_as_written(self):
        first = self.blocks[0].strip().splitlines()[0]
        for client in ('openstack', 'glance'):
            if not os.path.exists(os.path.join(services.BIN_DIR, client)):
                self.skipTest('%s is not installed here (test-requirements)'
                              % client)
        deadline = time.monotonic() + 60
        while _port_in_use(1234):
            if time.monotonic() > deadline:
                self.skipTest('port 1234, where the README runs the '
                              'all-in-one, is taken by another process')
            time.sleep(2)

        tmp = self.useFixture(fixtures.TempDir()).path
        venv = os.path.join(tmp, 'venv')
        proc = services.run([sys.executable, '-m', 'venv', venv],
                            timeout=120)
        self.assertEqual(0, proc.returncode, proc.stderr)
        home = os.path.join(tmp, 'home')
        os.mkdir(home)
        # As after `. venv/bin/activate`: the fresh virtualenv first. The
        # clients come after it, from this test's environment; the home
        # directory is empty (the all-in-one keeps its state there), but
        # pip keeps its cache.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('OS_', 'PYTHON', 'VIRTUAL_ENV',
                                    'BLAZAR_EXT_'))}
        env.update(
            PATH=os.pathsep.join([os.path.join(venv, 'bin'),
                                  services.BIN_DIR, env.get('PATH', '')]),
            VIRTUAL_ENV=venv, HOME=home,
            PIP_CACHE_DIR=os.environ.get('PIP_CACHE_DIR') or os.path.join(
                os.path.expanduser('~'), '.cache', 'pip'))

        # From the checkout, as the README says.
        server = self.useFixture(services.ServiceProcess(
            'readme-first-command',
            ['bash', '-c', 'cd %s && %s' % (shlex.quote(REPO), first)],
            tmp, env=env))
        services.wait_for(lambda: services.http_answers(ENDPOINT + '/'),
                          INSTALL_TIMEOUT, 'the README\'s first command to '
                          'answer on %s' % ENDPOINT, processes=[server],
                          interval=1)
        self.assertTrue(os.path.exists(os.path.join(
            venv, 'bin', 'blazar-ext-all-in-one')))
        self.assertIn('serving on %s' % ENDPOINT, server.log())

        script = 'set -ex\n' + '\n'.join(self.blocks[1:])
        proc = services.run(['bash', '-c', script], timeout=CLIENTS_TIMEOUT,
                            env=env)
        self.addDetail('clients-output', testtools.content.text_content(
            proc.stdout + '\n' + proc.stderr))
        self.assertEqual(0, proc.returncode, proc.stderr[-4000:])
        for shown in ('my-lease', 'Updated lease: vm-lease',
                      'Deleted lease: vm-lease', 'CUSTOM_GPU',
                      'OS::Blazar::HostCapabilities',
                      'Upgrade Check Results'):
            self.assertIn(shown, proc.stdout)
        # The calendar, where the README says it is.
        resp = requests.get(ENDPOINT + '/calendar/', timeout=30)
        self.assertEqual(200, resp.status_code)
        self.assertIn('text/html', resp.headers['Content-Type'])
        server.stop(timeout=30)
        # The virtualenv holds a real install, not this checkout on a path.
        self.assertTrue(glob.glob(os.path.join(
            venv, 'lib', 'python*', 'site-packages', 'blazar_ext',
            'cmd', 'all_in_one.py')))
