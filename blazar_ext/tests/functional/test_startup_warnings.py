"""Nothing here uses eventlet: futurist's import of it stays silent."""

import importlib.util
import subprocess
import sys

import testtools


def _stderr(code: str) -> str:
    return subprocess.run([sys.executable, '-c', code], capture_output=True,
                          text=True, timeout=60).stderr


class TestEventletWarning(testtools.TestCase):

    def test_silenced_once_blazar_ext_is_imported(self):
        if importlib.util.find_spec('eventlet'):
            # Without the filter the warning is printed: the check below
            # would otherwise prove nothing.
            self.assertIn('Eventlet is deprecated', _stderr(
                'import futurist'))
        self.assertNotIn('Eventlet is deprecated', _stderr(
            'import blazar_ext.cmd.all_in_one, futurist'))
