"""python3-pmix's tool class (PMIxTool) on our library, against a running pmixrun given by pid:
init by PMIX_SERVER_PIDINFO, query the namespaces and the proc table, finalize. Prints
"PASS ..." only when every step answered as the launcher should (checked by the compat test)."""
import sys
from pmix import *

pid, nspace, nprocs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
t = PMIxTool()
rc, me = t.init([{'key': PMIX_SERVER_PIDINFO, 'value': pid, 'val_type': PMIX_PID}])
print("init", rc, me, flush=True)
if rc != PMIX_SUCCESS:
    raise SystemExit("FAIL: init")
rc, res = t.query([{'keys': [PMIX_QUERY_NAMESPACES], 'qualifiers': []}])
print("namespaces", rc, res, flush=True)
if rc != PMIX_SUCCESS or res[0]['value'] != nspace:
    raise SystemExit("FAIL: namespaces")
rc, res = t.query([{'keys': [PMIX_QUERY_JOB_STATUS],
                    'qualifiers': [{'key': PMIX_NSPACE, 'value': nspace, 'val_type': PMIX_STRING}]}])
print("job status", rc, res, flush=True)
if rc != PMIX_SUCCESS or res[0]['value'] != PMIX_SUCCESS:
    raise SystemExit("FAIL: job status")
rc = t.finalize()
print("finalize", rc, flush=True)
print("PASS" if rc == PMIX_SUCCESS and me['nspace'].startswith(nspace + ".tool.") else "FAIL: finalize")
