// tests/unit/client/scenario_support.h - what every client scenario file uses: the CHECK macros
// (a failed check prints where and makes the scenario exit non-zero), a bounded one-shot Signal
// for callbacks, and the scenarios of scenarios_e2e.cpp (run against the real server).
#pragma once

#include "fake_server.h"

#include <pmix.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace clienttest {

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::fprintf(stderr, "scenario check failed at %s:%d: %s\n", __FILE__, __LINE__, \
                         #cond);                                                             \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

#define CHECK_RC(expr, want)                                                                     \
    do {                                                                                         \
        pmix_status_t rc_ = (expr);                                                              \
        if (rc_ != (want)) {                                                                     \
            std::fprintf(stderr, "scenario check failed at %s:%d: %s = %s, want %s\n", __FILE__, \
                         __LINE__, #expr, PMIx_Error_string(rc_), PMIx_Error_string(want));      \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

// A one-shot flag a callback sets and the scenario waits for (bounded).
struct Signal {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    pmix_status_t status = PMIX_ERROR;
    std::string text;
    std::thread::id thread;
    void set(pmix_status_t st, std::string t = {}) {
        std::lock_guard lock(mu);
        status = st;
        text = std::move(t);
        thread = std::this_thread::get_id();
        done = true;
        cv.notify_all();
    }
    bool wait() {
        std::unique_lock lock(mu);
        return cv.wait_for(lock, std::chrono::seconds(30), [this] { return done; });
    }
};

inline void op_cb(pmix_status_t st, void* cbdata) { static_cast<Signal*>(cbdata)->set(st); }

inline void value_cb(pmix_status_t st, pmix_value_t* v, void* cbdata) {
    std::string text;
    if (st == PMIX_SUCCESS && v != nullptr && v->type == PMIX_STRING) text = v->data.string;
    static_cast<Signal*>(cbdata)->set(st, text);
}

inline int init_as_env(pmix_proc_t* me) {
    CHECK_RC(PMIx_Init(me, nullptr, 0), PMIX_SUCCESS);
    CHECK(std::strcmp(me->nspace, kNamespace) == 0);
    return 0;
}

// scenarios_e2e.cpp
int exchange();
int lost_peer();
int cleanup();
int model_declared();
int event_chain();
int two_namespaces();
// scenarios_board.cpp
int board_rounds();
int board_timeout();
int board_dead_peer();
int board_required_directive();

}  // namespace clienttest
