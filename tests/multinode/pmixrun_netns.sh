#!/usr/bin/env bash
# A PMIx job across D simulated nodes: pmixrun starts one pmixd per network namespace through
# `ip netns exec` (the launch agent), exactly as it would through ssh on a cluster.
#   pmixrun_netns.sh BINDIR CASE D SLOTS
# CASE: putget | fence_nodata | fence_subset | modexrounds | modexrounds_any | dmodex | events | abort | killed | daemon_killed |
#       hostfile | jobctl_kill | envars | instanton | tools | publish | publish_lookup | spawn | spawn_fence | spawn_jobend | spawn_stop | startas | forkagent | connect | qget | envdirectives | cred | querykeys | groups | groups_invite |
#       groups_leave. Every rank's output and pmixrun's exit status are checked; namespaces get a
#       unique prefix and are always removed; no pmixd, rank or shared-memory segment may be
#       left. Exit 77 (skipped) where network namespaces cannot be created.
set -uo pipefail
bin=$1 case=$2 d=$3 slots=$4
here=$(cd "$(dirname "$0")" && pwd)
netns="$here/../../scripts/netns.sh"
prefix="pr$$"
work=$(mktemp -d)
export PMIX_CPP_GDS_PREFIX="/pmixmn-$$"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
cleanup() {
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix"); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
  done
  bash "$netns" destroy "$prefix"
  rm -f /dev/shm/pmixmn-$$-* 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bash "$netns" probe "$prefix" || exit $?
bash "$netns" create "$prefix" "$d" || { echo "FAIL: cannot build $d simulated nodes"; exit 1; }
hosts=""
for ((i = 0; i < d; i++)); do hosts+="${hosts:+,}${prefix}n$i:$slots"; done
n=$((d * slots))
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() {  # run EXPECTED_RC pmixrun-args...
  local want=$1
  shift
  echo "+ pmixrun $*"
  timeout -s KILL 90 "$bin/pmixrun" --launch-agent "ip netns exec" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  cat "$work/out" "$work/err"
  [ "$rc" -eq "$want" ] || fail "pmixrun exited $rc, expected $want"
}
count() { grep -c "$1" "$work/out" || true; }
expect_lines() {  # expect_lines PATTERN N
  local got
  got=$(count "$1")
  [ "$got" -eq "$2" ] || fail "$2 line(s) matching '$1' expected, got $got"
}

case $case in
putget)
  run 0 --host "$hosts" --report "$bin/putget"
  expect_lines "checked 2 keys of $n/$n ranks" "$n"
  grep -q "connected $n/$n, finalized $n/$n" "$work/err" || fail "report does not show $n/$n"
  ;;
fence_nodata)
  run 0 --host "$hosts" "$bin/fence_wait" 0
  expect_lines "fence returned SUCCESS" "$n"
  ;;
fence_subset)  # uneven: the last node gets one rank fewer
  run 0 --host "$hosts" -n $((n - 1)) "$bin/fence_subset"
  expect_lines "values OK" $((n - 1))
  ;;
modexrounds)  # 1,000 randomized rounds of puts and collecting fences (subsets and whole), checked
  seed=$(( (RANDOM << 15) | RANDOM | 1 ))
  echo "seed $seed"
  rounds=${PMIX_TEST_MODEX_ROUNDS:-1000}  # fewer under the sanitizers (CMakeLists.txt)
  run 0 --host "$hosts" "$bin/modex_rounds" "$rounds" "$seed"
  expect_lines "checked [1-9][0-9]* values in $rounds rounds" "$n"
  ;;
modexrounds_any)  # the same, deltas against any set's last fence: receivers outside it fetch
  seed=$(( (RANDOM << 15) | RANDOM | 1 ))
  echo "seed $seed (PMIX_CPP_MODEX_DELTA=any)"
  PMIX_CPP_MODEX_DELTA=any PMIX_CPP_LOG=debug PMIX_CPP_LOG_FILE="$work/log" \
    run 0 --host "$hosts" "$bin/modex_rounds" 300 "$seed"
  expect_lines "checked [1-9][0-9]* values in 300 rounds" "$n"
  fetched=$(grep -c "by direct modex (delta base not held)" "$work/log" || true)
  echo "fences that fetched whole data: $fetched"
  [ "$fetched" -gt 0 ] || fail "no receiver fetched whole data: the fallback was not exercised"
  ;;
