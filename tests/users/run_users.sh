#!/bin/bash
# tests/users/run_users.sh BIN_DIR CASE [SUFFIX] - a root server hosting a job of another user, as Slurm's
# slurmstepd does: pmixrun (root) runs the job's processes as pmixtest1 (--user), registered
# with PMIX_USERID / PMIX_GRPID. pmixtest2 plays a third user. Both users are created here when
# missing (useradd, own primary group, no home). Root only: exit 77 otherwise.
#   putget | hostfence | dmodex | subset | spawn | events   the example passes as pmixtest1
#            (hostfence: every fence through pmixrun's fence_nb, no board; spawn: PMIx_Spawn's
#            children run as pmixtest1 too)
#   abort | killed   the job fails as it does for root (exit 3 / 137, the same messages)
#   truncated_board   a rank truncates its job's fence board: the job fails, the server lives
#   access   while a job of pmixtest1 runs: modes and owners of its socket, directories, store
#            segments and fence board (stat); what pmixtest1 and pmixtest2 can open; pmixtest2
#            pretending to be rank 0 is refused (without the job's group: by the socket's
#            permissions; with it: by the server's SO_PEERCRED check, logged on both sides);
#            pmixtest1 cannot use the server's own socket; the job then completes.
# Every case checks that nothing is left: processes, /dev/shm segments, session directories.
# SUFFIX "-openpmix": pmixrun-openpmix and the examples built on Debian's OpenPMIx 4.2.2 (the
# reference; job cases only).
set -u
BIN=$1
CASE=$2
SUFFIX=${3:-}
USER_A=pmixtest1
USER_B=pmixtest2

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (creates users, runs a job as another user)"
    exit 77
fi
for tool in setpriv useradd flock timeout; do
    if ! command -v $tool >/dev/null; then
        echo "SKIP: needs $tool"
        exit 77
    fi
done

fail() {
    echo "FAIL: $*"
    exit 1
}

# Concurrent test cases may add the same user: serialise on a lock file.
ensure_user() {
    id -u "$1" >/dev/null 2>&1 && return 0
    timeout 30 flock /tmp/pmix-cpp-test-users.lock \
        sh -c "id -u $1 >/dev/null 2>&1 || useradd -M -U -s /usr/sbin/nologin $1" ||
        fail "cannot create user $1"
}
ensure_user $USER_A
ensure_user $USER_B
UID_A=$(id -u $USER_A)
GID_A=$(id -g $USER_A)
UID_B=$(id -u $USER_B)
GID_B=$(id -g $USER_B)

AS_A="setpriv --reuid=$UID_A --regid=$GID_A --clear-groups"
AS_B="setpriv --reuid=$UID_B --regid=$GID_B --clear-groups"
AS_B_IN_A_GROUP="setpriv --reuid=$UID_B --regid=$GID_B --groups=$GID_A"
as_a() { $AS_A "$@"; }
as_b() { $AS_B "$@"; }

if ! as_a test -x "$BIN/putget$SUFFIX"; then
    echo "SKIP: $USER_A cannot execute $BIN/putget$SUFFIX (build directory not reachable by other users)"
    exit 77
fi

T=$(mktemp -d /tmp/pmix-users-test.XXXXXX)
chmod 755 "$T"
mkdir -m 755 "$T/tmp"
mkdir -m 700 "$T/share"
chown $UID_A:$GID_A "$T/share"
PREFIX=/pmixusers$$
export TMPDIR=$T/tmp PMIX_CPP_GDS_PREFIX=$PREFIX PMIX_USERS_TEST=$$
RUN_PID=

