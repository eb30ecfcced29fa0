#!/bin/bash
# security.sh PMIXRUN SECURITY_CLIENT MODE [user]: pmixrun runs two ranks of security_client in
# MODE (cred, heartbeat, file or file_modify; security_client.cpp says what each checks). Passes
# when both ranks printed "security_client: MODE ok" and pmixrun exited 0.
# "user": the ranks run as the user pmixtest1 (pmixrun --user, created when missing, as
# tests/users does), so that the uid and gid a credential carries are not root's; root only
# (exit 77 otherwise).
set -u
PMIXRUN=$1
PROG=$2
MODE=$3
AS_USER=${4:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/security.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/tmp"
USER_ARGS=()
if [ "$AS_USER" = user ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
  id -u pmixtest1 >/dev/null 2>&1 || timeout 30 flock /tmp/pmix-cpp-test-users.lock \
    sh -c "id -u pmixtest1 >/dev/null 2>&1 || useradd -M -U -s /usr/sbin/nologin pmixtest1" ||
    { echo "FAIL: cannot create user pmixtest1"; exit 1; }
  chmod 0711 "$WORK"
  chmod 0777 "$WORK/tmp"
  USER_ARGS=(--user pmixtest1)
  echo "running as pmixtest1: uid $(id -u pmixtest1) gid $(id -g pmixtest1)"
fi
env TMPDIR="$WORK/tmp" SEC_WORK="$WORK/tmp" \
  timeout -s KILL 90 "$PMIXRUN" "${USER_ARGS[@]}" -n 2 "$PROG" "$MODE" >"$WORK/out" 2>"$WORK/err"
RC=$?
echo "--- pmixrun -> $RC"; echo "--- stdout:"; cat "$WORK/out"; echo "--- stderr:"; cat "$WORK/err"
[ "$RC" -eq 0 ] || { echo "FAIL: pmixrun exited $RC"; exit 1; }
N=$(grep -c "security_client: $MODE ok" "$WORK/out")
[ "$N" -eq 2 ] || { echo "FAIL: $N of 2 ranks printed 'security_client: $MODE ok'"; exit 1; }
echo PASS
