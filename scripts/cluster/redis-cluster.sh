#!/usr/bin/env bash
# A Redis Cluster of 3 masters and 3 replicas on 127.0.0.1:7000-7005 (bus ports 17000-17005), for the cluster tests
# and benches (issue Wave 3 · 5/5):
#   scripts/cluster/redis-cluster.sh start    # idempotent; prints the REDIS_URL naming the masters
#   scripts/cluster/redis-cluster.sh stop
#   scripts/cluster/redis-cluster.sh status
# Everything under $REDIS_CLUSTER_DIR; nothing is kept on disk but each node's nodes.conf, so a node killed and started
# again rejoins (as a replica, once its replica was promoted). Every redis-cli call names its port: without one it
# talks to the system Redis on 6379 (../shared/notes/distributed.md).
set -euo pipefail
dir=${REDIS_CLUSTER_DIR:-${TMPDIR:-/tmp}/evidence-hub-redis-cluster}
ports=(7000 7001 7002 7003 7004 7005)
cli () { local port=$1; shift; redis-cli -h 127.0.0.1 -p "$port" "$@"; }

start_node () {
  local port=$1
  cli "$port" ping > /dev/null 2>&1 && return 0
  mkdir -p "$dir/$port"
  redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --dir "$dir/$port" --logfile "$dir/$port/redis.log" \
    --pidfile "$dir/$port/redis.pid" --cluster-enabled yes --cluster-config-file "$dir/$port/nodes.conf" \
    --cluster-node-timeout 2000 --save "" --appendonly no
  for _ in $(seq 1 100); do cli "$port" ping > /dev/null 2>&1 && return 0; sleep 0.05; done
  echo "redis node $port did not start; its log: $dir/$port/redis.log" >&2
  return 1
}

case ${1:-} in
  start)
    for port in "${ports[@]}"; do start_node "$port"; done
    if ! cli 7000 cluster info | grep -q 'cluster_slots_assigned:16384'; then
      cli 7000 --cluster create $(printf '127.0.0.1:%s ' "${ports[@]}") --cluster-replicas 1 --cluster-yes > "$dir/create.log"
    fi
    # Ready once every slot is served and every replica has its master's data stream (a failover needs both).
    for _ in $(seq 1 200); do
      ok=$(cli 7000 cluster info | tr -d '\r' | grep -c '^cluster_state:ok$' || true)
      linked=0
      for port in "${ports[@]}"; do
        role=$(cli "$port" info replication | tr -d '\r')
        if grep -q '^role:master' <<< "$role" || grep -q '^master_link_status:up' <<< "$role"; then linked=$((linked + 1)); fi
      done
      [ "$ok" = 1 ] && [ "$linked" = 6 ] && break
      sleep 0.1
    done
    [ "$ok" = 1 ] && [ "$linked" = 6 ] || { echo "redis cluster not ready (state ok: $ok, nodes linked: $linked of 6)" >&2; exit 1; }
    echo "redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002"
    ;;
  stop)
    for port in "${ports[@]}"; do cli "$port" shutdown nosave > /dev/null 2>&1 || true; done
    ;;
  status)
    cli 7000 cluster nodes | awk '{ print $2, $3, $4 }'
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
