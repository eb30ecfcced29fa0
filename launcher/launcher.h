// pmixrun: the reference single-node host. Uses only the public PMIx headers and libpmix, so the same
// sources build against our library (pmixrun) and Debian's OpenPMIx (pmixrun-openpmix).
#pragma once

#include <pmix.h>
#include <pmix_server.h>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace pmix::launcher {

using Clock = std::chrono::steady_clock;

struct Options {
  int nprocs = 1;
  std::vector<std::string> env;   // -x entries: "VAR" (copy ours) or "VAR=value"
  double timeout_s = 0;           // 0 = none
  bool report = false;
  std::vector<std::string> argv;  // program and its arguments
};

// Parses argv; on error prints the reason and usage to stderr and returns false (exit_code set).
bool parse_options(int argc, char** argv, Options& out, int& exit_code);

// Work handed from the server's thread to the launcher's own loop (an eventfd wakes the loop).
class WorkQueue {
 public:
  WorkQueue();
  ~WorkQueue();
  void post(std::function<void()> fn);
  int fd() const { return fd_; }
  void drain();  // runs everything queued so far, on the calling (main) thread
 private:
  int fd_ = -1;
  std::mutex mu_;
  std::deque<std::function<void()>> items_;
};

// Blocks the main thread until a server callback reports (used only during setup and teardown).
class Waiter {
 public:
  void done(pmix_status_t st);
  pmix_status_t wait();
  pmix_status_t wait_for(std::chrono::milliseconds limit);  // PMIX_ERR_TIMEOUT if no callback
  static void op_cb(pmix_status_t st, void* cbdata);
 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  pmix_status_t status_ = PMIX_SUCCESS;
};

struct Stream {
  int fd = -1;
  std::string partial;  // bytes after the last newline
};

struct Proc {
  pmix_rank_t rank = 0;
  std::string nspace;
  unsigned job = 0;  // 0: the job pmixrun started; k > 0: the k-th job spawned by PMIx_Spawn
  pid_t pid = -1;
  Stream out, err;
  bool connected = false, finalized = false, exited = false;
  int exit_code = 0;  // 128+sig for signals
  bool counted = false;  // exited on its own, before pmixrun started killing
  Clock::time_point forked, connected_at;
};

struct Published {
  pmix_proc_t owner;
  pmix_value_t value;  // owned copy
  bool first_read = false;
};

struct PendingLookup {
  pmix_proc_t requester;
  std::vector<std::string> keys;
  pmix_lookup_cbfunc_t cbfunc;
  void* cbdata;
};

// What PMIx_Spawn asked for (one application).
struct AppSpec {
  std::vector<std::string> argv;  // argv[0] is the command
  std::vector<std::string> env;   // added to (and overriding) pmixrun's child environment
  size_t nprocs = 1;
};

struct Launcher {
  Options opt;
  std::string nspace, hostname, tmpdir;
  // Every process: the first opt.nprocs are the main job; spawned jobs follow. A deque, so that
  // references survive a spawn appending while the event loop holds them.
  std::deque<Proc> procs;
  std::vector<std::string> child_env;        // environment every child starts from
  std::vector<std::string> spawned_nspaces;  // in spawn order
  unsigned next_job = 1;
  WorkQueue queue;
  std::map<std::string, Published> store;
  std::vector<PendingLookup> lookups;
  // Failure handling: the first failure decides the exit code; survivors get a grace to exit, then
  // SIGTERM, then SIGKILL.
  bool failing = false, timed_out = false;
  int fail_code = 0;
  int kill_stage = 0;  // 0 none, 1 SIGTERM sent, 2 SIGKILL sent
  Clock::time_point fail_at;
  size_t nconnected = 0, nfinalized = 0, nexited = 0;
  // True until the first process exits or the job starts failing; read on the PMIx server's
  // thread (fence_nb's fast path), written on the loop.
  std::atomic<bool> undisturbed{true};
  struct Times {
    Clock::time_point start, server_init, registered, forked, all_connected, all_finalized,
        all_exited, done;
    bool have_connected = false, have_finalized = false;
    Clock::duration setup_fork{}, fork{};  // summed over ranks, inside "fork/exec all"
  } t;

  void fail(int code, const std::string& why);
  int final_exit_code() const;
};

extern Launcher* g_launcher;

// host.cpp
void fill_module(pmix_server_module_t& m);
void fail_pending_lookups(pmix_status_t st);
void clear_store();

// job.cpp
pmix_status_t register_job(Launcher& L);
// Registers and starts a job for PMIx_Spawn; *nspace receives its namespace.
pmix_status_t spawn_job(Launcher& L, const pmix_proc_t& parent, const AppSpec& app,
                        std::string* nspace);
// "[rank]" for the main job, "[job.rank]" for spawned ones (output tags and messages).
std::string proc_tag(const Proc& pr);
bool spawn_all(Launcher& L, char** base_env);
void run_loop(Launcher& L);
void deregister_job(Launcher& L);
void kill_all(Launcher& L, int sig);

// report.cpp
void print_report(const Launcher& L);

}  // namespace pmix::launcher
