#!/usr/bin/env python3
"""Fail when a subunit v2 stream reports a skipped test.

CI runs every service, so no test may skip for want of one:

    stestr last --subunit | python tools/check_skips.py

The stream is read with python-subunit (a dependency of stestr), so test
ids holding commas or quotes are read whole. Each skipped test is listed
with its reason. Exit status: 0 when nothing skipped, 1 when a test
skipped, 2 when the stream holds no test at all.
"""

import collections
import sys
import typing

import subunit
import testtools


class SkipCollector(testtools.StreamResult):
    """Keeps the final status and the skip reason of every test id."""

    def __init__(self) -> None:
        super().__init__()
        self.statuses: dict[str, str] = {}
        self.reasons: dict[str, bytearray] = collections.defaultdict(
            bytearray)

    def status(self, test_id=None, test_status=None, test_tags=None,
               runnable=True, file_name=None, file_bytes=None, eof=False,
               mime_type=None, route_code=None, timestamp=None) -> None:
        if test_id is None:
            return
        if file_name == 'reason' and file_bytes:
            self.reasons[test_id] += file_bytes
        if test_status is not None:
            self.statuses[test_id] = test_status

    def skipped(self) -> list[tuple[str, str]]:
        """(test id, reason) of each skipped test, sorted by id."""
        return sorted(
            (test_id, self.reasons.get(test_id, b'').decode(
                'utf-8', 'replace').strip())
            for test_id, status in self.statuses.items()
            if status == 'skip')


def read_stream(stream: typing.BinaryIO) -> SkipCollector:
    """Parse a subunit v2 byte stream; non-subunit bytes are ignored."""
    collector = SkipCollector()
    case = subunit.ByteStreamToStreamResult(stream, non_subunit_name='stdout')
    collector.startTestRun()
    try:
        case.run(collector)
    finally:
        collector.stopTestRun()
    return collector


def main(argv: list[str] | None = None,
         stream: typing.BinaryIO | None = None,
         out: typing.TextIO | None = None) -> int:
    """Read the stream (a file named in argv, else stdin); 0 if no skip."""
    argv = sys.argv[1:] if argv is None else argv
    out = sys.stderr if out is None else out
    if argv:
        with open(argv[0], 'rb') as source:
            collector = read_stream(source)
    else:
        collector = read_stream(stream or sys.stdin.buffer)
    if not collector.statuses:
        print('ERROR: the subunit stream holds no test', file=out)
        return 2
    skipped = collector.skipped()
    if skipped:
        print('ERROR: %d test(s) skipped although CI has every service:'
              % len(skipped), file=out)
        for test_id, reason in skipped:
            print('%s: %s' % (test_id, reason or '(no reason)'), file=out)
        return 1
    print('%d tests, none skipped' % len(collector.statuses), file=out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
