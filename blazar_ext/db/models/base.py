"""Declarative base shared by every model."""

import os
import threading
import time
import uuid

from oslo_db.sqlalchemy import models
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm


class _Base(models.TimestampMixin, models.ModelBase):
    """Base with created_at/updated_at and dict-like access."""

    def to_dict(self) -> dict:
        return {c.name: getattr(self, c.name) for c in self.__table__.columns}


BASE = orm.declarative_base(cls=_Base)


def exact_string(length: int) -> sa.types.TypeEngine:
    """A string compared byte for byte on every database, as SQLite and
    PostgreSQL compare: MySQL's default collation would fold case
    ("custom_gpu" finding CUSTOM_GPU)."""
    return sa.String(length).with_variant(
        mysql.VARCHAR(length, charset='utf8mb4', collation='utf8mb4_bin'),
        'mysql', 'mariadb')


class ReservationDetailMixin:
    """The detail row of one reservation of a type (its own table): an id,
    the reservation's id, then the type's columns. Read and written by
    db/api/reservation_detail.DetailTable."""

    #: A unique constraint on reservation_id rather than a plain index
    #: (as instance_reservations was made).
    UNIQUE_RESERVATION = False

    @orm.declared_attr
    def id(cls):
        return sa.Column(sa.String(36), primary_key=True, default=new_uuid)

    @orm.declared_attr
    def reservation_id(cls):
        return sa.Column(
            sa.String(36),
            sa.ForeignKey('reservations.id', ondelete='CASCADE'),
            nullable=False, index=not cls.UNIQUE_RESERVATION or None,
            unique=cls.UNIQUE_RESERVATION or None)


def new_uuid() -> str:
    return uuidutils.generate_uuid()


_ORDERED = {'ms': 0, 'seq': 0}
_ORDERED_LOCK = threading.Lock()


def new_time_ordered_uuid() -> str:
    """A version 7 UUID: milliseconds since the epoch first, then a
    counter, then random bits; ids made one after the other sort in the
    order they were made (by this process; across processes, by the
    millisecond)."""
    with _ORDERED_LOCK:
        ms = time.time_ns() // 1_000_000
        if ms <= _ORDERED['ms']:
            ms, seq = _ORDERED['ms'], _ORDERED['seq'] + 1
            if seq > 0xFFF:
                ms, seq = ms + 1, 0
        else:
            seq = 0
        _ORDERED.update(ms=ms, seq=seq)
    random_bits = int.from_bytes(os.urandom(8), 'big') & ((1 << 62) - 1)
    value = ((ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | seq << 64
             | 0b10 << 62 | random_bits)
    return str(uuid.UUID(int=value))
