// client/tool_chain.cpp - see tool_chain.h.
#include "client/tool_chain.h"

#include "base/env_names.h"
#include "data/directives.h"
#include "data/value.h"
#include "wire/tcp_socket.h"

#include <dirent.h>

#include <unistd.h>

#include <cstring>

namespace pmix::client {

namespace {

using PlanResult = pmix::Result<Plan>;

using data::info_true;

const pmix_info_t* find(const pmix_info_t* info, std::size_t n, const char* key) {
    return data::find_info(info, n, key);
}

// A string attribute: nullptr when absent; `bad` set when present but not a usable string.
const char* text(const pmix_info_t* info, std::size_t n, const char* key, bool* bad) {
    const pmix_info_t* i = find(info, n, key);
    if (i == nullptr) return nullptr;
    if (i->value.type != PMIX_STRING || i->value.data.string == nullptr ||
        i->value.data.string[0] == '\0') {
        *bad = true;
        return nullptr;
    }
    return i->value.data.string;
}

bool unsigned_of(const pmix_info_t* i, unsigned long long* out) {
    switch (i->value.type) {
        case PMIX_UINT32:
            *out = i->value.data.uint32;
            return true;
        case PMIX_UINT16:
            *out = i->value.data.uint16;
            return true;
        case PMIX_UINT64:
            *out = i->value.data.uint64;
            return true;
        case PMIX_SIZE:
            *out = i->value.data.size;
            return true;
        case PMIX_PROC_RANK:
            *out = i->value.data.rank;
            return true;
        case PMIX_INT:
            if (i->value.data.integer < 0) return false;
            *out = static_cast<unsigned>(i->value.data.integer);
            return true;
        case PMIX_INT32:
            if (i->value.data.int32 < 0) return false;
            *out = static_cast<unsigned>(i->value.data.int32);
            return true;
        case PMIX_PID:
            if (i->value.data.pid <= 0) return false;
            *out = static_cast<unsigned>(i->value.data.pid);
            return true;
        default:
            return false;
    }
}

// A URI attribute: "file:<path>" reads the URI from a rendezvous file; a tcp4:// URI is
// dialled with the secret from a rendezvous file in `dirs`.
PlanResult uri_target(const char* uri, Plan plan, std::vector<std::string> dirs) {
    static constexpr char kFile[] = "file:";
    if (std::strncmp(uri, kFile, sizeof(kFile) - 1) == 0) {
        plan.targets.push_back({Target::Kind::file, uri + sizeof(kFile) - 1, {}, {}});
    } else {
        plan.targets.push_back({Target::Kind::uri, uri, {}, std::move(dirs)});
    }
    return PlanResult::success(std::move(plan));
}

bool same_tcp_address(const std::string& a, const std::string& b) {
    auto x = wire::parse_tcp_uri(a), y = wire::parse_tcp_uri(b);
    return x.ok() && y.ok() && x.value.ip == y.value.ip && x.value.port == y.value.port;
}

// The rendezvous file in `dirs` of the server listening on `tcp`, to dial it with its secret.
pmix::Result<wire::Rendezvous> server_with_secret(const std::string& tcp,
                                                  const std::vector<std::string>& dirs) {
    for (const auto& dir : dirs) {
        DIR* d = ::opendir(dir.c_str());
        if (d == nullptr) continue;
        std::vector<std::string> names;
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name.rfind("pmix.", 0) == 0 && name.find(".tmp.") == std::string::npos)
                names.push_back(name);
        }
        ::closedir(d);
        for (const auto& name : names) {
            auto r = wire::read_rendezvous(dir + "/" + name);
            if (!r.ok() || r.value.tcp_uri.empty()) continue;
            auto t = wire::parse_uri(r.value.tcp_uri);
            if (t.ok() && same_tcp_address(t.value.socket, tcp)) {
                r.value.socket = t.value.socket;
                return r;
            }
        }
    }
    return pmix::Result<wire::Rendezvous>::failure(
        PMIX_ERR_NO_PERMISSIONS,
        "no readable rendezvous file gives the secret of " + tcp +
            "; give the server's rendezvous file with PMIX_TOOL_ATTACHMENT_FILE");
}

pmix_status_t read_identity(const pmix_info_t* info, std::size_t n, Plan* plan, std::string* why) {
    bool bad = false;
    const char* ns = text(info, n, PMIX_TOOL_NSPACE, &bad);
    if (bad || (ns != nullptr && std::strlen(ns) > PMIX_MAX_NSLEN)) {
        *why = "PMIX_TOOL_NSPACE must be a string of at most 255 characters";
        return PMIX_ERR_BAD_PARAM;
    }
    if (ns != nullptr) {
        plan->identity.nspace = ns;
        plan->identity.rank = 0;  // the Standard's default rank for a named tool
    }
    if (const pmix_info_t* r = find(info, n, PMIX_TOOL_RANK); r != nullptr) {
        unsigned long long v = 0;
        if (!unsigned_of(r, &v) || v > PMIX_RANK_VALID) {
            *why = "PMIX_TOOL_RANK must be a valid rank";
            return PMIX_ERR_BAD_PARAM;
        }
        plan->identity.rank = static_cast<pmix_rank_t>(v);
    }
    plan->self_nspace = ns != nullptr ? ns : local_host_name() + ":" + std::to_string(::getpid());
    return PMIX_SUCCESS;
}

void read_retries(const pmix_info_t* info, std::size_t n, Plan* plan) {
    unsigned long long v = 0;
    if (const pmix_info_t* r = find(info, n, PMIX_CONNECT_MAX_RETRIES); r && unsigned_of(r, &v)) {
        plan->max_retries = static_cast<unsigned>(v > 100000 ? 100000 : v);
    }
    if (const pmix_info_t* d = find(info, n, PMIX_CONNECT_RETRY_DELAY); d && unsigned_of(d, &v)) {
        plan->retry_delay = std::chrono::seconds(v > 3600 ? 3600 : v);
    }
}

}  // namespace

