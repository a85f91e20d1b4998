#!/bin/sh
# The postgres image's first-start hook (/docker-entrypoint-initdb.d): the archive's roles and
# schema (roles.sql), their passwords from the container's environment (deploy/.env), never
# from a file in the repository.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v owner_pw="$ARCHIVE_OWNER_PASSWORD" \
  -v archiver_pw="$ARCHIVE_ARCHIVER_PASSWORD" \
  -v reader_pw="$ARCHIVE_READER_PASSWORD" \
  -f /usr/local/share/scoreledger/roles.sql
