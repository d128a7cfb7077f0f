#!/usr/bin/env bash
# A 3-node MariaDB Galera cluster on 127.0.0.1, for the cluster tests and benches (issue Wave 3 · 5/5):
#   scripts/cluster/galera.sh start    # idempotent; prints the DATABASE_URL naming the three nodes
#   scripts/cluster/galera.sh stop     # TERM one node at a time (all at once takes seconds longer)
#   scripts/cluster/galera.sh status
# SQL on 3311-3313, group communication on 4567-4569, IST on 4577-4579, everything under $GALERA_DIR. The recipe and
# its pitfalls are in ../shared/notes/distributed.md: each node has its own defaults file (the system my.cnf points at
# the server on 3306), one datadir is initialised and copied with a fresh grastate.dat, node 1 bootstraps and the others
# join one at a time (joining together formed a non-primary view), state transfer is mysqldump (rsync SST fails as root).
# wsrep_mode=REQUIRED_PRIMARY_KEY makes a table created without a primary key fail, as the issue asks of CI.
set -euo pipefail
dir=${GALERA_DIR:-${TMPDIR:-/tmp}/evidence-hub-galera}
nodes=(1 2 3)
client () { mariadb --no-defaults -h127.0.0.1 -P"331$1" -uroot -N -B -e "$2"; }

state () { client "$1" "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2; }

wait_synced () {
  for _ in $(seq 1 120); do
    [ "$(state "$1")" = "Synced" ] && return 0
    sleep 0.25
  done
  echo "galera node $1 did not reach Synced; its log: $dir/n$1/error.log" >&2
  tail -n 20 "$dir/n$1/error.log" >&2 || true
  return 1
}

config () {
  local n=$1 gcomm=$((4566 + $1)) ist=$((4576 + $1))
  cat > "$dir/n$n/my.cnf" <<CNF
[mysqld]
user=root
datadir=$dir/n$n/data
socket=$dir/n$n/mysqld.sock
pid-file=$dir/n$n/mysqld.pid
log-error=$dir/n$n/error.log
port=331$n
bind-address=127.0.0.1
skip-name-resolve
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=64M
innodb_flush_log_at_trx_commit=0
max_connections=500
wsrep_on=ON
wsrep_provider=/usr/lib/galera/libgalera_smm.so
wsrep_cluster_name=evidence-hub
wsrep_cluster_address=gcomm://127.0.0.1:4567,127.0.0.1:4568,127.0.0.1:4569
wsrep_node_address=127.0.0.1:$gcomm
wsrep_node_incoming_address=127.0.0.1:331$n
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$gcomm;ist.recv_addr=127.0.0.1:$ist;gcache.size=64M"
wsrep_sst_method=mysqldump
wsrep_sst_auth=root:
wsrep_mode=REQUIRED_PRIMARY_KEY
CNF
}

running () { [ -f "$dir/n$1/mysqld.pid" ] && kill -0 "$(cat "$dir/n$1/mysqld.pid")" 2>/dev/null; }

start_node () {
  local n=$1; shift
  running "$n" && return 0
  /usr/sbin/mariadbd --defaults-file="$dir/n$n/my.cnf" "$@" > /dev/null 2>&1 &
  wait_synced "$n"
}

case ${1:-} in
  start)
    if [ ! -d "$dir/n1/data" ]; then
      rm -rf "$dir"
      mkdir -p "$dir/n1"
      mariadb-install-db --no-defaults --user=root --auth-root-authentication-method=normal --skip-test-db \
        --datadir="$dir/n1/data" > "$dir/install.log" 2>&1
      printf '# GALERA saved state\nversion: 2.1\nuuid:    %s\nseqno:   0\nsafe_to_bootstrap: 1\n' \
        "$(cat /proc/sys/kernel/random/uuid)" > "$dir/n1/data/grastate.dat"
      for n in 2 3; do mkdir -p "$dir/n$n" && cp -a "$dir/n1/data" "$dir/n$n/data"; done
      for n in "${nodes[@]}"; do config "$n"; done
      start_node 1 --wsrep-new-cluster
    elif ! running 1 && ! running 2 && ! running 3; then
      # The whole cluster was stopped: the node that stopped last is safe to bootstrap from.
      from=1
      for n in "${nodes[@]}"; do grep -q 'safe_to_bootstrap: 1' "$dir/n$n/data/grastate.dat" && from=$n; done
      sed -i 's/safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$dir/n$from/data/grastate.dat"
      start_node "$from" --wsrep-new-cluster
    fi
    for n in "${nodes[@]}"; do start_node "$n"; done
    size=$(client 1 "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)
    [ "$size" = 3 ] || { echo "galera: cluster size $size, expected 3" >&2; exit 1; }
    echo "mysql://root@127.0.0.1:3311,127.0.0.1:3312,127.0.0.1:3313/test"
    ;;
  stop)
    for n in 3 2 1; do
      if running "$n"; then
        pid=$(cat "$dir/n$n/mysqld.pid")
        kill -TERM "$pid"
        while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
      fi
    done
    ;;
  status)
    for n in "${nodes[@]}"; do echo "node $n (127.0.0.1:331$n): $(state "$n" || true)"; done
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
