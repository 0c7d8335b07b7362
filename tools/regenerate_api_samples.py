"""Rewrite the api-ref's response samples from what the API answers.

Usage: python tools/regenerate_api_samples.py

Runs the steps of blazar_ext/tests/functional/test_api_samples.py against
the service in process (API, manager over fake://, SQLite) and writes
each response body to api-ref/source/samples/<name>-resp.json, unless
the sample there still matches (so ids and dates do not churn). Request
samples (-req.json) are written by hand and only read. Review the diff
before committing: every change is a change of the documented API.
"""

import sys

from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import test_api_samples


def main() -> int:
    with blazar_fixtures.ConfFixture(), \
            blazar_fixtures.DatabaseFixture(), \
            blazar_fixtures.ManagerFixture(), \
            blazar_fixtures.APIFixture() as api:
        problems = test_api_samples.run_steps(api, write=True)
    for problem in problems:
        print(problem, file=sys.stderr)
    print('%d steps, %d problems' % (len(test_api_samples.STEPS),
                                     len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
