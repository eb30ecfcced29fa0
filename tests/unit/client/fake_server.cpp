// The fake server of the client tests (see fake_server.h).
#include "fake_server.h"

#include "data/value.h"
#include "exec/log.h"
#include "wire/proto/message.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace clienttest {

namespace wire = pmix::wire;
namespace proto = pmix::proto;
using proto::Op;

TempDir::TempDir() {
    char templ[] = "/tmp/pmix-client-test-XXXXXX";
    if (::mkdtemp(templ) != nullptr) {
        path_ = templ;
    }
}

TempDir::~TempDir() {
    if (!path_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
}

namespace {

void reply_status(wire::Connection& conn, const wire::Frame& f, pmix_status_t st) {
    proto::Writer w;
    w.status(st);
    conn.reply(f, w.take());
}

// What the fake server "knows" besides commits: one peer's modex data and a job-level key.
bool preloaded(pmix_rank_t rank, const std::string& key, pmix_value_t* out) {
    if (rank == 1 && key == "peer.key") {
        return pmix::data::value_load(out, "peer-value", PMIX_STRING) == PMIX_SUCCESS;
    }
    if (rank == 1 && key == "peer.num") {
        std::uint32_t v = 7;
        return pmix::data::value_load(out, &v, PMIX_UINT32) == PMIX_SUCCESS;
    }
    const bool job = rank == PMIX_RANK_WILDCARD || rank == PMIX_RANK_UNDEF;
    if (job && key == PMIX_LOCAL_PEERS) {
        return pmix::data::value_load(out, "0-1,3", PMIX_STRING) == PMIX_SUCCESS;
    }
    if (job && key == PMIX_NODE_MAP) {
        return pmix::data::value_load(out, "nodeA,nodeB", PMIX_STRING) == PMIX_SUCCESS;
    }
    if (job && key == PMIX_PROC_MAP) {
        return pmix::data::value_load(out, "0,1,3;2", PMIX_STRING) == PMIX_SUCCESS;
    }
    if (job && key == PMIX_JOB_SIZE) {
        std::uint32_t v = 2;
        return pmix::data::value_load(out, &v, PMIX_UINT32) == PMIX_SUCCESS;
    }
    return false;
}

}  // namespace

FakeServer::FakeServer() {
    if (dir_.path().empty() || ex_.start() != PMIX_SUCCESS) {
        return;
    }
    socket_ = dir_.path() + "/server.sock";
    auto opened = wire::Listener::open(
        ex_, socket_, [this](const std::shared_ptr<wire::Connection>& c, const wire::Peer& peer) {
            accept(c, peer.hello.rank);
            return wire::Verdict{};
        });
    if (opened.ok()) {
        listener_ = std::move(opened.value);
    }
}

FakeServer::~FakeServer() {
    if (listener_) {
        listener_->close();
    }
    ex_.post([this] {
        for (auto& w : conns_) {
            if (auto c = w.lock()) c->close("fake server exits");
        }
        conns_.clear();
        waiting_.clear();
    });
    ex_.stop();
}

void FakeServer::set_fence_size(std::size_t n) {
    std::lock_guard lock(mu_);
    fence_size_ = n;
}

void FakeServer::set_fence_mode(FenceMode m) {
    std::lock_guard lock(mu_);
    fence_mode_ = m;
}

int FakeServer::finalizes() const {
    std::lock_guard lock(mu_);
    return finalizes_;
}

int FakeServer::gets_of(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = gets_.find(key);
    return it == gets_.end() ? 0 : it->second;
}

std::vector<Committed> FakeServer::commits_of(pmix_rank_t rank) const {
    std::lock_guard lock(mu_);
    auto it = commits_.find(rank);
    return it == commits_.end() ? std::vector<Committed>{} : it->second;
}

std::vector<pmix_proc_t> FakeServer::last_fence_procs() const {
    std::lock_guard lock(mu_);
    return fence_procs_;
}

bool FakeServer::last_fence_collects() const {
    std::lock_guard lock(mu_);
    return fence_collects_;
}

std::pair<int, std::string> FakeServer::last_abort() const {
    std::lock_guard lock(mu_);
    return abort_;
}

std::vector<std::string> FakeServer::client_env(pmix_rank_t rank, bool uri_only) const {
    std::vector<std::string> env = {
        std::string("PMIX_NAMESPACE=") + kNamespace,
        "PMIX_RANK=" + std::to_string(rank),
        "PMIX_SERVER_URI=fake.server.0;unix:" + socket_,
    };
    if (!uri_only) {
        env.push_back("PMIX_CPP_SERVER_SOCKET=" + socket_);
    }
    return env;
}

void FakeServer::accept(const std::shared_ptr<wire::Connection>& conn, pmix_rank_t rank) {
    conns_.push_back(conn);
    conn->on_message(
        [this, rank](wire::Connection& c, wire::Frame&& f) { on_message(rank, c, std::move(f)); });
}

void FakeServer::on_message(pmix_rank_t rank, wire::Connection& conn, wire::Frame&& f) {
    switch (static_cast<Op>(f.op)) {
        case Op::kFinalize: {
            std::lock_guard lock(mu_);
            ++finalizes_;
            break;
        }
        case Op::kAbort: {
            proto::Reader r(f.payload);
            pmix_status_t st = 0;
            std::string msg;
            std::vector<pmix_proc_t> procs;
            r.status(&st);
            r.string(&msg);
            r.procs(&procs);
            if (r.finish() != PMIX_SUCCESS) {
                return conn.close("bad abort", wire::CloseKind::bad_frame);
            }
            std::lock_guard lock(mu_);
            abort_ = {st, msg};
            break;
        }
        case Op::kGet:
            return on_get(conn, f);
        case Op::kCommit:
            return on_commit(rank, conn, f);
        case Op::kFence:
            return on_fence(conn, f);
        case Op::kPublish:
            return on_publish(conn, f);
        case Op::kLookup:
            return on_lookup(conn, f);
        case Op::kQuery:
            return on_query(conn, f);
        case Op::kRegisterEvents:
            return on_register(conn, f);
        case Op::kNotify:
            return on_notify(conn, f);
        default:
            return reply_status(conn, f, PMIX_ERR_NOT_SUPPORTED);
    }
    reply_status(conn, f, PMIX_SUCCESS);
}

void FakeServer::on_get(wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    pmix_proc_t proc{};
    std::string key;
    bool all = false;
    pmix::data::InfoArray info;
    r.proc(&proc);
    r.string(&key, &all);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        return conn.close("bad get", wire::CloseKind::bad_frame);
    }
    {
        std::lock_guard lock(mu_);
        ++gets_[all ? std::string("<all>") : key];
    }
    if (key == kSilentKey) {
        return;  // never answered: the client's timeout must fire
    }
    proto::Writer w;
    pmix_value_t v{};
    if (all) {
        // Every key of the process: the preloaded ones for rank 1.
        pmix_info_t out[2] = {};
        const char* keys[2] = {"peer.key", "peer.num"};
        std::size_t n = 0;
        for (const char* k : keys) {
            if (preloaded(proc.rank, k, &out[n].value)) {
                std::strncpy(out[n].key, k, PMIX_MAX_KEYLEN);
                ++n;
            }
        }
        w.status(n > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND);
        if (n > 0) w.infos(out, n);
        for (auto& i : out) pmix::data::info_destruct(&i);
    } else if (preloaded(proc.rank, key, &v)) {
        w.status(PMIX_SUCCESS).value(v);
    } else {
        w.status(PMIX_ERR_NOT_FOUND);
    }
    pmix::data::value_destruct(&v);
    conn.reply(f, w.take());
}