dmodex)
  run 0 --host "$hosts" "$bin/dmodex"
  expect_lines "by direct modex: OK" "$n"
  ;;
events)
  run 0 --host "$hosts" "$bin/events"
  expect_lines "payload hello from rank 0" $((n - 1))  # raised on node 0, seen on every node
  ;;
hostfile)
  for ((i = 0; i < d; i++)); do echo "${prefix}n$i slots=$slots  # node $i"; done >"$work/hosts"
  run 0 --hostfile "$work/hosts" "$bin/putget"
  expect_lines "checked 2 keys of $n/$n ranks" "$n"
  ;;
abort)
  run 3 --host "$hosts" "$bin/abort"
  grep -q "called PMIx_Abort(status 3" "$work/err" || fail "no abort message"
  ;;
killed)  # rank 1 dies while everyone else waits in a fence, on every node
  run 137 --host "$hosts" "$bin/killed"
  expect_lines "fence failed as expected" $((n - 1))
  ;;
envars)  # forwarded by setup_application's env plugin; the daemons themselves never have them
  export PMIX_MCA_forward_envars="INST_FWD_*;^INST_FWD_SECRET" INST_FWD_A=forwarded INST_FWD_SECRET=no
  echo "+ PMIX_MCA_forward_envars=$PMIX_MCA_forward_envars pmixrun (agent: env -u ... ip netns exec) envcheck"
  timeout -s KILL 90 "$bin/pmixrun" --launch-agent "env -u INST_FWD_A -u INST_FWD_SECRET ip netns exec" \
    --host "$hosts" "$bin/envcheck" INST_FWD_A INST_FWD_SECRET >"$work/out" 2>"$work/err"
  rc=$?
  cat "$work/out" "$work/err"
  [ "$rc" -eq 1 ] || fail "envcheck should exit 1 (INST_FWD_SECRET unset), got $rc"
  expect_lines "INST_FWD_A=forwarded" "$n"
  expect_lines "INST_FWD_SECRET unset" "$n"
  unset PMIX_MCA_forward_envars INST_FWD_A INST_FWD_SECRET
  ;;
instanton)  # pre-assigned endpoints (no fence) and the classic modex both wire every pair
  for mode in preassigned modex; do
    run 0 --host "$hosts" "$bin/bench-instanton" "$mode"
    expect_lines "instanton: mode $mode ranks $n " 1
  done
  ;;
jobctl_kill)  # rank 0 kills the last rank (another node) with PMIx_Job_control
  start=$(date +%s)
  run 137 --host "$hosts" "$bin/jobctl_kill"
  grep -q "rank 0 asked to kill rank $((n - 1)): SUCCESS" "$work/out" || fail "no job-control answer"
  grep -q "rank $((n - 1)) (pid [0-9]*) was killed by signal 9" "$work/err" || fail "last rank not killed"
  [ $(($(date +%s) - start)) -lt 30 ] || fail "the kill took too long"
  ;;
daemon_killed)  # the last node's daemon is SIGKILLed while the other nodes wait in a fence
  last=$((n - 1))
  echo "+ pmixrun --host $hosts fence_wait 60 $last (pmixd of the last node killed after 2 s)"
  start=$(date +%s)
  timeout -s KILL 90 "$bin/pmixrun" --launch-agent "ip netns exec" --host "$hosts" \
    "$bin/fence_wait" 60 "$last" >"$work/out" 2>"$work/err" &
  pid=$!
  sleep 2
  for p in $(ip netns pids "${prefix}n$((d - 1))"); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = pmixd ] && kill -9 "$p"
  done
  wait "$pid"
  rc=$?
  took=$(($(date +%s) - start))
  cat "$work/out" "$work/err"
  [ "$rc" -ne 0 ] || fail "pmixrun exited 0 although a daemon died"
  [ "$took" -lt 30 ] || fail "the job took $took s to end"
  grep -q "the daemon of node $((d - 1)) (${prefix}n$((d - 1))) died" "$work/err" || fail "no message naming the dead daemon"
  expect_lines "fence returned LOST_CONNECTION" $(((d - 1) * slots))
  rm -f /dev/shm/pmixmn-$$-*  # the killed daemon could not remove its segments
  ;;
