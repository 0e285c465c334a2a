"""Column types shared by the API and cell models."""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql


def MediumText():
    # TEXT caps at 64KiB on MySQL; serialized objects need more.
    return sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql')


def IPAddress():
    # Long enough for the textual form of an IPv6 address.
    return sa.String(39)


def CIDR():
    return sa.String(43)


def BigIntegerPK():
    # SQLite only auto-increments a column declared exactly INTEGER.
    return sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


# Every MySQL table uses InnoDB (transactions, foreign keys) and utf8mb4.
TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}
