// tests/unit/server/raw_client.cpp - a client process speaking protocol.h directly over wire, in
// the environment PMIx_server_setup_fork produced. Exit status 0 = the scenario held; any other
// value names the step that failed (the parent prints it).
#include "exec/executor.h"
#include "wire/dial.h"
#include "wire/proto/message.h"

#include <pmix_common.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using pmix::proto::Op;

namespace {

constexpr auto kTimeout = std::chrono::seconds(20);

struct Client {
    pmix::exec::Executor ex{"raw-client"};
    std::shared_ptr<pmix::wire::Connection> conn;
    std::string ns;
    pmix_rank_t rank = 0;
};

pmix::Result<pmix::wire::Frame> call(Client& c, Op op, pmix::proto::Writer& w) {
    return c.conn->call(static_cast<std::uint32_t>(op), w.take(), kTimeout);
}

// Sends and returns the reply's status (or the transport's failure).
pmix_status_t status_of(Client& c, Op op, pmix::proto::Writer& w) {
    auto r = call(c, op, w);
    if (!r.ok()) return r.status;
    pmix::proto::Reader rd(r.value.payload);
    pmix_status_t st = PMIX_ERROR;
    return rd.status(&st) == PMIX_SUCCESS ? st : PMIX_ERR_UNPACK_FAILURE;
}

int connect(Client& c, pmix::wire::Role role) {
    const char* path = std::getenv("PMIX_CPP_SERVER_SOCKET");
    const char* ns = std::getenv("PMIX_NAMESPACE");
    const char* rank = std::getenv("PMIX_RANK");
    if (path == nullptr || ns == nullptr || rank == nullptr) return 2;
    c.ns = ns;
    c.rank = static_cast<pmix_rank_t>(std::atoi(rank));
    if (c.ex.start() != PMIX_SUCCESS) return 3;
    auto d = pmix::wire::dial(c.ex, path,
                              pmix::wire::Hello::for_this_process(
                                  role == pmix::wire::Role::tool ? std::string() : c.ns,
                                  role == pmix::wire::Role::tool ? PMIX_RANK_UNDEF : c.rank, role));
    if (d.status != PMIX_SUCCESS) {
        std::fprintf(stderr, "dial failed: %s\n", d.error.c_str());
        return 4;
    }
    c.conn = d.connection;
    return 0;
}

pmix_status_t commit(Client& c, pmix_scope_t scope, const char* key, const void* data,
                     pmix_data_type_t type) {
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, key, data, type);
    pmix::proto::Writer w;
    w.size(1).scope(scope).raw(&info, 1, PMIX_INFO);
    PMIX_INFO_DESTRUCT(&info);
    return status_of(c, Op::kCommit, w);
}

