"""python3-pmix's group calls (PMIxClient.group_construct / group_destruct) under pmixrun on our
library: every rank constructs one group of the whole job with a context id, then destructs it;
prints one line per rank (checked by the compat test)."""
from pmix import *
c = PMIxClient()
rc, me = c.init([])
if rc != PMIX_SUCCESS:
    raise SystemExit(f"init failed {rc}")
rc, results = c.group_construct("py-group", None,
                                [{'key': PMIX_GROUP_ASSIGN_CONTEXT_ID, 'value': True,
                                  'val_type': PMIX_BOOL}])
# Keys come back as str, the binding's constants are bytes: compare by name.
keys = {r['key']: r['value'] for r in results}
ctx = keys.get('pmix.grp.ctxid')
members = len(keys.get('pmix.grp.mbrs', {}).get('array', []))
rc2 = c.group_destruct("py-group", [])
print("rank", me['rank'], "construct", rc, "ctx", ctx, "members", members, "destruct", rc2,
      flush=True)
print("finalize", c.finalize([]))