envdirectives)  # pmixrun's --set-env ... reach every node's ranks, applied there in order
  export EV_PATH=/base EV_DROP_1=a EV_KEEP=k
  run 0 --host "$hosts" --set-env EV_A=1 --prepend-env 'EV_A[:]' x --append-env 'EV_PATH[;]' /z \
    --unset-env 'EV_DROP_*' "$bin/envar_client" EV_A EV_PATH EV_DROP_1 EV_KEEP
  expect_lines "EV_A=x:1$" "$n"
  expect_lines "EV_PATH=/base;/z$" "$n"
  expect_lines "EV_DROP_1 unset" "$n"
  expect_lines "EV_KEEP=k$" "$n"
  expect_lines "init=SUCCESS" "$n"
  unset EV_PATH EV_DROP_1 EV_KEEP
  ;;
cred)  # a credential of rank 0 validated by the last rank, on another node's server (same key)
  run 0 --host "$hosts" "$bin/security_client" cred
  expect_lines "security_client: validated uid $(id -u) gid $(id -g), " 1
  expect_lines "security_client: cred ok" "$n"
  ;;
groups)  # PMIx_Group_* across the nodes (tests/data/group_client.cpp basic, die-ft)
  run 0 --host "$hosts" "$bin/group_client" basic
  expect_lines "done basic failures=0" "$n"
  expect_lines ": FAIL " 0
  # One context id per group, none shared (lines "[r] ctx GROUP ID").
  pairs=$(sed 's/^\[[0-9.]*\] //' "$work/out" | grep '^ctx ' | sort -u)
  [ -z "$(echo "$pairs" | awk 'NF {print $2}' | sort | uniq -d)" ] || fail "a group has two ids"
  [ -z "$(echo "$pairs" | awk 'NF {print $3}' | sort | uniq -d)" ] || fail "groups share an id"
  [ "$(echo "$pairs" | awk 'NF' | wc -l)" -eq 4 ] || fail "4 context ids expected: $pairs"
  ;;
groups_invite)  # rank 0 invites everyone across the nodes; the last rank (on another node)
  # declines, then rank 1 (on the leader's node) does: every server learns every answer
  for mode in invite invite-near; do
    run 0 --host "$hosts" "$bin/group_client" "$mode"
    expect_lines "done $mode failures=0" "$n"
    expect_lines ": FAIL " 0
    expect_lines "rank 0: ok leader got the DECLINED" 1
    # The leader asked a context id: every member that joined has the same one.
    ids=$(sed 's/^\[[0-9.]*\] //' "$work/out" | grep '^ctx g-inv ' | sort -u | wc -l)
    [ "$ids" -eq 1 ] || fail "$mode: $ids distinct context ids for g-inv"
    expect_lines "ctx g-inv " $((n - 1))
  done
  ;;
groups_leave)  # the last rank, alone on its node with 1 slot, leaves; the others destruct
  run 0 --host "$hosts" "$bin/group_client" leave
  expect_lines "done leave failures=0" "$n"
  expect_lines ": FAIL " 0
  ;;
publish)  # the head's directory (xnode_publish.c): wait, ranges, first-read, unpublish, timeout
  run 0 --host "$hosts" "$bin/xnode_publish"
  expect_lines "done failures=0" "$n"
  expect_lines ": FAIL " 0
  expect_lines ": ok " 15
  ;;
publish_lookup)  # examples/publish_lookup: rank 0 publishes, every rank of every node looks up
  run 0 --host "$hosts" "$bin/publish_lookup"
  expect_lines "looked up publish_lookup.service: tcp://example:4242" "$n"
  expect_lines "after unpublish: NOT-FOUND" "$n"
  ;;
