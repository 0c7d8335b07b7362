"""tools/check_skips.py: CI's skip check reads the subunit stream whole."""

import io
import subprocess
import sys

from oslotest import base
import subunit

from blazar_ext.tests import fixtures as blazar_fixtures

check_skips = blazar_fixtures.tool_module('check_skips')

# A gabbi id with a comma and quotes, as subunit2csv would have quoted it.
COMMA_ID = ('blazar_ext.tests.functional.placement.test_gabbits.'
            'PlacementGabbits.test_mysql_traits_list_"a,b"_filter')


def _stream(*tests: tuple[str, str, str]) -> bytes:
    """A subunit v2 stream of (test id, final status, skip reason)."""
    out = io.BytesIO()
    writer = subunit.StreamResultToBytes(out)
    for test_id, status, reason in tests:
        writer.status(test_id=test_id, test_status='inprogress')
        if reason:
            writer.status(test_id=test_id, file_name='reason',
                          file_bytes=reason.encode(), eof=True,
                          mime_type='text/plain; charset=utf8')
        writer.status(test_id=test_id, test_status=status)
    return out.getvalue()


class CheckSkipsTest(base.BaseTestCase):

    def _main(self, data: bytes) -> tuple[int, str]:
        out = io.StringIO()
        code = check_skips.main([], stream=io.BytesIO(data), out=out)
        return code, out.getvalue()

    def test_skip_with_comma_in_id_is_reported_whole(self):
        code, out = self._main(_stream(
            ('t.ok', 'success', ''),
            (COMMA_ID, 'skip', 'MySQL is not answering, sorry')))
        self.assertEqual(1, code)
        self.assertEqual(
            ['ERROR: 1 test(s) skipped although CI has every service:',
             COMMA_ID + ': MySQL is not answering, sorry'],
            out.splitlines())

    def test_no_skip_passes_even_with_commas(self):
        code, out = self._main(_stream(
            ('t.ok', 'success', ''), (COMMA_ID, 'success', ''),
            ('t.failed', 'fail', '')))
        self.assertEqual(0, code)
        self.assertEqual('3 tests, none skipped\n', out)

    def test_every_skip_listed_sorted(self):
        code, out = self._main(_stream(
            ('t.b', 'skip', ''), ('t.a', 'skip', 'no broker')))
        self.assertEqual(1, code)
        self.assertEqual(['t.a: no broker', 't.b: (no reason)'],
                         out.splitlines()[1:])

    def test_empty_stream_fails(self):
        code, out = self._main(b'')
        self.assertEqual(2, code)
        self.assertIn('holds no test', out)

    def test_command_reads_stdin(self):
        proc = subprocess.run(
            [sys.executable, blazar_fixtures.tool_path('check_skips')],
            input=_stream((COMMA_ID, 'skip', 'x')), capture_output=True,
            timeout=60)
        self.assertEqual(1, proc.returncode)
        self.assertIn((COMMA_ID + ': x').encode(), proc.stderr)
