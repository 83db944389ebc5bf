"""The club archive: many tables' game records in one PostgreSQL database (psycopg 3), pushed from each table's
`.fgr` (which stays the source of truth), listed, searched, pulled back and served as replay pages."""
