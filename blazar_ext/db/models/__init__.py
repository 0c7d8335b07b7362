"""SQLAlchemy models, one module per family of tables.

Importing this package registers every table on ``base.BASE.metadata``.
"""

from blazar_ext.db.models import base  # noqa: F401
from blazar_ext.db.models import budget  # noqa: F401
from blazar_ext.db.models import device  # noqa: F401
from blazar_ext.db.models import floatingip  # noqa: F401
from blazar_ext.db.models import host  # noqa: F401
from blazar_ext.db.models import instance  # noqa: F401
from blazar_ext.db.models import lease  # noqa: F401
from blazar_ext.db.models import maintenance  # noqa: F401
from blazar_ext.db.models import metadef  # noqa: F401
from blazar_ext.db.models import outbox  # noqa: F401
from blazar_ext.db.models import placement  # noqa: F401
from blazar_ext.db.models import series  # noqa: F401

BASE = base.BASE
