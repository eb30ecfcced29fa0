#!/usr/bin/env bash
# tests/tools/agent.sh MODE DIR PROGRAM [ARGS...] - a test agent: the exec agent, or (fork) an
# agent of the old kind that only wraps the program (pmixrun's fork/exec agent connects back as a
# tool: examples/fork_agent.c)
# (launcher/start_as.cpp): records that it ran, in the rank's environment, as
# DIR/agent.<nspace>.<rank> ("MODE nspace rank pid cwd"), then starts the program:
#  fork: as its child, waited for, its exit status ours (a fork/exec agent);
#  exec: in its own place (an exec agent).
set -u
mode=$1 dir=$2
shift 2
record=$dir/agent.${PMIX_NAMESPACE:-none}.${PMIX_RANK:-none}
echo "$mode ${PMIX_NAMESPACE:-none} ${PMIX_RANK:-none} $$ $PWD" > "$record.tmp"
mv "$record.tmp" "$record"
case $mode in
fork)
  "$@"
  exit $?
  ;;
exec) exec "$@" ;;
*)
  echo "agent.sh: unknown mode '$mode'" >&2
  exit 2
  ;;
esac
