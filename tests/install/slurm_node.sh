# shellcheck shell=bash disable=SC2154  # t and root are package.sh's
# slurm_node.sh - sourced by package.sh inside its namespace: a one-node Slurm cluster (munged,
# slurmctld, slurmd n0 on 127.0.0.1) in the throwaway root $root, in a network namespace of its
# own (so its ports meet no other cluster on this machine), everything under $root$t/slurm.
# slurmstepd, which Slurm starts for every job step, dlopen()s libpmix through its mpi/pmix plugin;
# a step started after `dpkg -i` therefore runs on whatever library the root has at that moment.
# The processes die with package.sh's PID namespace.
#   slurm_node_start     0: the node is idle; 1: it did not come up (logs printed)
#   in_slurm CMD...      runs CMD chrooted in the root, in the cluster's network namespace
slurm_conf=$t/slurm/slurm.conf
net_holder=''
# shellcheck source=tests/slurm/slurm_conf.sh
source "$(dirname "${BASH_SOURCE[0]}")/../slurm/slurm_conf.sh"

in_slurm() {
  nsenter --net="$root/proc/$net_holder/ns/net" chroot "$root" \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root SLURM_CONF="$slurm_conf" "$@"
}

slurm_node_start() {
  local d=$t/slurm state=''
  unshare --net sleep 600 &
  net_holder=$!
  sleep 0.1  # the holder must have entered its namespace before anyone joins it
  # slurmctld listens on getaddrinfo(NULL, port, AI_ADDRCONFIG), which finds nothing where only
  # the loopback interface has an address: a veth pair (both ends in the namespace; this kernel
  # has no dummy interfaces) gives it one.
  nsenter --net="$root/proc/$net_holder/ns/net" sh -c 'ip link set lo up &&
    ip link add pkgtest0 type veth peer name pkgtest1 && ip addr add 198.18.0.1/24 dev pkgtest0 &&
    ip link set pkgtest0 up && ip link set pkgtest1 up' || return 1
  mkdir -p "$root$d"/{state,spool,log,nodetmp,munge} || return 1
  head -c 1024 /dev/urandom >"$root$d/munge/munge.key" && chmod 0400 "$root$d/munge/munge.key"
  cat >"$root$slurm_conf" <<EOF
# Written by tests/install/slurm_node.sh: a throwaway one-node cluster under $d.
ClusterName=pkgtest
SlurmctldHost=$(hostname -s)(127.0.0.1)
AuthInfo=socket=$d/munge/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
TmpFS=$d/nodetmp
NodeName=n0 NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 State=UNKNOWN
PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  slurm_conf_common >>"$root$slurm_conf"
  # -f: munged refuses a socket directory under the world-writable /tmp otherwise.
  in_slurm munged -f --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" \
    --seed-file="$d/munge/munged.seed" || { cat "$root$d/munge/munged.log"; return 1; }
  in_slurm slurmctld -D -i -f "$slurm_conf" </dev/null >"$root$d/log/slurmctld.out" 2>&1 &
  in_slurm slurmd -D -N n0 -f "$slurm_conf" </dev/null >"$root$d/log/slurmd.out" 2>&1 &
  local deadline=$((SECONDS + 20))  # it takes about 1 s here
  while ((SECONDS < deadline)); do
    state=$(in_slurm timeout 3 sinfo -h -N -o %T 2>/dev/null)
    [[ $state == idle ]] && return 0
    sleep 0.2
  done
  echo "slurm node state: '${state}'"
  tail -n 5 "$root$d"/log/*
  return 1
}
