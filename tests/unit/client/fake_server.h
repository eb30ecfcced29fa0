// tests/unit/client: a small stand-in for the PMIx server, built from wire::Listener and the
// proto helpers, speaking protocol.h for the ops the client tests use. It lets the client be
// tested on its own: behaviour the real server cannot be told to show on demand (never
// answering, dying in the middle of a fence) is a switch here.
#pragma once

#include "exec/executor.h"
#include "wire/connection.h"
#include "wire/listener.h"

#include <pmix_common.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace clienttest {

// Removes its directory tree on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Keys with special meaning to the fake server.
inline constexpr const char* kSilentKey = "test.silent";  // a Get of it is never answered
inline constexpr const char* kNamespace = "fake.job";

struct Committed {
    pmix_scope_t scope;
    std::string key;
    std::string printed;  // the value rendered with PMIx_Value_string-like text
    pmix_data_type_t type;
};

class FakeServer {
public:
    enum class FenceMode { normal, hang_up };

    FakeServer();
    ~FakeServer();
    bool ok() const { return listener_ != nullptr; }
    const std::string& socket_path() const { return socket_; }

    // How many participants a fence waits for before answering everyone.
    void set_fence_size(std::size_t n);
    void set_fence_mode(FenceMode m);

    // Observations (any thread).
    int finalizes() const;
    int gets_of(const std::string& key) const;
    std::vector<Committed> commits_of(pmix_rank_t rank) const;
    std::vector<pmix_proc_t> last_fence_procs() const;
    bool last_fence_collects() const;
    std::pair<int, std::string> last_abort() const;

    // Environment for a client of rank `rank` in kNamespace.
    std::vector<std::string> client_env(pmix_rank_t rank, bool uri_only = false) const;

private:
    void accept(const std::shared_ptr<pmix::wire::Connection>& conn, pmix_rank_t rank);
    void on_message(pmix_rank_t rank, pmix::wire::Connection& conn, pmix::wire::Frame&& f);
    void on_get(pmix::wire::Connection& conn, const pmix::wire::Frame& f);
    void on_commit(pmix_rank_t rank, pmix::wire::Connection& conn, const pmix::wire::Frame& f);
    void on_fence(pmix::wire::Connection& conn, const pmix::wire::Frame& f);
    void on_publish(pmix::wire::Connection& conn, const pmix::wire::Frame& f);
    void on_lookup(pmix::wire::Connection& conn, const pmix::wire::Frame& f);
    void on_query(pmix::wire::Connection& conn, const pmix::wire::Frame& f);
    void on_register(pmix::wire::Connection& conn, const pmix::wire::Frame& f);
    void on_notify(pmix::wire::Connection& conn, const pmix::wire::Frame& f);

    TempDir dir_;
    std::string socket_;
    pmix::exec::Executor ex_{"fake-server"};
    std::shared_ptr<pmix::wire::Listener> listener_;

    mutable std::mutex mu_;
    std::size_t fence_size_ = 1;
    FenceMode fence_mode_ = FenceMode::normal;
    int finalizes_ = 0;
    std::map<std::string, int> gets_;
    std::map<pmix_rank_t, std::vector<Committed>> commits_;
    std::vector<pmix_proc_t> fence_procs_;
    bool fence_collects_ = false;
    std::pair<int, std::string> abort_{0, ""};
    std::map<std::string, std::string> published_;
    // Loop-thread state: fence participants waiting for the rest.
    std::vector<std::pair<std::weak_ptr<pmix::wire::Connection>, pmix::wire::Frame>> waiting_;
    std::vector<std::weak_ptr<pmix::wire::Connection>> conns_;
};

}  // namespace clienttest
