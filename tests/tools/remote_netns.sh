#!/usr/bin/env bash
# tests/tools/remote_netns.sh BIN_DIR TARGET - a remote tool on another (simulated) node.
# pmixrun --remote-tools runs a job on node 0 (a network namespace with its own host name);
# pmix-ps runs on node 1 and reaches it over TCP only: given the server's rendezvous file
# (another host's file: the library dials its tcp4:// URI with the file's secret), or given the
# tcp4:// URI (the secret then comes from a readable rendezvous file; shared /tmp here, as a
# shared file system would give). Copies of the file with a wrong secret or none get nowhere.
# Exit 77 where network namespaces cannot be made.
set -uo pipefail
BIN=$1 TARGET=$2
here=$(cd "$(dirname "$0")" && pwd)
netns="$here/../../scripts/netns.sh"
prefix="rt$$"
work=$(mktemp -d /tmp/pmix-remote.XXXXXX)
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
GO=$work/go
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cleanup() {
  touch "$GO"
  sleep 0.5
  bash "$netns" destroy "$prefix"
  rm -rf "$work"
}
trap cleanup EXIT
bash "$netns" probe "$prefix" || exit $?
bash "$netns" create "$prefix" 2 || { echo "FAIL: cannot build 2 simulated nodes"; exit 1; }
on_node() {  # on_node I command... : run in node I's network and UTS namespaces
  local i=$1
  shift
  ip netns exec "${prefix}n$i" unshare --uts /bin/sh -c "hostname node$i; exec \"\$@\"" sh "$@"
}

TOOL_TARGET_GO=$GO on_node 0 "$BIN/pmixrun" --remote-tools -n 2 -x TOOL_TARGET_GO --timeout 60 \
  "$TARGET" >"$work/job.out" 2>&1 &
job=$!
file=
for _ in $(seq 1 100); do
  file=$(ls "$TMPDIR"/pmix.node0.tool.[0-9]* 2>/dev/null | head -1)
  [ -n "$file" ] && break
  sleep 0.1
done
[ -n "$file" ] || { echo "FAIL: no rendezvous file from pmixrun on node 0: $(cat "$work/job.out")"; exit 1; }
sleep 0.5  # let both ranks connect
echo "rendezvous file $file:"
sed 's/^secret:.*/secret:(32 hex digits)/' "$file"
tcp=$(sed -n 's/^tcp:[^;]*;//p' "$file")
case $tcp in tcp4://198.18.0.1:*) ;; *) fail "the TCP URI is not node 0's address: '$tcp'" ;; esac

echo "+ pmix-ps --file (on node 1)"
on_node 1 "$BIN/pmix-ps" --file "$file" >"$work/ps1" 2>&1 || fail "pmix-ps --file failed: $(cat "$work/ps1")"
cat "$work/ps1"
echo "+ pmix-ps --uri $tcp (on node 1)"
on_node 1 "$BIN/pmix-ps" --uri "$tcp" >"$work/ps2" 2>&1 || fail "pmix-ps --uri failed: $(cat "$work/ps2")"
cat "$work/ps2"
for out in ps1 ps2; do
  [ "$(grep -c "node0" "$work/$out")" -ge 2 ] || fail "$out does not list the 2 processes on node0"
done
sed 's/^secret:.*/secret:00000000000000000000000000000000/' "$file" >"$work/wrong-secret"
grep -v '^secret:' "$file" >"$work/no-secret"
for copy in wrong-secret no-secret; do
  echo "+ pmix-ps --file (a copy with $copy, on node 1)"
  # PMIX_CPP_LOG=info: the library then says why the server refused (the status alone does not).
  if on_node 1 env PMIX_CPP_LOG=info "$BIN/pmix-ps" --file "$work/$copy" >"$work/ps-$copy" 2>&1; then
    fail "a file with $copy got in: $(cat "$work/ps-$copy")"
  fi
  cat "$work/ps-$copy"
done
grep -q "wrong secret" "$work/ps-wrong-secret" || fail "the server did not refuse the wrong secret"
touch "$GO"
wait "$job" || fail "the job failed: $(cat "$work/job.out")"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
[ "$fails" -eq 0 ] && echo PASS || exit 1
