// client/fence_board.cpp - see fence_board.h.
#include "client/fence_board.h"

#include "base/env_names.h"
#include "data/directives.h"
#include "exec/log.h"
#include "gds/board.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace pmix::client::fence_board {
namespace {

using Clock = std::chrono::steady_clock;

struct Job {
    Clock::time_point deadline;
    exec::UniqueFunction<void(Result)> fn;
};

// One per process between init and teardown. `busy` is set while a fence is on the board (by
// the caller's thread or the helper); `queue` holds Fence_nb calls in call order.
struct Runner {
    std::mutex mu;
    std::condition_variable cv;
    std::shared_ptr<gds::BoardView> view;
    std::chrono::microseconds spin{0};
    bool busy = false;
    bool stop = false;
    std::atomic<bool> cancel{false};  // `stop`, for the helper while it waits on the board
    std::deque<Job> queue;
    std::thread helper;
};

Runner& runner() {
    static Runner* r = new Runner();  // never destroyed: the helper may outlive static teardown
    return *r;
}

// Spinning pays when every participant has a CPU of its own; with more processes than CPUs a
// spinning waiter only delays the ones it waits for. Measured on the 2-vCPU VM, two processes:
// 0.03 us per barrier with a 5 us window, 4-23 us sleeping on the futex.
std::chrono::microseconds spin_window(std::uint32_t nranks) {
    if (const char* env = std::getenv(env::kFenceSpinUs); env != nullptr && *env != '\0') {
        return std::chrono::microseconds(std::strtol(env, nullptr, 10));
    }
    const unsigned cpus = std::thread::hardware_concurrency();
    return nranks <= cpus ? std::chrono::microseconds(50) : std::chrono::microseconds(0);
}

Result outcome(gds::BoardView::Outcome o) {
    switch (o) {
        case gds::BoardView::Outcome::done:
            return Result::done;
        case gds::BoardView::Outcome::timeout:
            return Result::timeout;
        case gds::BoardView::Outcome::redirect:
        case gds::BoardView::Outcome::cancelled:
            break;
    }
    return Result::server;
}

void helper_loop() {
    Runner& r = runner();
    std::unique_lock lock(r.mu);
    for (;;) {
        r.cv.wait(lock, [&] { return r.stop || (!r.busy && !r.queue.empty()); });
        if (r.stop) return;
        Job job = std::move(r.queue.front());
        r.queue.pop_front();
        r.busy = true;
        auto view = r.view;
        const auto spin = r.spin;
        lock.unlock();
        // close() sets `cancel`: a fence that never completes does not hold up finalize.
        const gds::BoardView::Outcome o = view->arrive_and_wait(job.deadline, spin, &r.cancel);
        if (o != gds::BoardView::Outcome::cancelled) job.fn(outcome(o));
        lock.lock();
        r.busy = false;
        r.cv.notify_all();
    }
}

}  // namespace

void open_from_env(const pmix_proc_t& me) {
    const char* name = std::getenv(env::kFenceBoard);
    if (name == nullptr || *name == '\0') return;
    std::unique_ptr<gds::BoardView> view;
    const std::string_view nspace(me.nspace, ::strnlen(me.nspace, PMIX_MAX_NSLEN));
    if (pmix_status_t rc = gds::BoardView::open(name, nspace, view); rc != PMIX_SUCCESS) {
        // Our first whole-namespace fence reaches the server, which then sends everyone there.
        // Only a damaged board is worth a warning (every rank would write it): a board we may not
        // open (a server of another uid) or one already gone is an ordinary reason to use the
        // server.
        if (rc != PMIX_ERR_NO_PERMISSIONS && rc != PMIX_ERR_NOT_FOUND) {
            exec::log_warn("pmix client", std::string("cannot use the fence board '") + name +
                                              "' (status " + std::to_string(rc) +
                                              "); fences go through the server");
        }
        return;
    }
    Runner& r = runner();
    std::lock_guard lock(r.mu);
    r.spin = spin_window(view->nranks());
    r.view = std::move(view);
    r.stop = false;
    r.cancel.store(false);
}

void close() {
    Runner& r = runner();
    std::thread helper;
    {
        std::lock_guard lock(r.mu);
        r.stop = true;
        r.cancel.store(true);
        helper = std::move(r.helper);
        r.cv.notify_all();
    }
    if (helper.joinable()) helper.join();
    std::lock_guard lock(r.mu);
    r.queue.clear();
    r.view.reset();
    r.busy = false;
}

// Without this, ranks waiting on the board when pmixrun was SIGKILLed waited for ranks whose
// commit had failed with PMIX_ERR_LOST_CONNECTION, up to the fence's timeout (an hour by
// default): tests/faults, case server_killed.
void server_lost() {
    Runner& r = runner();
    std::lock_guard lock(r.mu);
    if (r.view) r.view->disable();
}

bool eligible(const pmix_proc_t& me, const pmix_proc_t* procs, std::size_t nprocs,
              const pmix_info_t* info, std::size_t ninfo) {
    if (procs != nullptr && nprocs > 0) {
        if (nprocs != 1 || procs[0].rank != PMIX_RANK_WILDCARD ||
            std::strncmp(procs[0].nspace, me.nspace, PMIX_MAX_NSLEN) != 0) {
            return false;
        }
    }
    // A required directive the board does not know goes to the server, for the host to honour.
    static constexpr const char* kUnderstood[] = {PMIX_COLLECT_DATA, PMIX_TIMEOUT};
    return data::unknown_required(info, ninfo, kUnderstood) == nullptr;
}

Result run(Clock::time_point deadline) {
    Runner& r = runner();
    std::shared_ptr<gds::BoardView> view;
    std::chrono::microseconds spin{};
    {
        std::unique_lock lock(r.mu);
        if (!r.view) return Result::server;
        // Earlier Fence_nb calls of this process go first.
        if (!r.cv.wait_until(lock, deadline,
                             [&] { return r.stop || (!r.busy && r.queue.empty()); })) {
            return Result::timeout;
        }
        if (r.stop || !r.view) return Result::server;
        r.busy = true;
        view = r.view;
        spin = r.spin;
    }
    const Result result = outcome(view->arrive_and_wait(deadline, spin, nullptr));
    std::lock_guard lock(r.mu);
    r.busy = false;
    r.cv.notify_all();
    return result;
}

bool run_async(Clock::time_point deadline, exec::UniqueFunction<void(Result)> fn) {
    Runner& r = runner();
    std::lock_guard lock(r.mu);
    if (!r.view || r.stop) return false;
    r.queue.push_back(Job{deadline, std::move(fn)});
    if (!r.helper.joinable()) r.helper = std::thread(helper_loop);
    r.cv.notify_all();
    return true;
}

}  // namespace pmix::client::fence_board
