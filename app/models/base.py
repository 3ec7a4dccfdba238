"""Column types and table options shared by every model."""
from sqlalchemy import BigInteger, Integer

# SQLite only auto-increments an INTEGER PRIMARY KEY; MySQL gets BIGINT.
BigId = BigInteger().with_variant(Integer(), "sqlite")

# utf8mb4 so Persian text and emoji round-trip on MySQL/MariaDB.
MYSQL_TABLE_ARGS = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_unicode_ci",
}