pmix_status_t fence(Client& c, bool collect) {
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix::proto::Writer w;
    w.procs(nullptr, 0).infos(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return status_of(c, Op::kFence, w);
}

// Gets one key; on success *out holds the value (caller destructs).
pmix_status_t get(Client& c, const char* ns, pmix_rank_t rank, const char* key, bool optional,
                  pmix_value_t* out) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, ns, rank);
    pmix::proto::Writer w;
    w.proc(proc).string(key);
    if (optional) {
        pmix_info_t info;
        bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
        w.infos(&info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else {
        w.infos(nullptr, 0);
    }
    auto r = call(c, Op::kGet, w);
    if (!r.ok()) return r.status;
    pmix::proto::Reader rd(r.value.payload);
    pmix_status_t st = PMIX_ERROR;
    if (rd.status(&st) != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (st != PMIX_SUCCESS) return st;
    PMIX_VALUE_CONSTRUCT(out);
    return rd.value(out) == PMIX_SUCCESS && rd.finish() == PMIX_SUCCESS ? PMIX_SUCCESS
                                                                        : PMIX_ERR_UNPACK_FAILURE;
}

bool get_u32(Client& c, const char* ns, pmix_rank_t rank, const char* key, std::uint32_t want) {
    pmix_value_t v;
    if (get(c, ns, rank, key, false, &v) != PMIX_SUCCESS) return false;
    const bool ok = v.type == PMIX_UINT32 && v.data.uint32 == want;
    PMIX_VALUE_DESTRUCT(&v);
    return ok;
}

int exchange(Client& c) {
    const int n = std::atoi(std::getenv("TEST_NPROCS") ? std::getenv("TEST_NPROCS") : "0");
    const std::uint32_t mine = c.rank * 10 + 7;
    const std::string local = "local-" + std::to_string(c.rank);
    if (commit(c, PMIX_GLOBAL, "test.g", &mine, PMIX_UINT32) != PMIX_SUCCESS) return 10;
    if (commit(c, PMIX_LOCAL, "test.l", local.c_str(), PMIX_STRING) != PMIX_SUCCESS) return 11;
    if (fence(c, true) != PMIX_SUCCESS) return 12;
    for (int r = 0; r < n; ++r) {
        const auto pr = static_cast<pmix_rank_t>(r);
        if (!get_u32(c, c.ns.c_str(), pr, "test.g", pr * 10 + 7)) return 13;
        pmix_value_t v;
        if (get(c, c.ns.c_str(), pr, "test.l", false, &v) != PMIX_SUCCESS) return 14;
        const bool same = v.type == PMIX_STRING && "local-" + std::to_string(r) == v.data.string;
        PMIX_VALUE_DESTRUCT(&v);
        if (!same) return 15;
    }
    pmix_value_t v;
    if (get(c, c.ns.c_str(), c.rank, "no.such.key", true, &v) != PMIX_ERR_NOT_FOUND) return 16;
    if (get(c, c.ns.c_str(), c.rank, PMIX_LOCAL_RANK, false, &v) != PMIX_SUCCESS) return 17;
    const bool lrank_ok = v.type == PMIX_UINT16 && v.data.uint16 == c.rank;
    PMIX_VALUE_DESTRUCT(&v);
    if (!lrank_ok) return 18;
    if (!get_u32(c, c.ns.c_str(), PMIX_RANK_WILDCARD, PMIX_JOB_SIZE,
                 static_cast<std::uint32_t>(n))) {
        return 19;
    }
    if (std::getenv("TEST_REMOTE") != nullptr && !get_u32(c, "remote-ns", 5, "rk", 99)) return 20;
    pmix::proto::Writer unknown;
    unknown.status(PMIX_SUCCESS);
    if (status_of(c, static_cast<Op>(0x1FF), unknown) != PMIX_ERR_NOT_SUPPORTED) return 21;
    pmix::proto::Writer fin;
    if (status_of(c, Op::kFinalize, fin) != PMIX_SUCCESS) return 22;
    return 0;
}

// Remote data through the host's direct modex (see test_live.cpp's host_direct_modex).
int remote_get(Client& c) {
    if (!get_u32(c, "far-ns", 3, "fk", 42)) return 50;
    pmix_value_t v;
    if (get(c, "far-ns", 3, "absent", true, &v) != PMIX_ERR_NOT_FOUND) return 51;  // no upcall
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, "far-ns", 3);
    pmix::proto::Writer w;
    pmix_info_t info;
    int secs = 1;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    w.proc(proc).string("slow").infos(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (status_of(c, Op::kGet, w) != PMIX_ERR_TIMEOUT) return 52;
    pmix::proto::Writer fin;
    return status_of(c, Op::kFinalize, fin) == PMIX_SUCCESS ? 0 : 53;
}

// Host passthrough: publish and log go to the test host, the NULL callbacks answer
// NOT_SUPPORTED, event registration is accepted, and an undecodable-but-known op is not needed.
int host_ops(Client& c) {
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, "pub.key", "pub.value", PMIX_STRING);
    pmix::proto::Writer pub;
    pub.infos(&info, 1);
    if (status_of(c, Op::kPublish, pub) != PMIX_SUCCESS) return 60;
    char key[] = "pub.key";
    char* keys[] = {key};
    pmix::proto::Writer look;
    look.strings(keys, 1).infos(nullptr, 0);
    if (status_of(c, Op::kLookup, look) != PMIX_ERR_NOT_SUPPORTED) return 61;
    pmix::proto::Writer log;
    log.infos(&info, 1).infos(nullptr, 0);
    if (status_of(c, Op::kLog, log) != PMIX_SUCCESS) return 62;
    PMIX_INFO_DESTRUCT(&info);
    pmix::proto::Writer query;
    query.size(0);
    if (status_of(c, Op::kQuery, query) != PMIX_ERR_NOT_SUPPORTED) return 63;
    pmix::proto::Writer conn;  // with a process elsewhere: the host (without connect) is needed
    pmix_proc_t set[2];
    PMIX_LOAD_PROCID(&set[0], c.ns.c_str(), c.rank);
    PMIX_LOAD_PROCID(&set[1], "host-ops.elsewhere", 0);
    conn.procs(set, 2).infos(nullptr, 0);
    if (status_of(c, Op::kConnect, conn) != PMIX_ERR_NOT_SUPPORTED) return 64;
    pmix::proto::Writer empty;
    empty.procs(nullptr, 0).infos(nullptr, 0);
    if (status_of(c, Op::kConnect, empty) != PMIX_ERR_BAD_PARAM) return 68;
    pmix::proto::Writer ev;
    ev.statuses(nullptr, 0).infos(nullptr, 0);
    if (status_of(c, Op::kRegisterEvents, ev) != PMIX_SUCCESS) return 65;
    pmix::proto::Writer ab;
    ab.status(7).string("bye").procs(nullptr, 0);
    if (status_of(c, Op::kAbort, ab) != PMIX_SUCCESS) return 66;
    pmix::proto::Writer fin;
    return status_of(c, Op::kFinalize, fin) == PMIX_SUCCESS ? 0 : 67;
}

// A fence one participant never joins ends with PMIX_ERR_TIMEOUT.
int fence_timeout(Client& c) {
    pmix_info_t info;
    int secs = 1;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix::proto::Writer w;
    w.procs(nullptr, 0).infos(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return status_of(c, Op::kFence, w) == PMIX_ERR_TIMEOUT ? 0 : 70;
}

// Rank 1 asks for rank 0's key before rank 0 (which starts late) commits it: the server holds
// the Get until the commit instead of answering NOT_FOUND.
int wait_peer(Client& c) {
    if (c.rank == 0) {
        usleep(200 * 1000);
        const std::uint32_t v = 1234;
        if (commit(c, PMIX_GLOBAL, "late.k", &v, PMIX_UINT32) != PMIX_SUCCESS) return 80;
    } else if (!get_u32(c, c.ns.c_str(), 0, "late.k", 1234)) {
        return 81;
    }
    if (fence(c, false) != PMIX_SUCCESS) return 82;
    pmix::proto::Writer fin;
    return status_of(c, Op::kFinalize, fin) == PMIX_SUCCESS ? 0 : 83;
}

int garbage(Client& c) {
    const std::uint8_t junk[] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03};
    auto r = c.conn->call(static_cast<std::uint32_t>(Op::kCommit),
                          pmix::wire::Bytes(std::begin(junk), std::end(junk)), kTimeout);
    return r.status == PMIX_ERR_LOST_CONNECTION ? 0 : 30;
}

// Tools that break the attach protocol: any request before kToolAttach, or an attach whose
// payload does not decode, closes the connection (the transport reports it lost).
int tool_rogue(Client& c, bool bad_attach) {
    const std::uint8_t junk[] = {0x01, 0x02, 0x03};
    const Op op = bad_attach ? Op::kToolAttach : Op::kQuery;
    auto r = c.conn->call(static_cast<std::uint32_t>(op),
                          pmix::wire::Bytes(std::begin(junk), std::end(junk)), kTimeout);
    return r.status == PMIX_ERR_LOST_CONNECTION ? 0 : 50;
}

// A tool that says Hello and then nothing: the server keeps it for its attach deadline (10 s),
// then hangs up. Still open after 5 s, closed by 20 s.
int tool_silent(Client& c) {
    const auto start = std::chrono::steady_clock::now();
    while (!c.conn->closed() &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (std::chrono::steady_clock::now() - start < std::chrono::seconds(5) && c.conn->closed())
            return 70;
    }
    return c.conn->closed() ? 0 : 71;
}

// A well-formed attach: the host's hook names the tool; then one query is served.
int tool_attach(Client& c) {
    pmix::proto::Writer w;
    w.infos(nullptr, 0);
    auto r = call(c, Op::kToolAttach, w);
    if (!r.ok()) return 60;
    pmix::proto::Reader rd(r.value.payload);
    pmix_status_t st = PMIX_ERROR;
    pmix_proc_t me{};
    rd.status(&st);
    rd.proc(&me);
    if (rd.finish() != PMIX_SUCCESS || st != PMIX_SUCCESS) return 61;
    if (std::string(me.nspace) != "tool-by-host" || me.rank != 7) return 62;
    pmix::proto::Writer fin;
    return status_of(c, Op::kFinalize, fin) == PMIX_SUCCESS ? 0 : 63;
}

// PMIx_Connect then PMIx_Disconnect over ranks 0..TEST_CONNECT_N-1 of our namespace, listed
// from our own rank on (each caller in another order), with a directive of our own
// ("test.cnct.<rank>") and PMIX_TIMEOUT; `want` is the status both must end with.
int connect_ranks(Client& c, pmix_status_t want) {
    const char* n_env = std::getenv("TEST_CONNECT_N");
    const int n = n_env != nullptr ? std::atoi(n_env) : 1;
    std::vector<pmix_proc_t> procs(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        PMIX_LOAD_PROCID(&procs[static_cast<std::size_t>(i)], c.ns.c_str(),
                         static_cast<pmix_rank_t>((c.rank + i) % n));
    }
    pmix_info_t info[2];
    const std::string key = "test.cnct." + std::to_string(c.rank);
    const std::uint32_t rank = c.rank;
    const int secs = 20;
    PMIX_INFO_LOAD(&info[0], key.c_str(), &rank, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    for (Op op : {Op::kConnect, Op::kDisconnect}) {
        pmix::proto::Writer w;
        w.procs(procs.data(), procs.size()).infos(info, 2);
        if (status_of(c, op, w) != want) return op == Op::kConnect ? 90 : 91;
    }
    pmix::proto::Writer fin;
    return status_of(c, Op::kFinalize, fin) == PMIX_SUCCESS ? 0 : 92;
}

// PMIx_Connect over our whole namespace (PMIX_RANK_WILDCARD) with PMIX_TIMEOUT `secs`; the
// status it must end with.
int connect_wildcard(Client& c, int secs, pmix_status_t want) {
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, c.ns.c_str(), PMIX_RANK_WILDCARD);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix::proto::Writer w;
    w.procs(&job, 1).infos(&info, 1);
    return status_of(c, Op::kConnect, w) == want ? 0 : 93;
}

// PMIx_Connect over us and a process elsewhere with PMIX_TIMEOUT 1 s, which the host holds: the
// server's own timer answers PMIX_ERR_TIMEOUT.
int connect_held(Client& c) {
    pmix_proc_t set[2];
    PMIX_LOAD_PROCID(&set[0], c.ns.c_str(), c.rank);
    PMIX_LOAD_PROCID(&set[1], "connect-test.elsewhere", 0);
    pmix_info_t info;
    const int secs = 1;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix::proto::Writer w;
    w.procs(set, 2).infos(&info, 1);
    return status_of(c, Op::kConnect, w) == PMIX_ERR_TIMEOUT ? 0 : 94;
}

}  // namespace

