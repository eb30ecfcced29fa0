#!/usr/bin/env bash
# tests/tools/indirect.sh PMIXRUN INDIRECT CASE - pmixrun as the intermediate launcher of an
# indirect launch (launcher/indirect.cpp), started by the initiator tools/indirect.cpp:
#  uri:    PMIX_LAUNCHER_RNDZ_URI + PMIX_KEEPALIVE_PIPE; READY, release with launch directives
#          (job events to the initiator, INDIRECT_VAR set for the ranks), JOB_END, exit 0;
#  file:   the same through PMIX_LAUNCHER_RNDZ_FILE naming the initiator's rendezvous file;
#  self:   the initiator's PMIx_Spawn starts pmixrun (self-spawn, capi/self_spawn.h), the
#          directives go with the spawn; READY from the namespace it returned; what a self-spawn
#          refuses is refused (selfnb: the same with PMIx_Spawn_nb);
#  refuse: the release carries a required directive pmixrun does not act on: no job, exit 1;
#  hangup: the initiator closes the keepalive pipe while the job runs: pmixrun ends it, exits 129;
#  kill9:  the initiator is killed (SIGKILL) while the job runs: the same.
# Every case: no rank, no pmixrun left, nothing of pmixrun's in TMPDIR or /dev/shm.
set -u
PMIXRUN=$1 TOOL=$2 CASE=$3
WORK=$(mktemp -d /tmp/pmix-indirect.XXXXXX)
export TMPDIR=$WORK/tmp PMIX_CPP_GDS_PREFIX=/pmixind-$$-$RANDOM
mkdir -p "$TMPDIR" "$WORK/ranks"
TOOL_PID= LAUNCHER_PID= KILLED=
cleanup() {
  [[ -n $TOOL_PID ]] && kill -9 "$TOOL_PID" 2>/dev/null
  [[ -n $LAUNCHER_PID ]] && kill -9 "$LAUNCHER_PID" 2>/dev/null
  for f in "$WORK"/ranks/*; do [[ -f $f ]] && kill -9 "$(cat "$f")" 2>/dev/null; done
  rm -f /dev/shm/"${PMIX_CPP_GDS_PREFIX#/}"*
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
RNDZ=$WORK/initiator.rndz
ECHO=(/bin/sh -c 'echo "rank $PMIX_RANK var=$INDIRECT_VAR"')
SLEEPER=(/bin/sh -c "echo \$\$ > $WORK/ranks/\$PMIX_RANK; exec sleep 30")

gone() {  # gone PID...: true once none of them runs (10 s at most)
  for _ in $(seq 1 100); do
    local alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && return 0
    sleep 0.1
  done
  return 1
}

case $CASE in
uri|file|self|selfnb)
  timeout 60 "$TOOL" "$PMIXRUN" "$CASE" "$RNDZ" -- "${ECHO[@]}" > "$WORK/out" 2> "$WORK/err"
  rc=$?
  sed 's/^/| /' "$WORK/out" "$WORK/err"
  [[ $rc == 0 ]] || fail "initiator exited $rc"
  grep -q '^indirect: ok' "$WORK/out" || fail "no summary"
  [[ $(grep -c 'var=from-initiator' "$WORK/out") == 2 ]] || fail "the launch directive's variable"
  gone $(pgrep -f "INDIRECT_MARK=$RNDZ") || fail "pmixrun left running"
  ;;
refuse)
  timeout 60 "$TOOL" "$PMIXRUN" refuse "$RNDZ" -- "${SLEEPER[@]}" > "$WORK/out" 2> "$WORK/err"
  rc=$?
  sed 's/^/| /' "$WORK/out" "$WORK/err"
  [[ $rc == 0 ]] || fail "initiator exited $rc"
  grep -q 'pmix.test.no.such.directive is required' "$WORK/err" || fail "pmixrun did not say why"
  ls "$WORK"/ranks/* > /dev/null 2>&1 && fail "a rank started"
  ;;
hangup)
  timeout 60 "$TOOL" "$PMIXRUN" hangup "$RNDZ" -- "${SLEEPER[@]}" > "$WORK/out" 2> "$WORK/err"
  rc=$?
  sed 's/^/| /' "$WORK/out" "$WORK/err"
  [[ $rc == 0 ]] || fail "initiator exited $rc"
  grep -q 'keepalive pipe closed' "$WORK/err" || fail "pmixrun did not say why it ended"
  ;;
kill9)
  "$TOOL" "$PMIXRUN" hold "$RNDZ" -- "${SLEEPER[@]}" > "$WORK/out" 2> "$WORK/err" &
  TOOL_PID=$!
  for _ in $(seq 1 150); do grep -q '^started' "$WORK/out" && break; sleep 0.1; done
  LAUNCHER_PID=$(sed -n 's/^started //p' "$WORK/out")
  [[ -n $LAUNCHER_PID ]] || { sed 's/^/| /' "$WORK/out" "$WORK/err"; fail "the job did not start"; }
  kill -9 "$TOOL_PID"
  wait "$TOOL_PID" 2>/dev/null
  KILLED=$TOOL_PID TOOL_PID=
  gone "$LAUNCHER_PID" || fail "pmixrun $LAUNCHER_PID still runs after its initiator died"
  LAUNCHER_PID=
  sed 's/^/| /' "$WORK/out" "$WORK/err"
  grep -q 'keepalive pipe closed' "$WORK/err" || fail "pmixrun did not say why it ended"
  ;;
*) fail "unknown case $CASE" ;;
esac
for f in "$WORK"/ranks/*; do
  [[ -f $f ]] || continue
  gone "$(cat "$f")" || fail "rank $(basename "$f") (pid $(cat "$f")) left running"
done
# The initiator killed by SIGKILL leaves its own rendezvous files; pmixrun must leave nothing.
left=$(ls -A "$TMPDIR")
[[ $CASE == kill9 ]] && left=$(echo "$left" | grep -v -e "[.:]$KILLED\$" || true)
[[ -z $left ]] || fail "left in TMPDIR: $left"
shm=$(ls /dev/shm | grep "^${PMIX_CPP_GDS_PREFIX#/}" | grep -v -e "-${KILLED:-none}-" | tee /dev/stderr | wc -l)
[[ $shm == 0 ]] || fail "$shm shared-memory segment(s) left"
echo "PASS: indirect $CASE"