spawn)  # PMIx_Spawn from rank 1 (node 1): a child on each node (xnode_spawn.c)
  run 0 --host "$hosts" "$bin/xnode_spawn"
  expect_lines "done failures=0" 4
  expect_lines ": FAIL " 0
  expect_lines "parent 1: ok" 3
  expect_lines "child [01]: ok" 16
  expect_lines "child 0: on ${prefix}n0, the other on ${prefix}n1" 1
  expect_lines "child 1: on ${prefix}n1, the other on ${prefix}n0" 1
  ;;
spawn_stop)  # 5th, 6th arguments: init|exec|app, tests/tools/debug_stop (xnode_spawn_stop.c)
  stop=$5 dbg=$6
  mkdir -p "$work/marks"
  run 0 --host "$hosts" -n 2 "$bin/xnode_spawn_stop" "$stop" "$dbg" "$work/marks"
  expect_lines "done failures=0" 2
  expect_lines ": FAIL " 0
  expect_lines "rank 1: ok every process went on after the release" 1
  sleep 0.2
  pgrep -f "$dbg hello $work/marks" >/dev/null && fail "a spawned process outlived pmixrun"
  ;;
startas)  # --wdir and --exec-agent on every node; spawns across nodes with app.cwd, a missing
  # cwd, a required PMIX_FORKEXEC_AGENT refused (tests/tools/agents.cpp, agent.sh;
  # launcher/start_as.cpp, fork_agent.h: one node only)
  rec="$work/rec" agent="/bin/bash $here/../tools/agent.sh"
  mkdir -p "$rec/work"
  run 0 --host "$hosts" --wdir "$rec/work" --exec-agent "$agent exec $rec" "$bin/agents" hello "$rec"
  ran_there=$(cat "$rec"/hello.* 2>/dev/null | grep -c "^$rec/work ")
  [ "$ran_there" -eq "$n" ] || fail "$ran_there of $n ranks ran in $rec/work"
  agents=$(cat "$rec"/agent.* 2>/dev/null | grep -c "^exec ")
  [ "$agents" -eq "$n" ] || fail "$agents of $n exec agents ran"
  for which in cwd badcwd fork-refused; do
    run 0 --host "$hosts" -n 1 "$bin/agents" spawner "$rec" "$which" "$agent"
    expect_lines "agents: $which ok" 1
  done
  ;;
forkagent)  # pmixrun --host --fork-agent (launcher/fork_agent.h; examples/fork_agent.c and
  # tests/tools/fork_agent_check.cpp): every rank started by an agent that connected back to its
  # node's pmixd as rank r of "<job>.fea" and is the rank's parent; sizes, local ranks and peers
  # without the agents; the proc table gives the app's pid; the app's exit code 7 is pmixrun's
  rec="$work/rec"
  mkdir -p "$rec"
  run 0 --host "$hosts" --fork-agent "$bin/fork_agent --record $rec" "$bin/fork_agent_check" app "$rec" 0
  ns=$(ls "$rec" | sed -n 's/^app\.\(.*\)\.0$/\1/p')
  [ -n "$ns" ] || fail "no report of rank 0"
  for ((r = 0; r < n; r++)); do
    first=$((r / slots * slots))
    peers=$(seq -s, "$first" $((first + slots - 1)))
    read -r size lrank lsize lpeers pid ppid names _ tpid < "$rec/app.$ns.$r" || true
    read -r fns frank fpid tns trank apid < "$rec/fea.$ns.$r" || true
    [ "$size $lrank $lsize $lpeers" = "$n $((r - first)) $slots $peers" ] ||
      fail "rank $r sees size $size, local rank $lrank, local size $lsize, peers $lpeers"
    [ "$fns $frank $tns $trank" = "$ns.fea $r $ns $r" ] ||
      fail "agent of rank $r: $fns:$frank targeting $tns:$trank"
    [ "$apid $fpid $tpid" = "$pid $ppid $pid" ] ||
      fail "rank $r (pid $pid, parent $ppid, proc table $tpid): agent $fpid said $apid"
    case ",$names," in *",$ns.fea,"*) ;; *) fail "namespaces '$names' lack $ns.fea" ;; esac
  done
  run 7 --host "$hosts" --fork-agent "$bin/fork_agent" "$bin/fork_agent_check" app "$rec" 7
  ;;
