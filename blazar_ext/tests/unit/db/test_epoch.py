"""blazar_ext.db.models.epoch compiles for each database's dialect."""

import sqlalchemy as sa
import testtools

from blazar_ext.db.models import epoch

TABLE = sa.table('allocations', sa.column('start_date'))


def render(url: str) -> str:
    dialect = sa.create_engine(url).dialect
    return str(sa.select(epoch.EpochMicroseconds(TABLE.c.start_date))
               .compile(dialect=dialect))


class TestEpochMicroseconds(testtools.TestCase):

    def test_mysql_and_mariadb_urls_get_timestampdiff(self):
        for url in ('mysql+pymysql://u@localhost/db',
                    'mariadb+pymysql://u@localhost/db'):
            sql = render(url)
            self.assertIn('TIMESTAMPDIFF(MICROSECOND', sql, url)
            self.assertNotIn('julianday', sql, url)

    def test_postgresql_and_sqlite(self):
        self.assertIn('EXTRACT(EPOCH FROM',
                      render('postgresql+psycopg2://u@localhost/db'))
        self.assertIn('julianday(', render('sqlite://'))
