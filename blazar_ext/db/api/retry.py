"""Writers retried when the database picks them as a deadlock's victim.

On MySQL, concurrent writes of neighbouring rows (allocations of two
consumers, tags of two namespaces) lock each other's index gaps now and
then; the database rolls one transaction back, and running it again is
all there is to do. Placement and Glance retry their writers the same
way.
"""

import functools

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc

from blazar_ext.db import session as db_session
from blazar_ext import metrics


def policy(exception_checker=lambda exc: False):
    """oslo.db's retry as this service's writers use it: on deadlock and
    on what ``exception_checker`` accepts, ten times, 50 ms apart growing
    to half a second. Each rollback is counted (blazar_ext_db_retries)."""
    retry = oslo_db_api.wrap_db_retry(
        max_retries=10, retry_on_deadlock=True, retry_interval=0.05,
        max_retry_interval=0.5, inc_retry_interval=True,
        exception_checker=exception_checker)

    def decorate(func):
        @functools.wraps(func)
        def counted(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except db_exc.DBDeadlock:
                metrics.count_db_retry('deadlock')
                raise
            except Exception as exc:
                if exception_checker(exc):
                    metrics.count_db_retry(type(exc).__name__)
                raise
        return retry(counted)
    return decorate


def on_deadlock(func):
    """``func(context, ...)`` again on deadlock, when it opens the
    transaction; inside a caller's writer transaction, which a deadlock
    has rolled back whole, the caller's retry is the one that counts."""
    retried = policy()(func)

    @functools.wraps(func)
    def call(context, *args, **kwargs):
        if db_session.writing(context):
            return func(context, *args, **kwargs)
        return retried(context, *args, **kwargs)
    return call
