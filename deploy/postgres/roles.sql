-- PostgreSQL roles of the scoreledger archive (SCORELEDGER_ARCHIVE_URL), least privilege.
-- Run once per database as a superuser or the database owner, e.g.
--   psql "$ADMIN_URL" -v owner_pw=... -v archiver_pw=... -v reader_pw=... -f roles.sql
-- Passwords come from a Secret (k8s) or deploy/.env (compose), never from this file.
--
--   scoreledger_owner     owns the schema: runs the migrations (scoreledger serve does them at
--                         start when it connects as this role; the others start once it has)
--   scoreledger_archiver  the archiver and ingest (restoring an archived game): read, insert,
--                         replace and delete archived games; no DDL
--   scoreledger_reader    query: read archived games; nothing else
-- Tested against a real server: tests/deploy/test_postgres_roles.py.

CREATE ROLE scoreledger_owner LOGIN PASSWORD :'owner_pw';
CREATE ROLE scoreledger_archiver LOGIN PASSWORD :'archiver_pw';
CREATE ROLE scoreledger_reader LOGIN PASSWORD :'reader_pw';

CREATE SCHEMA scoreledger AUTHORIZATION scoreledger_owner;
ALTER ROLE scoreledger_owner SET search_path = scoreledger;
ALTER ROLE scoreledger_archiver SET search_path = scoreledger;
ALTER ROLE scoreledger_reader SET search_path = scoreledger;
REVOKE ALL ON SCHEMA public FROM PUBLIC;

GRANT USAGE ON SCHEMA scoreledger TO scoreledger_archiver, scoreledger_reader;
-- tables the owner creates later (the migrations) get these rights as they are created
ALTER DEFAULT PRIVILEGES FOR ROLE scoreledger_owner IN SCHEMA scoreledger
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO scoreledger_archiver;
ALTER DEFAULT PRIVILEGES FOR ROLE scoreledger_owner IN SCHEMA scoreledger
  GRANT SELECT ON TABLES TO scoreledger_reader;
