"""Make a server list who holds its metadata, table, backup and user locks (the one runtime
statement of core/instrumentation.lock_holders_statement): `--enable-instruments` and the TUI's
`m` key, after the user confirmed it. Lines saying what changed; UserError saying what to do."""

from __future__ import annotations

from typing import Any

from mysqltop.core.instrumentation import MDL_INSTRUMENT, MDL_PLUGIN_LINE, lock_holders_statement
from mysqltop.errors import UserError
from mysqltop.sources.capabilities import grantee, one_line
from mysqltop.sources.lock_reads import has_mdl_plugin


def _one(conn: Any, sql: str) -> Any:
    with conn.cursor() as cur:
        cur.execute(sql)
        row = cur.fetchone()
    return row[0] if row else None


def enable_lock_holders(conn: Any, flavor: str | None = None) -> list[str]:
    """Run the statement for `flavor` (None: this server's) on `conn`; a no-op when already on."""
    import pymysql

    if flavor is None:
        flavor = "mariadb" if "mariadb" in str(_one(conn, "SELECT VERSION()")).lower() else "mysql"
    statement, cost = lock_holders_statement(flavor)
    user = str(_one(conn, "SELECT CURRENT_USER()"))
    if has_mdl_plugin(conn, flavor):
        return ["metadata_lock_info is installed already: mysqltop reads the lock holders from it"]
    try:
        with conn.cursor() as cur:
            changed = cur.execute(statement)
    except pymysql.err.MySQLError as e:
        need = ("INSERT ON mysql.plugin" if flavor == "mariadb" else "UPDATE ON performance_schema.setup_instruments")
        raise UserError(f"cannot run {statement} ({one_line(e)}): run it as an administrator, or GRANT {need} "
                        f"TO {grantee(user)};") from None
    if flavor == "mariadb":
        return [f"ran {statement}: {cost}; in the server config: [mysqld] {MDL_PLUGIN_LINE}"]
    if not changed:
        return [f"the {MDL_INSTRUMENT} instrument was on already: nothing changed"]
    return [f"ran {statement}: {cost}; in the server config: [mysqld] "
            f"performance-schema-instrument = '{MDL_INSTRUMENT}=ON'"]