connect)  # spawn as above (2 children), then PMIx_Connect / PMIx_Disconnect of both jobs
  run 0 --host "$hosts" "$bin/xnode_spawn" connect
  expect_lines "done failures=0" $((n + 2))
  expect_lines ": FAIL " 0
  expect_lines ": ok PMIx_Connect of both jobs across the nodes" $((n + 2))
  expect_lines ": ok a key of the other job's rank 0" $((n + 2))
  expect_lines ": ok PMIx_Disconnect" $((n + 2))
  ;;
spawn_jobend)  # the spawned job's JOB_END at the head, for a tool (xnode_jobend.c)
  echo "+ pmixrun --host $hosts xnode_spawn (rank 0 holds until the tool saw JOB_END)"
  XNODE_HOLD="$work/go" timeout -s KILL 90 "$bin/pmixrun" --launch-agent "ip netns exec" \
    --host "$hosts" --timeout 80 -x XNODE_HOLD "$bin/xnode_spawn" >"$work/out" 2>"$work/err" &
  job=$!
  head=
  for _ in $(seq 1 50); do head=$(pgrep -P "$job" -x pmixrun) && break; sleep 0.1; done
  spawned=
  for _ in $(seq 1 100); do
    spawned=$(sed -n 's/^\[1\] parent 1: spawned //p' "$work/out") && [ -n "$spawned" ] && break
    sleep 0.1
  done
  # Both children report done before the tool asks: the JOB_END it gets is the cached one.
  for _ in $(seq 1 100); do [ "$(count "child [01]: done")" -eq 2 ] && break; sleep 0.1; done
  timeout -s KILL 30 "$bin/xnode_jobend" "$head" "$spawned" >"$work/tool" 2>&1 ||
    fail "the tool saw no JOB_END of $spawned: $(cat "$work/tool")"
  cat "$work/tool"
  touch "$work/go"
  wait "$job" || fail "the job failed"
  cat "$work/out" "$work/err"
  grep -q "^jobend $spawned status SUCCESS\$" "$work/tool" || fail "no successful JOB_END of $spawned"
  expect_lines "done failures=0" 4
  ;;
spawn_fence)  # examples/spawn_fence: rank 0 spawns 2; parents and children fence across nodes
  run 0 --host "$hosts" "$bin/spawn_fence" 2
  expect_lines "spawn_fence: parent rank [0-9]* ok" "$n"
  expect_lines "spawn_fence: child rank [01] ok" 2
  ;;
qget)  # qualified Gets of this node and of every other node, answered from the node arrays
  run 0 --host "$hosts" "$bin/qualified_get"
  last=$((d - 1))
  for ((i = 0; i < d; i++)); do
    expect_lines "node .*$i pmix.hname: SUCCESS PMIX_STRING ${prefix}n$i\$" "$n"
    expect_lines "node .*$i pmix.nodeid: SUCCESS PMIX_UINT32 $i\$" "$n"
    expect_lines "node .*$i pmix.local.size: SUCCESS PMIX_UINT32 $slots\$" "$n"
    expect_lines "node .*$i pmix.lldr: SUCCESS PMIX_PROC_RANK $((i * slots))\$" "$n"
  done
  expect_lines "node (own) " "$((n * 7))"
  expect_lines "node $d pmix.hname: NOT-FOUND" "$n"
  expect_lines "node (own name) pmix.local.size: SUCCESS PMIX_UINT32 $slots\$" "$n"
  expect_lines "node (no id) pmix.local.size: SUCCESS PMIX_UINT32 $slots\$" "$n"
  expect_lines "app 0 pmix.app.size: SUCCESS PMIX_UINT32 $n\$" "$n"
  ;;