void FakeServer::on_commit(pmix_rank_t rank, wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    std::size_t n = 0;
    r.size(&n);
    std::vector<Committed> got;
    for (std::size_t i = 0; i < n && r.status_code() == PMIX_SUCCESS; ++i) {
        pmix_scope_t scope = 0;
        pmix_info_t info{};
        r.scope(&scope);
        r.raw(&info, 1, PMIX_INFO);
        std::string printed;
        pmix::data::print(printed, nullptr, &info.value, PMIX_VALUE);
        got.push_back(Committed{scope, info.key, printed, info.value.type});
        pmix::data::info_destruct(&info);
    }
    if (r.finish() != PMIX_SUCCESS) {
        return conn.close("bad commit", wire::CloseKind::bad_frame);
    }
    {
        std::lock_guard lock(mu_);
        auto& mine = commits_[rank];
        mine.insert(mine.end(), got.begin(), got.end());
    }
    reply_status(conn, f, PMIX_SUCCESS);
}

void FakeServer::on_fence(wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    std::vector<pmix_proc_t> procs;
    pmix::data::InfoArray info;
    r.procs(&procs);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        return conn.close("bad fence", wire::CloseKind::bad_frame);
    }
    std::size_t size = 0;
    FenceMode mode = FenceMode::normal;
    {
        std::lock_guard lock(mu_);
        fence_procs_ = procs;
        fence_collects_ = info.flag(PMIX_COLLECT_DATA);
        size = fence_size_;
        mode = fence_mode_;
    }
    if (mode == FenceMode::hang_up) {
        // As if the server died with the fence in flight: every client loses its connection.
        for (auto& w : conns_) {
            if (auto c = w.lock()) c->close("fake server dies mid-fence", wire::CloseKind::local);
        }
        return;
    }
    waiting_.emplace_back(conn.shared_from_this(), f);
    if (waiting_.size() < size) {
        return;
    }
    for (auto& [w, frame] : waiting_) {
        if (auto c = w.lock()) reply_status(*c, frame, PMIX_SUCCESS);
    }
    waiting_.clear();
}

