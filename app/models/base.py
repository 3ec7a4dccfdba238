"""Column types and table options shared by every model."""
from sqlalchemy import BigInteger, DateTime, Integer
from sqlalchemy.dialects import mysql

# SQLite only auto-increments an INTEGER PRIMARY KEY; MySQL gets BIGINT.
BigId = BigInteger().with_variant(Integer(), "sqlite")

# utf8mb4 so Persian text and emoji round-trip on MySQL/MariaDB.
MYSQL_TABLE_ARGS = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_unicode_ci",
}

# Lease and retry_after times need sub-second precision: MySQL's plain DATETIME
# drops fractions (…03.900 becomes …03), which would let a pump start inside
# Telegram's retry_after. SQLite stores the fraction in its text form already.
PreciseDateTime = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


def fit(column, value: str | None) -> str | None:
    """Return value cut to a String column's length: strict MySQL refuses a longer one."""
    return None if value is None else value[:column.type.length]