querykeys)  # every query key from rank 0 (its node's pmixd answers), each rank's PMIX_PSET_NAMES
  run 0 --host "$hosts" --timeout 60 --pset ocean "$bin/query_keys_client" ocean 60 "$d"
  grep -q "FAIL" "$work/out" && fail "a query check failed (above)"
  expect_lines "ok PMIX_PSET_NAMES of this rank names its app's set" "$n"
  expect_lines "ok PMIX_PSET_NAME in its app's info array" "$n"
  expect_lines "ok local procs by node id cover every rank once" 1
  expect_lines "ok ranks' average memory plausible, min <= avg <= max" 1
  expect_lines "ok membership of a process set is its app's ranks" 1
  expect_lines "ok time remaining within --timeout" 1
  ;;
tools)  # pmix-ps asks the head for the whole job: every node's ranks with pid, state, exit code
  echo "+ pmixrun --host $hosts tool_target (rank 0 exits at once; the others wait)"
  TOOL_TARGET_GO="$work/go" timeout -s KILL 90 "$bin/pmixrun" --launch-agent "ip netns exec" \
    --host "$hosts" --pset sea --timeout 80 -x TOOL_TARGET_GO "$bin/tool_target" >"$work/out" 2>"$work/err" &
  job=$!
  head=
  for _ in $(seq 1 50); do head=$(pgrep -P "$job" -x pmixrun) && break; sleep 0.1; done
  for _ in $(seq 1 100); do
    "$bin/pmix-ps" --pid "$head" --json >"$work/ps.json" 2>/dev/null &&
      python3 - "$work/ps.json" "$n" <<'PY' && break
import json, sys
procs = json.load(open(sys.argv[1]))[0]["procs"]
sys.exit(0 if len(procs) == int(sys.argv[2]) and "TERMINATED" in procs[0]["state"] and
         all("CONNECTED" in p["state"] for p in procs[1:]) else 1)
PY
    sleep 0.2
  done
  "$bin/pmix-ps" --pid "$head"
  python3 - "$work/ps.json" "$n" "$slots" "$prefix" <<'PY' || fail "the head's proc table is wrong: $(cat "$work/ps.json")"
import json, sys
procs = json.load(open(sys.argv[1]))[0]["procs"]
n, slots, prefix = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
assert [p["proc"]["rank"] for p in procs] == list(range(n)), procs
for p in procs:
    rank = p["proc"]["rank"]
    assert p["hostname"] == f"{prefix}n{rank // slots}", p      # block mapping over the nodes
    assert p["executable"].endswith("tool_target"), p
    if rank > 0:                                                 # a live process with that pid
        assert open(f"/proc/{p['pid']}/cmdline", "rb").read().split(b"\0")[0].endswith(b"tool_target"), p
assert "TERMINATED" in procs[0]["state"] and procs[0]["exit_code"] == 0, procs[0]
print("pmix-ps on the head: every node's ranks with host, pid, state and exit code")
PY
  q=$("$bin/pmix-query" --pid "$head" PMIX_QUERY_PSET_NAMES PMIX_TIME_REMAINING 2>&1)
  echo "$q"
  grep -qx "pmix.qry.psets = sea" <<<"$q" || fail "the head does not name the job's process set"
  grep -Eq "^pmix.time.remaining = .*Value: ([1-7]?[0-9]|80)\$" <<<"$q" ||
    fail "the head's time remaining is not within --timeout 80"
  touch "$work/go"
  wait "$job" || fail "the job failed"
  cat "$work/out" "$work/err"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
sleep 0.2
left=$(pgrep -f "$bin/pmixd" | wc -l)
[ "$left" -eq 0 ] || fail "$left pmixd process(es) left"
shm_left=$(ls /dev/shm | grep -c "^pmixmn-$$-" || true)
[ "$shm_left" -eq 0 ] || fail "$shm_left shared-memory segment(s) left"
bash "$netns" destroy "$prefix"
[ "$(ip netns list | grep -c "^$prefix")" -eq 0 ] || fail "namespaces left"
[ "$fails" -eq 0 ] && echo "PASS: $case on $d simulated nodes x $slots slots"
exit $((fails > 0))
