"""Writers retried when the database picks them as a deadlock's victim.

On MySQL, concurrent writes of neighbouring rows (allocations of two
consumers, tags of two namespaces) lock each other's index gaps now and
then; the database rolls one transaction back, and running it again is
all there is to do. Placement and Glance retry their writers the same
way.

On a Galera cluster behind HAProxy two more faults come back as errors:
a certification failure (another node committed a conflicting write
first) is reported as a deadlock, and the node a connection talks to may
die. A connection lost before the transaction's COMMIT was sent (while a
statement ran, or while connecting) leaves nothing behind, the server
rolls the transaction back and a dead node takes it with it, so it is
retried as a deadlock is; a connection lost during COMMIT is not, since
the write may have been applied.
"""

import functools

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc

from blazar_ext.db import session as db_session
from blazar_ext import metrics


# SQLAlchemy's frames that send COMMIT: a connection lost in one of them
# may have had its transaction applied.
_COMMIT_FRAMES = frozenset(('_commit_impl', '_commit_twophase_impl',
                            'do_commit', 'do_commit_twophase'))


def _frames(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            yield tb.tb_frame.f_code.co_name
            tb = tb.tb_next
        exc = exc.__cause__ or exc.__context__


def lost_before_commit(exc: Exception) -> bool:
    """True for a lost connection that cannot have applied anything: lost
    while connecting (the pool's reconnect to a node gone) or while a
    statement ran, not while COMMIT was sent."""
    if not isinstance(exc, db_exc.DBConnectionError):
        return False
    return not any(name in _COMMIT_FRAMES for name in _frames(exc))


def policy(exception_checker=lambda exc: False):
    """oslo.db's retry as this service's writers use it: on deadlock (a
    Galera certification failure too), on a connection lost before
    COMMIT and on what ``exception_checker`` accepts, ten times, 50 ms
    apart doubling to 2 s (about 11 s in all: a Galera writer failing
    over takes a few seconds). Each rollback is counted
    (blazar_ext_db_retries)."""
    def expected(exc):
        return lost_before_commit(exc) or exception_checker(exc)
    retry = oslo_db_api.wrap_db_retry(
        max_retries=10, retry_on_deadlock=True, retry_interval=0.05,
        max_retry_interval=2, inc_retry_interval=True,
        exception_checker=expected)

    def decorate(func):
        @functools.wraps(func)
        def counted(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except db_exc.DBDeadlock:
                metrics.count_db_retry('deadlock')
                raise
            except Exception as exc:
                if lost_before_commit(exc):
                    metrics.count_db_retry('disconnect')
                elif exception_checker(exc):
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


def verify_commit(lookup):
    """For a writer whose rows' ids are chosen before it runs (a lease
    create): when the connection is lost during COMMIT, ask ``lookup``
    (called with the writer's arguments, once reconnected) whether the
    write landed. Its answer, when not None, is the writer's; None means
    the transaction died with the connection, and the writer runs again.
    Without this, a client is answered 503 for a lease that exists."""
    look = policy(lambda exc: isinstance(exc, db_exc.DBConnectionError))(
        lookup)

    def decorate(func):
        @functools.wraps(func)
        def call(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except db_exc.DBConnectionError as exc:
                if lost_before_commit(exc):
                    raise
                metrics.count_db_retry('commit_lost')
                found = look(*args, **kwargs)
                if found is not None:
                    return found
            return func(*args, **kwargs)
        return call
    return decorate
