#!/bin/sh
# Render the Redis ACL file of scoreledger from deploy/users.acl.template.
#   usage: redis-acl.sh TEMPLATE OUT
# Each role's passwords come from one variable, REDIS_ACL_<ROLE> (INGEST, PROJECTOR, QUERY,
# ADMIN; INTEGRATION only for the shared inbox user, ARCHIVER only when an archive is used and
# WEBHOOKS only when the webhooks role runs: each of those users is left out unless its variable
# is set), several separated by spaces
# while a rotation is under way.
# Integrations with a stream of their own (docs/integrating/inbox.md; docs/decisions/0019-hostile-input-at-every-door.md): REDIS_ACL_INTEGRATIONS
# lists their names, comma- or space-separated, each [a-z0-9][a-z0-9-]{0,31}, at most 64 (the
# same list as ingest's SCORELEDGER_INBOX_INTEGRATIONS); name N's passwords come from
# REDIS_ACL_INTEGRATION_<N upper-cased, - as _> (table-7: REDIS_ACL_INTEGRATION_TABLE_7), rotated
# the same way, and the template's `user integration-${NAME}` line is written once per name.
# Only SHA-256 digests reach the file; comment lines are dropped (ACL files have none).
set -euf  # -f: a password or a name is never taken as a file pattern
template=$1
out=$2
tmp="$out.tmp.$$"
umask 077
trap 'rm -f "$tmp"' EXIT

fail() {
  # printf, not echo: dash's echo reads backslashes in a name (`\c` ends the line)
  printf 'redis-acl: %s\n' "$*" >&2
  exit 2
}

# digests VAR: `#<sha256>` of each password in variable VAR, space-separated.
digests() {
  eval "passwords=\${$1:-}"
  hashes=""
  for password in $passwords; do
    [ "${#password}" -ge 24 ] || fail "a $1 password is shorter than 24 characters"
    hashes="$hashes #$(printf '%s' "$password" | sha256sum | cut -d' ' -f1)"
  done
  [ -n "$hashes" ] || fail "$1 is not set"
  printf '%s' "${hashes# }"
}

each='^user integration-\${NAME} '
grep -v -e '^#' -e '^[[:space:]]*$' -e "$each" "$template" > "$tmp"
# The shared `integration` user only when REDIS_ACL_INTEGRATION is set (a deployment that still
# has integrations on sl:inbox): Redis ACLs cannot restrict XADD's arguments, so any holder can
# send `XADD sl:inbox MAXLEN 0` (the others' unread entries gone) or an explicit id
# 18446744073709551615-18446744073709551615 (every later `XADD sl:inbox *` refused: "The stream
# has exhausted the last possible ID"). Off by default; integrations get streams of their own.
if [ -z "${REDIS_ACL_INTEGRATION:-}" ]; then
  sed -i '/^user integration /d' "$tmp"
fi
for role in INTEGRATION INGEST PROJECTOR QUERY ADMIN; do
  [ "$role" != INTEGRATION ] || [ -n "${REDIS_ACL_INTEGRATION:-}" ] || continue
  hashes=$(digests "REDIS_ACL_$role")
  sed -i "s|\${$role}|$hashes|" "$tmp"
done
# the archiver's and the webhooks role's users only where those roles run
for role in ARCHIVER WEBHOOKS; do
  user=$(printf '%s' "$role" | tr 'A-Z' 'a-z')
  if eval "[ -n \"\${REDIS_ACL_$role:-}\" ]"; then
    hashes=$(digests "REDIS_ACL_$role")
    sed -i "s|\${$role}|$hashes|" "$tmp"
  else
    sed -i "/^user $user /d" "$tmp"
  fi
done

line=$(grep -e "$each" "$template" || true)
names=$(printf '%s' "${REDIS_ACL_INTEGRATIONS:-}" | tr ',' ' ')
seen=" "
count=0
for name in $names; do
  count=$((count + 1))
  [ "$count" -le 64 ] || fail "REDIS_ACL_INTEGRATIONS lists more than 64 integrations"
  # the name becomes a key suffix and a user name: the character set is spelt out, so no
  # locale can widen it
  case $name in
    [!abcdefghijklmnopqrstuvwxyz0123456789]* | *[!abcdefghijklmnopqrstuvwxyz0123456789-]*)
      fail "REDIS_ACL_INTEGRATIONS: '$name' is not [a-z0-9][a-z0-9-]{0,31}" ;;
  esac
  [ "${#name}" -le 32 ] || fail "REDIS_ACL_INTEGRATIONS: '$name' is longer than 32 characters"
  case $seen in *" $name "*) fail "REDIS_ACL_INTEGRATIONS lists '$name' twice" ;; esac
  seen="$seen$name "
  [ -n "$line" ] || fail "$template has no 'user integration-\${NAME}' line"
  hashes=$(digests "REDIS_ACL_INTEGRATION_$(printf '%s' "$name" | tr 'a-z-' 'A-Z_')")
  printf '%s\n' "$line" | sed -e "s|\${NAME}|$name|g" -e "s|\${INTEGRATION_NAME}|$hashes|" >> "$tmp"
done
mv "$tmp" "$out"
