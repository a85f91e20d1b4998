#!/usr/bin/env bash
# Installs the OS packages the project needs when they are missing: redis-server (always);
# for the tests (`system-deps.sh`, the default) chromium for the browser tests and wrk, the
# load generator the benchmark harness's smoke test drives, and PostgreSQL for the archive's
# tests (unless SCORELEDGER_TEST_POSTGRES_URL names a server; Debian's package puts initdb
# under /usr/lib/postgresql/<version>/bin, where the fixture finds it); `system-deps.sh bench` installs
# Redis, wrk and valgrind (the instructions row), `system-deps.sh redis` Redis only. Needs root or sudo for apt-get; otherwise
# it says what to install and fails.
set -euo pipefail
want_browser=1
want_wrk=1
want_valgrind=0
[[ "${1:-}" == "redis" ]] && want_browser=0 && want_wrk=0
[[ "${1:-}" == "bench" ]] && want_browser=0 && want_valgrind=1

missing=()
if [[ -z "${REDIS_URL:-}" ]] && ! command -v redis-server >/dev/null 2>&1; then
  missing+=(redis-server)
fi
if [[ $want_browser == 1 ]] && ! command -v chromium >/dev/null 2>&1 && [[ -z "${CHROMIUM_PATH:-}" ]]; then
  missing+=(chromium fonts-dejavu-core)
fi
if [[ $want_wrk == 1 ]] && ! command -v wrk >/dev/null 2>&1; then
  missing+=(wrk)
fi
if [[ $want_valgrind == 1 ]] && ! command -v callgrind_control >/dev/null 2>&1; then
  missing+=(valgrind)
fi
if [[ $want_browser == 1 ]] && [[ -z "${SCORELEDGER_TEST_POSTGRES_URL:-}" ]] \
  && ! command -v initdb >/dev/null 2>&1 && ! command -v pg_ctlcluster >/dev/null 2>&1; then
  missing+=(postgresql)
fi
[[ ${#missing[@]} == 0 ]] && exit 0

sudo=""
if [[ $(id -u) != 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "scoreledger needs: ${missing[*]}. Install them with your package manager" >&2
    echo "(Debian/Ubuntu: apt-get install ${missing[*]}), or set REDIS_URL to a running Redis 7" >&2
    echo "(and SCORELEDGER_TEST_POSTGRES_URL to a PostgreSQL server for the tests)." >&2
    exit 1
  fi
fi
if command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} with apt-get" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "scoreledger needs: ${missing[*]}; install them with your package manager," >&2
  echo "or run Redis from deploy/compose.yaml and set REDIS_URL." >&2
  exit 1
fi