std::string local_host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
    return buf;
}

PlanResult plan_connection(const pmix_info_t* info, std::size_t n) {
    Plan plan;
    std::string why;
    if (pmix_status_t rc = read_identity(info, n, &plan, &why); rc != PMIX_SUCCESS) {
        return PlanResult::failure(rc, why);
    }
    read_retries(info, n, &plan);
    plan.optional = info_true(info, n, PMIX_TOOL_CONNECT_OPTIONAL);
    plan.do_not_connect = info_true(info, n, PMIX_TOOL_DO_NOT_CONNECT);
    bool bad = false;
    const char* host = text(info, n, PMIX_SERVER_HOSTNAME, &bad);
    if (host == nullptr) host = text(info, n, PMIX_HOSTNAME, &bad);
    const std::string h = host != nullptr ? host : local_host_name();
    const char* stmp = text(info, n, PMIX_SERVER_TMPDIR, &bad);
    const char* systmp = text(info, n, PMIX_SYSTEM_TMPDIR, &bad);
    const std::string server_dir = wire::pick_tmpdir(stmp, env::kServerTmpdir);
    const std::string system_dir = wire::pick_tmpdir(systmp, env::kSystemTmpdir);
    const char* attach = text(info, n, PMIX_TOOL_ATTACHMENT_FILE, &bad);
    const char* uri = text(info, n, PMIX_SERVER_URI, &bad);
    const char* tcp = text(info, n, PMIX_TCP_URI, &bad);
    const char* ns = text(info, n, PMIX_SERVER_NSPACE, &bad);
    if (bad)
        return PlanResult::failure(PMIX_ERR_BAD_PARAM,
                                   "a connection attribute is not a non-empty string");
    if (uri != nullptr && tcp != nullptr) {
        return PlanResult::failure(PMIX_ERR_BAD_PARAM,
                                   "PMIX_SERVER_URI and PMIX_TCP_URI are exclusive");
    }
    plan.retry = true;  // steps 1-5 name a server that may still be starting
    if (attach != nullptr) {
        plan.targets.push_back({Target::Kind::file, attach, {}, {}});
        return PlanResult::success(std::move(plan));
    }
    if (uri != nullptr || tcp != nullptr) {
        return uri_target(uri != nullptr ? uri : tcp, std::move(plan), {server_dir, system_dir});
    }
    if (const pmix_info_t* p = find(info, n, PMIX_SERVER_PIDINFO); p != nullptr) {
        unsigned long long pid = 0;
        if (!unsigned_of(p, &pid) || pid == 0 || pid > 0x7fffffff) {
            return PlanResult::failure(PMIX_ERR_BAD_PARAM, "PMIX_SERVER_PIDINFO must be a pid");
        }
        plan.targets.push_back(
            {Target::Kind::file,
             wire::tool_file_by_pid(server_dir, h, static_cast<std::int32_t>(pid)),
             {},
             {}});
        return PlanResult::success(std::move(plan));
    }
    if (ns != nullptr) {
        plan.targets.push_back(
            {Target::Kind::file, wire::tool_file_by_nspace(server_dir, h, ns), {}, {}});
        return PlanResult::success(std::move(plan));
    }
    if (info_true(info, n, PMIX_CONNECT_TO_SYSTEM)) {
        plan.targets.push_back({Target::Kind::file, wire::system_file(system_dir, h), {}, {}});
        return PlanResult::success(std::move(plan));
    }
    plan.retry = false;  // the Standard allows no retries in the search step
    if (info_true(info, n, PMIX_CONNECT_SYSTEM_FIRST)) {
        plan.targets.push_back({Target::Kind::file, wire::system_file(system_dir, h), {}, {}});
    }
    plan.targets.push_back({Target::Kind::search, server_dir, h, {}});
    return PlanResult::success(std::move(plan));
}

std::vector<Target> expand_targets(const std::vector<Target>& targets) {
    std::vector<Target> out;
    for (const auto& t : targets) {
        if (t.kind != Target::Kind::search) {
            out.push_back(t);
            continue;
        }
        for (auto& f : wire::tool_files_in(t.where, t.host)) {
            out.push_back({Target::Kind::file, std::move(f), {}, {}});
        }
    }
    return out;
}

pmix::Result<wire::Rendezvous> resolve_target(const Target& t) {
    if (t.kind == Target::Kind::uri) {
        auto r = wire::parse_uri(t.where);
        if (!r.ok() || !wire::is_tcp_uri(r.value.socket)) return r;
        return server_with_secret(r.value.socket, t.secret_dirs);
    }
    auto r = wire::read_rendezvous(t.where);
    if (!r.ok()) return r;
    const bool elsewhere = !r.value.host.empty() && r.value.host != local_host_name();
    if (elsewhere && !r.value.tcp_uri.empty()) {
        // Another host's server: its Unix socket (even if a shared file system shows it) is
        // not ours to reach, nor is its pid ours to check.
        auto tcp = wire::parse_uri(r.value.tcp_uri);
        if (!tcp.ok()) return pmix::Result<wire::Rendezvous>::failure(tcp.status, tcp.error);
        r.value.socket = tcp.value.socket;
        return r;
    }
    if (!wire::pid_alive(r.value.pid)) {
        return pmix::Result<wire::Rendezvous>::failure(
            PMIX_ERR_UNREACH,
            t.where + " is stale: its server (pid " + std::to_string(r.value.pid) + ") is gone");
    }
    return r;
}

}  // namespace pmix::client
