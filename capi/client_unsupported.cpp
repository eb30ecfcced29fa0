// capi/client_unsupported.cpp - the client API (pmix.h) not implemented by client/ yet.
//
// (Init, Finalize, Put/Get/Fence, Publish/Lookup, Connect, Log: capi/client.cpp.) Every
// remaining client operation answers PMIX_ERR_INIT before init (the Standard's answer) and
// PMIX_ERR_NOT_SUPPORTED after. A non-blocking call that returns an error status never invokes its
// callback (Standard: the callback fires only after PMIX_SUCCESS), so none of these call theirs.
// When one is implemented, it moves out of this file into the file of its family.
#include "compose.h"
#include "shim_support.h"

#include <pmix.h>

// ---- Lifecycle -------------------------------------------------------------------------------

void PMIx_Progress(void) {
    // Nothing to progress: no connection, no pending operation.
}
