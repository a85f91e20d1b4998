#!/bin/sh
# Render the Redis ACL file of scoreledger from deploy/users.acl.template.
#   usage: redis-acl.sh TEMPLATE OUT
# Each role's passwords come from one variable, REDIS_ACL_<ROLE> (INTEGRATION, INGEST,
# PROJECTOR, QUERY, ADMIN), several separated by spaces while a rotation is under way.
# Only SHA-256 digests reach the file; comment lines are dropped (ACL files have none).
set -eu
template=$1
out=$2
tmp="$out.tmp.$$"
umask 077
grep -v -e '^#' -e '^[[:space:]]*$' "$template" > "$tmp"
for role in INTEGRATION INGEST PROJECTOR QUERY ADMIN; do
  eval "passwords=\${REDIS_ACL_$role:-}"
  hashes=""
  for password in $passwords; do
    if [ "${#password}" -lt 24 ]; then
      echo "redis-acl: a REDIS_ACL_$role password is shorter than 24 characters" >&2
      rm -f "$tmp"
      exit 2
    fi
    hashes="$hashes #$(printf '%s' "$password" | sha256sum | cut -d' ' -f1)"
  done
  if [ -z "$hashes" ]; then
    echo "redis-acl: REDIS_ACL_$role is not set" >&2
    rm -f "$tmp"
    exit 2
  fi
  sed -i "s|\${$role}|${hashes# }|" "$tmp"
done
mv "$tmp" "$out"