cleanup() {
    if [ -n "$RUN_PID" ] && kill -0 "$RUN_PID" 2>/dev/null; then
        kill -TERM "$RUN_PID" 2>/dev/null
        timeout 10 tail --pid="$RUN_PID" -f /dev/null
        kill -KILL "$RUN_PID" 2>/dev/null
    fi
    rm -f /dev/shm/${PREFIX#/}-* 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

# Nothing of the job may outlive pmixrun.
check_clean() {
    local left
    left=$(ls /dev/shm | grep "^${PREFIX#/}-")
    [ -z "$left" ] || fail "segments left in /dev/shm: $left"
    left=$(ls -A "$T/tmp")
    [ -z "$left" ] || fail "left in the server's tmpdir: $left"
    # Cases run concurrently: only processes carrying this run's tag are ours.
    local p
    for p in $(pgrep -u $USER_A); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "PMIX_USERS_TEST=$$"; then
            fail "process $p of $USER_A left"
        fi
    done
}

# pmixrun ARGS... as root with the job as pmixtest1; its output in $T/out, exit code returned.
run_job() {
    timeout -k 10 90 "$BIN/pmixrun$SUFFIX" --user $USER_A --timeout 60 "$@" >"$T/out" 2>&1 &
    RUN_PID=$!
    wait $RUN_PID
}

expect_job() {  # expect_job NPROCS NLINES LINE-PATTERN ARGS...
    local n=$1 lines=$2 pattern=$3
    shift 3
    run_job -n "$n" "$@"
    local rc=$?
    cat "$T/out"
    [ $rc = 0 ] || fail "pmixrun $* exited with $rc"
    [ "$(grep -c "$pattern" "$T/out")" = "$lines" ] || fail "expected $lines lines matching '$pattern'"
    check_clean
    echo "PASS: $CASE ($n processes as $USER_A)"
}

expect_failure() {  # expect_failure NPROCS EXIT-CODE PMIXRUN-LINE-PATTERN ARGS...
    local n=$1 code=$2 pattern=$3
    shift 3
    run_job -n "$n" "$@"
    local rc=$?
    cat "$T/out"
    [ $rc = "$code" ] || fail "pmixrun $* exited with $rc, expected $code"
    grep -q "$pattern" "$T/out" || fail "no line matching '$pattern'"
    check_clean
    echo "PASS: $CASE ($n processes as $USER_A, exit $code as expected)"
}

mode_of() { stat -c '%a %U:%G' "$1"; }
expect_mode() {  # expect_mode PATH "MODE OWNER:GROUP"
    local got
    got=$(mode_of "$1") || fail "cannot stat $1"
    [ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
    echo "  $1: $got"
}

check_permissions() {
    local sock=$1 locator=$2 board=$3 segs
    local ga
    ga=$(id -gn $USER_A)
    expect_mode "$sock" "660 root:$ga"
    expect_mode "$(dirname "$sock")" "710 root:$ga"
    expect_mode "$(dirname "$(dirname "$sock")")" "711 root:root"
    expect_mode "$(dirname "$(dirname "$sock")")/server.sock" "600 root:root"
    expect_mode "/dev/shm${locator}" "644 root:root"
    expect_mode "/dev/shm${board}" "660 root:$ga"
    local spid=${locator#/"${PREFIX#/}"-} own
    spid=${spid%%-*}
    segs=$(ls /dev/shm | grep "^${PREFIX#/}-${spid}-[0-9]*$" | grep -v "^${locator#/}$")
    [ -n "$segs" ] || fail "no namespace segment found"
    for s in $segs; do expect_mode "/dev/shm/$s" "640 root:$ga"; done
    # The ranks' own modex segments (gds/proc_segment.h): theirs, readable by nobody else.
    own=$(ls /dev/shm | grep "^${PREFIX#/}-[0-9]*-[0-9]*$" | grep -v "^${PREFIX#/}-${spid}-")
    for s in $own; do expect_mode "/dev/shm/$s" "600 $USER_A:$ga"; done
    NS_SEG=/dev/shm/$(echo "$segs" | head -1)
}

check_opens() {
    as_a head -c 8 "$NS_SEG" >/dev/null || fail "$USER_A cannot read its job's segment"
    if as_b head -c 8 "$NS_SEG" >/dev/null 2>&1; then fail "$USER_B can read $NS_SEG"; fi
    if as_b sh -c "echo x >> /dev/shm$BOARD" 2>/dev/null; then fail "$USER_B can write the board"; fi
    if as_a sh -c "echo x >> $NS_SEG" 2>/dev/null; then fail "$USER_A can write its segment"; fi
    echo "  $USER_A reads its segment, cannot write it; $USER_B can neither read it nor the board"
}

# A client run by the setpriv command $1 claiming rank 0 of the job at server URI $3: its
# PMIx_Init must fail, with $2 in its output.
impostor() {
    local who=$1 pattern=$2 uri=$3 out
    out=$(timeout -k 5 30 $who env -i PATH=/usr/bin:/bin PMIX_CPP_LOG=info PMIX_NAMESPACE="$NS" \
        PMIX_RANK=0 PMIX_SERVER_URI="$uri" PMIX_SERVER_URI41="$uri" PMIX_SERVER_URI4="$uri" \
        PMIX_SERVER_URI3="$uri" PMIX_SERVER_URI2="$uri" PMIX_SERVER_URI21="$uri" \
        PMIX_CPP_SERVER_SOCKET="${uri#*;unix:}" PMIX_SECURITY_MODE=native \
        "$BIN/hello" 2>&1)
    local rc=$?
    echo "$out" | sed 's/^/    /'
    [ $rc != 0 ] || fail "the impostor ($who) initialised"
    [ $rc != 124 ] || fail "the impostor ($who) hung"
    echo "$out" | grep -q "$pattern" || fail "the impostor's output lacks '$pattern'"
}

case_access() {
    cat >"$T/rank.sh" <<EOF
#!/bin/bash
# Rank 0 tells the test who it is and where the server is, then waits for the test's go.
if [ "\$PMIX_RANK" = 0 ]; then
    { echo "ID \$(id -u) \$(id -g)"; env | grep -E '^PMIX'; } > $T/share/rank0.tmp
    mv $T/share/rank0.tmp $T/share/rank0.env
    for i in \$(seq 600); do [ -e $T/share/go ] && break; sleep 0.1; done
fi
exec $BIN/putget
EOF
    chmod 755 "$T/rank.sh"
    PMIX_CPP_LOG=warn timeout -k 10 90 "$BIN/pmixrun" --user $USER_A --timeout 60 -n 3 "$T/rank.sh" \
        >"$T/out" 2>&1 &
    RUN_PID=$!
    for _ in $(seq 300); do [ -e "$T/share/rank0.env" ] && break; sleep 0.1; done
    [ -e "$T/share/rank0.env" ] || { cat "$T/out"; fail "rank 0 did not start"; }
    local env_file=$T/share/rank0.env
    [ "$(grep '^ID ' "$env_file")" = "ID $UID_A $GID_A" ] || fail "rank 0 is not $USER_A: $(head -1 "$env_file")"
    local sock uri locator
    sock=$(sed -n 's/^PMIX_CPP_SERVER_SOCKET=//p' "$env_file")
    uri=$(sed -n 's/^PMIX_SERVER_URI41=//p' "$env_file")
    locator=$(sed -n 's/^PMIX_CPP_GDS_LOCATOR=//p' "$env_file")
    BOARD=$(sed -n 's/^PMIX_CPP_FENCE_BOARD=//p' "$env_file")
    NS=$(sed -n 's/^PMIX_NAMESPACE=//p' "$env_file")
    [ -n "$sock" ] && [ -n "$locator" ] && [ -n "$BOARD" ] || fail "rank 0's environment lacks the socket, store or board"
    echo "permissions while the job runs:"
    check_permissions "$sock" "$locator" "$BOARD"
    check_opens
    echo "$USER_B, not in the job's group, as rank 0:"
    impostor "$AS_B" "PMIx_Init failed: NO-PERMISSIONS" "$uri"
    echo "$USER_B in the job's group, as rank 0:"
    impostor "$AS_B_IN_A_GROUP" "PMIx_Init failed: INVALID-CREDENTIAL" "$uri"
    local main_uri=${uri%%;unix:*}";unix:$(dirname "$(dirname "$sock")")/server.sock"
    echo "$USER_A through the server's own socket:"
    impostor "$AS_A" "PMIx_Init failed: NO-PERMISSIONS" "$main_uri"
    touch "$T/share/go"
    wait $RUN_PID
    local rc=$?
    cat "$T/out"
    [ $rc = 0 ] || fail "the job failed after the impostors ($rc)"
    [ "$(grep -c 'putget: rank .* checked' "$T/out")" = 3 ] || fail "not every rank checked its peers"
    grep -q "refused client $NS:0 (pid [0-9]*) runs as uid $UID_B gid $GID_B, registered as uid $UID_A gid $GID_A" "$T/out" ||
        fail "no server log line for the refused client"
    check_clean
    echo "PASS: access"
}

# Rank 0 (the job's user, who may write its board) truncates the fence board, then every rank
# runs putget. Ranks that mapped the board before die of SIGBUS at the fence (their own job's
# doing), the others find it damaged and fence through the server, where the lost ones fail the
# fence. The job may pass or fail; the root server must live to tell (it died of SIGBUS when it
# disabled such a board before it stopped touching the board's memory).
case_truncated_board() {
    cat >"$T/rank.sh" <<EOF
#!/bin/bash
if [ "\$PMIX_RANK" = 0 ]; then
    truncate -s 0 "/dev/shm\$PMIX_CPP_FENCE_BOARD" && echo "rank 0 truncated the board"
fi
exec $BIN/putget
EOF
    chmod 755 "$T/rank.sh"
    run_job -n 3 "$T/rank.sh"
    local rc=$?
    cat "$T/out"
    grep -q "rank 0 truncated the board" "$T/out" || fail "rank 0 could not truncate its board"
    case $rc in
        0) [ "$(grep -c 'checked 2 keys of 3/3' "$T/out")" = 3 ] || fail "exit 0 without every rank's check" ;;
        1 | 135) grep -Eq "^pmixrun: rank [0-9] \(pid [0-9]*\) (exited with status 1|was killed by signal 7)" "$T/out" ||
            fail "pmixrun exited with $rc without reporting the job's failure: the server died" ;;
        *) fail "pmixrun exited with $rc, expected 0, 1 or 135" ;;
    esac
    check_clean
    echo "PASS: truncated_board (job exit $rc, the server reported it)"
}

case "$CASE" in
    putget) expect_job 4 4 "putget: rank .* checked 2 keys of 4/4" "$BIN/putget$SUFFIX" ;;
    hostfence) export PMIX_CPP_LOCAL_FENCE=server && expect_job 3 3 "putget: rank .* checked 2 keys of 3/3" "$BIN/putget$SUFFIX" ;;
    dmodex) expect_job 4 4 "by direct modex: OK" "$BIN/dmodex$SUFFIX" ;;
    subset) expect_job 5 5 "values OK" "$BIN/fence_subset$SUFFIX" ;;
    spawn) expect_job 2 4 "spawn_fence: .* ok (read" "$BIN/spawn_fence$SUFFIX" ;;  # and 2 children
    events) expect_job 3 3 "events: rank [0-9] ok" "$BIN/events$SUFFIX" ;;
    abort) expect_failure 3 3 "rank 2 called PMIx_Abort(status 3" "$BIN/abort$SUFFIX" ;;
    killed) expect_failure 4 137 "rank 1 (pid [0-9]*) was killed by signal 9" "$BIN/killed$SUFFIX" ;;
    access) case_access ;;
    truncated_board) case_truncated_board ;;
    *) fail "unknown case $CASE" ;;
esac
