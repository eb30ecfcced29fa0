// server/events.h - event routing state of the server (owned by events.cpp).
//
// Which client registered for which codes, so that PMIx_Notify_event (from a client, from the
// host through the server API, or raised by the server itself when a client dies) reaches the
// clients whose range and registrations match.
#pragma once

#include <pmix_common.h>

namespace pmix::server {

struct EventRegistry {
    // Filled in by events.cpp.
};

}  // namespace pmix::server