void FakeServer::on_publish(wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    pmix::data::InfoArray info;
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        return conn.close("bad publish", wire::CloseKind::bad_frame);
    }
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < info.size(); ++i) {
        const pmix_value_t& v = info.data()[i].value;
        if (v.type == PMIX_STRING && v.data.string != nullptr) {
            published_[info.data()[i].key] = v.data.string;
        }
    }
    reply_status(conn, f, PMIX_SUCCESS);
}

void FakeServer::on_lookup(wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    std::vector<std::string> keys;
    pmix::data::InfoArray info;
    r.strings(&keys);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        return conn.close("bad lookup", wire::CloseKind::bad_frame);
    }
    std::vector<pmix_pdata_t> found;
    {
        std::lock_guard lock(mu_);
        for (const auto& k : keys) {
            auto it = published_.find(k);
            if (it == published_.end()) continue;
            pmix_pdata_t d{};
            std::strncpy(d.proc.nspace, kNamespace, PMIX_MAX_NSLEN);
            d.proc.rank = 0;
            std::strncpy(d.key, k.c_str(), PMIX_MAX_KEYLEN);
            pmix::data::value_load(&d.value, it->second.c_str(), PMIX_STRING);
            found.push_back(d);
        }
    }
    proto::Writer w;
    w.status(found.empty() ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS);
    if (!found.empty()) w.pdata(found.data(), found.size());
    for (auto& d : found) pmix::data::value_destruct(&d.value);
    conn.reply(f, w.take());
}

namespace {

void send_event(wire::Connection& conn, pmix_status_t status, pmix_rank_t from) {
    pmix_proc_t source{};
    std::strncpy(source.nspace, kNamespace, PMIX_MAX_NSLEN);
    source.rank = from;
    proto::Writer w;
    w.status(status).proc(source).infos(nullptr, 0);
    conn.send(static_cast<std::uint32_t>(Op::kEvent), w.take());
}

}  // namespace

void FakeServer::on_register(wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    std::vector<pmix_status_t> codes;
    pmix::data::InfoArray info;
    r.statuses(&codes);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        return conn.close("bad register", wire::CloseKind::bad_frame);
    }
    reply_status(conn, f, PMIX_SUCCESS);
    if (!codes.empty()) {
        send_event(conn, codes[0], 7);  // at once, so the test sees a delivery
    }
}

void FakeServer::on_notify(wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    pmix_status_t status = 0;
    pmix_proc_t source{};
    pmix_data_range_t range = 0;
    pmix::data::InfoArray info;
    r.status(&status);
    r.proc(&source);
    r.range(&range);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        return conn.close("bad notify", wire::CloseKind::bad_frame);
    }
    reply_status(conn, f, PMIX_SUCCESS);
    send_event(conn, status, source.rank);  // echoed back to the notifier
}

void FakeServer::on_query(wire::Connection& conn, const wire::Frame& f) {
    proto::Reader r(f.payload);
    void* block = nullptr;
    std::size_t n = 0;
    r.array(&block, &n, PMIX_QUERY);
    if (r.finish() != PMIX_SUCCESS) {
        pmix::data::free_elements(block, n, PMIX_QUERY);
        return conn.close("bad query", wire::CloseKind::bad_frame);
    }
    // Answers every key of every query with "answer:<key>".
    std::vector<pmix_info_t> out;
    auto* queries = static_cast<pmix_query_t*>(block);
    for (std::size_t i = 0; i < n; ++i) {
        for (char** k = queries[i].keys; k != nullptr && *k != nullptr; ++k) {
            pmix_info_t info{};
            std::string text = std::string("answer:") + *k;
            pmix::data::info_load(&info, *k, text.c_str(), PMIX_STRING);
            out.push_back(info);
        }
    }
    pmix::data::free_elements(block, n, PMIX_QUERY);
    proto::Writer w;
    w.status(PMIX_SUCCESS).infos(out.data(), out.size());
    for (auto& i : out) pmix::data::info_destruct(&i);
    conn.reply(f, w.take());
}

}  // namespace clienttest
