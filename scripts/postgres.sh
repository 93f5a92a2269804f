#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the journal's tests:
#
#   scripts/postgres.sh start   # initdb into a temporary directory, start on a free port
#   scripts/postgres.sh url     # the URL to export as TWR_TEST_POSTGRES_URL
#   scripts/postgres.sh ca      # its TLS certificate authority, for TWR_TEST_POSTGRES_CA
#   scripts/postgres.sh stop    # stop it and delete its directory
#
# It uses the PostgreSQL binaries on the machine (`pg_ctl` on PATH, or the
# newest /usr/lib/postgresql/*/bin; Debian: `apt-get install postgresql`).
# The server trusts local connections (user twr, no password), keeps no
# data worth keeping (fsync off) and listens on 127.0.0.1 only. PostgreSQL
# refuses to run as root, so as root it runs as the `postgres` user.
# With `openssl` on the machine it also speaks TLS (ssl = on) with a
# certificate for 127.0.0.1 signed by a certificate authority made at
# start (`scripts/postgres.sh ca` prints its file), so a test can connect
# with sslmode=require, see verify-full refuse it against the platform's
# authorities and take it with sslrootcert; plain connections are still
# taken.
set -euo pipefail

dir=${TWR_POSTGRES_DIR:-${TMPDIR:-/tmp}/twr-postgres}

bin_dir() {
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
    return
  fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$found" ]; then
    echo "error: no PostgreSQL server binaries (pg_ctl, initdb); on Debian: apt-get install -y postgresql" >&2
    exit 1
  fi
  echo "$found"
}

# Runs a command as the server's owner: the `postgres` user when root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case "${1:-}" in
  start)
    bin=$(bin_dir)
    if [ -f "$dir/port" ]; then
      echo "a server is already running from $dir (scripts/postgres.sh stop first)" >&2
      exit 1
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U twr --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    tls=""
    if command -v openssl >/dev/null 2>&1; then
      # A certificate authority made for this server alone, and the
      # server's certificate signed by it for 127.0.0.1 and localhost, so a
      # test can check the server with sslrootcert=$(scripts/postgres.sh ca).
      {
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=twr test CA" \
          -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
          -keyout "$dir/ca.key" -out "$dir/ca.crt" &&
        openssl req -newkey rsa:2048 -nodes -subj "/CN=twr-test-postgres" \
          -keyout "$dir/data/server.key" -out "$dir/server.csr" &&
        printf 'basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$dir/server.ext" &&
        openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
          -days 2 -extfile "$dir/server.ext" -out "$dir/data/server.crt"
      } >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }
      chmod 600 "$dir/data/server.key"
      if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/data/server.key" "$dir/data/server.crt"; fi
      tls="-c ssl=on"
    fi
    port=$(free_port)
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200 $tls" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    echo "postgres://twr@127.0.0.1:$port/postgres"
    ;;
  ca)
    [ -f "$dir/ca.crt" ] || { echo "error: no server with TLS started from $dir" >&2; exit 1; }
    echo "$dir/ca.crt"
    ;;
  url)
    [ -f "$dir/port" ] || { echo "error: no server started from $dir" >&2; exit 1; }
    echo "postgres://twr@127.0.0.1:$(cat "$dir/port")/postgres"
    ;;
  stop)
    if [ -f "$dir/port" ]; then
      as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|url|ca|stop" >&2
    exit 2
    ;;
esac
