#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (docs/PostgreSQL.md, "Running the tests"):
#   Scripts/postgres-server.sh start DIR   makes a cluster in DIR, starts it on 127.0.0.1 on a free port and
#                                          prints its URL (postgres://ocd@127.0.0.1:PORT/postgres)
#   Scripts/postgres-server.sh start DIR durable
#                                          the same with fsync and synchronous_commit on: a commit the server
#                                          acknowledged survives a crash of the server (the chaos trials)
#   Scripts/postgres-server.sh restart DIR [fast|immediate]
#                                          restarts it on the same port (`immediate` is a crash: no checkpoint,
#                                          the server recovers from its WAL on the way up)
#   Scripts/postgres-server.sh stop DIR    stops it and removes DIR
# PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user Debian's package makes.
# The cluster trusts loopback connections and, unless `durable`, skips fsync (test data; nothing else listens).
set -euo pipefail
command="${1:?start or stop}"
dir="${2:?a folder for the cluster}"

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$bin" ] && command -v pg_ctl >/dev/null; then bin="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"; fi
[ -n "$bin" ] || { echo "no PostgreSQL server binaries (Debian: apt-get install postgresql)" >&2; exit 2; }

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U ocd --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    case "${3:-}" in
    "") ;;
    durable) durability="-c fsync=on -c synchronous_commit=on -c full_page_writes=on" ;;
    *) echo "usage: $0 start DIR [durable]" >&2; exit 2 ;;
    esac
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir $durability -c max_connections=300" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://ocd@127.0.0.1:$port/postgres"
    ;;
restart)
    # pg_ctl restart runs the server again with the options it was started with (postmaster.opts): same port.
    mode="${3:-fast}"
    case "$mode" in fast|immediate) ;; *) echo "usage: $0 restart DIR [fast|immediate]" >&2; exit 2 ;; esac
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m "$mode" -w -t 60 restart >/dev/null \
        || { tail -n 20 "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start DIR [durable] | restart DIR [fast|immediate] | stop DIR" >&2; exit 2
    ;;
esac
