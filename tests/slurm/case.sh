#!/usr/bin/env bash
# One Slurm case: case.sh DIRFILE USER NP PROGRAM [ARGS...]
# Runs `srun --mpi=pmix -N NODES -n NP PROGRAM` as USER (root, or the other Unix user that
# cluster.sh created) on the two clusters of cluster.sh (DIRFILE): first on Debian's OpenPMIx,
# then on ours. Passes when both runs exit with the same status and print the same lines (sorted;
# numbers of 3+ digits, job and step ids, dates and PMIx status names after "fence failed as
# expected:" masked; srun's and slurmstepd's own messages are shown but not compared, except
# srun's "task N: Exited with exit code" / "Killed" lines; not the lines at all when both runs
# timed out), and when our run leaves nothing behind
# on any node: no process, no /dev/shm entry, nothing in TmpFS or in slurmd's spool directory.
# Each srun runs under a timeout (STEP_TIMEOUT, 30 s): a job that hangs is cancelled, a
# slurmstepd still there 10 s after its srun ended is killed and reported, and the node is made
# usable again for the next case. With CASE_EXPECT set (a grep -E pattern), the lines are not
# compared: our run must print the pattern and exit as OpenPMIx's did. With CASE_RACE_RC set, our
# run may also exit with that status instead (a step that ended by itself before Slurm's kill
# landed), provided every one of the NP ranks printed a line matching CASE_RACE_LINES.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dirfile=$1 user=$2 np=$3
shift 3
prog=("$@")
STEP_TIMEOUT=${STEP_TIMEOUT:-30}
[ -s "$dirfile" ] || { echo "SKIP: no clusters (cluster.sh start was skipped)"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
note() { echo "note: $*"; }

load_env() {  # load_env CLUSTER: DIR CDIR NODES PREFIX of that cluster
    eval "$(bash "$here/cluster.sh" env "$dirfile" "$1")" || exit 1
    NET=()
    [ -z "$PREFIX" ] || NET=(nsenter --net="/run/netns/${PREFIX}n0")
    AS=()
    [ "$user" = root ] || AS=(setpriv --reuid="$user" --regid="$user" --init-groups)
}

slurm() { "${NET[@]}" env SLURM_CONF="$CDIR/slurm.conf" "$@"; }
slurmd_pid() { cat "$CDIR/slurmd.n$1.launcher"; }
in_node() { local i=$1; shift; nsenter --mount="/proc/$(slurmd_pid "$i")/ns/mnt" "$@"; }

node_procs() {  # node_procs NODE: "pid comm args" of every process of that node but slurmd
    local ns pid
    ns=$(cat "$CDIR/slurmd.n$1.ns")
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
        [ "$pid" != "$(slurmd_pid "$1")" ] || continue
        [ "$(readlink "/proc/$pid/ns/mnt" 2>/dev/null)" = "$ns" ] || continue
        echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    done
}

node_files() {  # node_files NODE: what the node keeps in /dev/shm, TmpFS and the spool directory
    in_node "$1" sh -c 'ls /dev/shm | sed "s|^|/dev/shm/|"; ls "$1/nodetmp" | sed "s|^|TmpFS/|"
        ls "$1/spool/n$2" | grep -v -E "^(cred_state|hash\.|slurmd\.state|cred_state\.old)" |
        sed "s|^|spool/|"' sh "$CDIR" "$1" | sort
}

wait_ready() {  # every node idle (the previous job completed) and no step process left
    local i idle busy
    for _ in $(seq 1 150); do
        idle=$(slurm sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$')
        busy=$(for ((i = 0; i < NODES; i++)); do node_procs "$i"; done)
        [ "$idle" -eq "$NODES" ] && [ -z "$busy" ] && return 0
        sleep 0.2
    done
    note "nodes not ready after 30 s: $(slurm sinfo -h -N -o '%N %T' | tr '\n' ' ') $busy"
}

# After srun returned: steps still running are cancelled; a slurmstepd still there after 10 s is
# stuck (hung in the PMIx library) and is killed with everything it started, so that the next
# case finds a usable node.
reap() {  # reap LABEL
    local label=$1 left="" i
    slurm scancel --quiet $(slurm squeue -h -o %i 2>/dev/null) 2>/dev/null
    for _ in $(seq 1 50); do
        left=$(for ((i = 0; i < NODES; i++)); do node_procs "$i"; done)
        [ -z "$left" ] && break
        sleep 0.2
    done
    [ -z "$left" ] && return 0
    STUCK=1
    local what="$label: processes left 10 s after srun returned (killed now): $(echo "$left" | cut -c1-100 | tr '\n' ';')"
    if [ "$label" = ours ]; then fail "$what"; else note "$what"; fi
    echo "$left" | awk '{print $1}' | xargs -r kill -9 2>/dev/null
    sleep 0.5
    slurm scontrol update nodename=ALL state=resume >/dev/null 2>&1
}

run() {  # run CLUSTER OUTFILE: sets RC, TIMED_OUT and STUCK (a step had to be killed)
    local cluster=$1 out=$2 i start before after
    STUCK=0
    load_env "$cluster"
    wait_ready
    for ((i = 0; i < NODES; i++)); do node_files "$i" >"$out.files$i"; done
    start=$(date +%s)
    slurm "${AS[@]}" timeout -k 5 "$STEP_TIMEOUT" srun --mpi=pmix --chdir=/tmp -N "$NODES" -n "$np" \
        "${prog[@]}" >"$out" 2>&1 </dev/null
    RC=$?
    TIMED_OUT=$(($(date +%s) - start >= STEP_TIMEOUT))
    echo "--- $cluster: srun -N $NODES -n $np $(basename "${prog[0]}") as $user -> $RC$( ((TIMED_OUT)) && echo " (timed out after $STEP_TIMEOUT s)")"
    cat "$out"
    reap "$cluster"
    for ((i = 0; i < NODES; i++)); do
        sleep 0.2
        after=$(node_files "$i" | comm -13 "$out.files$i" -)
        [ -z "$after" ] && continue
        if [ "$cluster" = ours ]; then
            fail "our run left on node n$i: $(echo $after)"
        else
            note "the OpenPMIx run left on node n$i: $(echo $after)"
        fi
        in_node "$i" sh -c 'cd /dev/shm && rm -rf "$@"' sh $(echo "$after" | sed -n 's|^/dev/shm/||p')
    done
}

# Program lines and srun's task exit lines, with ids, dates and PMIx status names masked.
normalize() {
    grep -v -E '^(slurmstepd|srun: (Job step|Force|job [0-9]+|got SIGCONT|forcing|Complete))' "$1" |
        grep -v -E '^srun: error: .*(Timed out|timeout|Interrupted)' |
        sed -E -e 's/(fence failed as expected): .*/\1/' -e 's/[0-9]{3,}/N/g' \
            -e 's/StepId=[0-9.]+/StepId=N/g' | sort
}

# compare: fails (counted) where our run differs from the reference run.
compare() {
    ((ref_timed_out && !TIMED_OUT)) && note "the OpenPMIx run timed out, ours did not (compared as is)"
    ((TIMED_OUT && !ref_timed_out)) && fail "our run timed out (hung), the OpenPMIx run did not"
    if [ "$RC" -ne "$ref_rc" ] && [ -n "${CASE_RACE_RC:-}" ] && [ "$RC" -eq "$CASE_RACE_RC" ]; then
        note "our step ended by itself (exit $RC) before Slurm's kill landed (exit $ref_rc on OpenPMIx)"
        [ "$(grep -cE -- "${CASE_RACE_LINES:-.}" "$work/ours")" -ge "$np" ] ||
            fail "exit $RC but fewer than $np lines /${CASE_RACE_LINES:-.}/"
    elif [ "$RC" -ne "$ref_rc" ]; then
        fail "exit status $RC on our library, $ref_rc on OpenPMIx"
    fi
    if ((TIMED_OUT && ref_timed_out)); then
        # Both steps hung in Slurm (seen with fence_subset on two nodes under load: the plugin's
        # ring collective logs "unexpected contrib from n1:1" and waits forever, on either
        # library): which lines left the ranks' stdio buffers before the kill is timing.
        note "both runs timed out (a hang in Slurm's plugin on either library): exit status compared, lines not"
    elif [ -n "${CASE_EXPECT:-}" ]; then  # output not compared line by line (see CMakeLists.txt)
        grep -qE -- "$CASE_EXPECT" "$work/ours" || fail "our run did not print /$CASE_EXPECT/"
        grep -qE -- "$CASE_EXPECT" "$work/ref" || note "the OpenPMIx run did not print /$CASE_EXPECT/"
    elif ! diff <(normalize "$work/ref") <(normalize "$work/ours") >"$work/diff"; then
        fail "output differs (< OpenPMIx, > ours):"
        cat "$work/diff"
    fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run openpmix "$work/ref"
ref_rc=$RC ref_timed_out=$TIMED_OUT ref_stuck=$STUCK
run ours "$work/ours"
ours_fails_before=$fails
compare
# OpenPMIx 4.2.2 under Slurm 22.05 now and then hangs a step or leaves a slurmstepd stuck by
# itself (2 of 45 cases in one full run here, ours fine in both). A reference that misbehaved
# that way and disagrees with ours is run once more, and ours is compared with that run; what our
# own run did (a leftover, a hang) has already been counted and is not retried.
if [ "$fails" -gt "$ours_fails_before" ] && ((ref_timed_out || ref_stuck)) && ((!TIMED_OUT)); then
    note "the OpenPMIx run hung or left a stuck step and differs from ours: running it once more"
    fails=$ours_fails_before
    saved_rc=$RC saved_timed_out=$TIMED_OUT
    run openpmix "$work/ref"
    ref_rc=$RC ref_timed_out=$TIMED_OUT
    RC=$saved_rc TIMED_OUT=$saved_timed_out
    compare
fi
[ "$fails" -eq 0 ] && echo "PASS: same outcome on OpenPMIx and ours (exit $RC)" || exit 1