int run_raw_client(const char* scenario) {
    Client c;
    const std::string s = scenario;
    const bool tool = s.rfind("tool-", 0) == 0;
    if (int rc = connect(c, tool ? pmix::wire::Role::tool : pmix::wire::Role::client); rc != 0) {
        return rc;
    }
    int rc = 99;
    if (s == "exchange") {
        rc = exchange(c);
    } else if (s == "die") {
        _exit(0);  // no finalize, no goodbye
    } else if (s == "fence-expect-lost") {
        rc = fence(c, false) == PMIX_ERR_LOST_CONNECTION ? 0 : 40;
    } else if (s == "wait-until-killed") {
        for (;;) pause();  // connected, never fences: the parent kills us
    } else if (s == "fence-until-killed") {
        fence(c, false);  // the parent kills us while the host holds the fence
        rc = 41;
    } else if (s == "fence-expect-success") {
        pmix::proto::Writer fin;
        rc = fence(c, false) != PMIX_SUCCESS                    ? 42
             : status_of(c, Op::kFinalize, fin) == PMIX_SUCCESS ? 0
                                                                : 43;
    } else if (s == "remote-get") {
        rc = remote_get(c);
    } else if (s == "host-ops") {
        rc = host_ops(c);
    } else if (s == "fence-timeout") {
        rc = fence_timeout(c);
    } else if (s == "wait-peer") {
        rc = wait_peer(c);
    } else if (s == "garbage") {
        rc = garbage(c);
    } else if (s == "connect-ranks") {
        rc = connect_ranks(c, PMIX_SUCCESS);
    } else if (s == "connect-timeout") {
        rc = connect_wildcard(c, 1, PMIX_ERR_TIMEOUT);
    } else if (s == "connect-held") {
        rc = connect_held(c);
    } else if (s == "connect-expect-lost") {
        rc = connect_wildcard(c, 20, PMIX_ERR_LOST_CONNECTION);
    } else if (s == "tool-early-request") {
        rc = tool_rogue(c, false);
    } else if (s == "tool-bad-attach") {
        rc = tool_rogue(c, true);
    } else if (s == "tool-attach") {
        rc = tool_attach(c);
    } else if (s == "tool-silent") {
        rc = tool_silent(c);
    }
    if (c.conn) c.conn->close();
    c.ex.stop();
    return rc;
}
