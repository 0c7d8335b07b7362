"""Declarative base shared by every model."""

from oslo_db.sqlalchemy import models
from oslo_utils import uuidutils
from sqlalchemy import orm


class _Base(models.TimestampMixin, models.ModelBase):
    """Base with created_at/updated_at and dict-like access."""

    def to_dict(self) -> dict:
        return {c.name: getattr(self, c.name) for c in self.__table__.columns}


BASE = orm.declarative_base(cls=_Base)


def new_uuid() -> str:
    return uuidutils.generate_uuid()
