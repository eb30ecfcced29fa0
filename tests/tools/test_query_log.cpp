// tests/tools/test_query_log.cpp - PMIx_Query_info and PMIx_Log from a tool, answered by the
// library where the host (tool_host) has no query or log callback, and AVAIL_SERVERS answered in
// the tool's own process.
#include "host_process.h"

#include <pmix_tool.h>

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>

namespace {

using tooltest::HostProcess;
using tooltest::ScratchDir;

std::string nspace_text(const pmix_proc_t& p) {
    return std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN));
}

// A query with its own storage.
struct Query {
    pmix_query_t q;
    std::vector<char*> keys;
    std::vector<pmix_info_t> quals;
    Query(std::initializer_list<const char*> ks, const std::string& nspace = "",
          const std::string& tmpdir = "") {
        PMIX_QUERY_CONSTRUCT(&q);
        for (const char* k : ks) keys.push_back(const_cast<char*>(k));
        keys.push_back(nullptr);
        q.keys = keys.data();
        if (!nspace.empty()) {
            quals.emplace_back();
            PMIX_INFO_LOAD(&quals.back(), PMIX_NSPACE, nspace.c_str(), PMIX_STRING);
        }
        if (!tmpdir.empty()) {
            quals.emplace_back();
            PMIX_INFO_LOAD(&quals.back(), PMIX_SERVER_TMPDIR, tmpdir.c_str(), PMIX_STRING);
        }
        q.qualifiers = quals.empty() ? nullptr : quals.data();
        q.nqual = quals.size();
    }
    ~Query() {
        for (auto& i : quals) PMIX_INFO_DESTRUCT(&i);
    }
};

struct Results {
    pmix_info_t* info = nullptr;
    size_t n = 0;
    ~Results() {
        if (info != nullptr) PMIX_INFO_FREE(info, n);
    }
    const pmix_info_t* find(const char* key) const {
        for (size_t i = 0; i < n; ++i)
            if (PMIX_CHECK_KEY(&info[i], key)) return &info[i];
        return nullptr;
    }
};

class ToolQueryLog : public ::testing::Test {
protected:
    void SetUp() override {
        host = std::make_unique<HostProcess>(std::vector<std::string>{"--tmpdir", dir.path()});
        ASSERT_TRUE(host->wait_ready());
        pmix_info_t where;
        PMIX_INFO_LOAD(&where, PMIX_SERVER_TMPDIR, dir.path().c_str(), PMIX_STRING);
        ASSERT_EQ(PMIx_tool_init(&me, &where, 1), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&where);
        inited = true;
    }
    void TearDown() override {
        if (inited) {
            EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
        }
    }
    pmix_status_t log(std::vector<std::pair<const char*, std::string>> data,
                      std::vector<const char*> flags = {}) {
        std::vector<pmix_info_t> d(data.size()), f(flags.size());
        for (size_t i = 0; i < data.size(); ++i)
            PMIX_INFO_LOAD(&d[i], data[i].first, data[i].second.c_str(), PMIX_STRING);
        bool yes = true;
        for (size_t i = 0; i < flags.size(); ++i) PMIX_INFO_LOAD(&f[i], flags[i], &yes, PMIX_BOOL);
        pmix_status_t rc = PMIx_Log(d.data(), d.size(), f.empty() ? nullptr : f.data(), f.size());
        for (auto& i : d) PMIX_INFO_DESTRUCT(&i);
        for (auto& i : f) PMIX_INFO_DESTRUCT(&i);
        return rc;
    }
    ScratchDir dir;
    std::unique_ptr<HostProcess> host;
    pmix_proc_t me{};
    bool inited = false;
};

TEST_F(ToolQueryLog, NamespacesAndProcTablesFromTheRegistration) {
    const std::string job = host->nspace() + ".job";
    Query q({PMIX_QUERY_NAMESPACES});
    Results r;
    ASSERT_EQ(PMIx_Query_info(&q.q, 1, &r.info, &r.n), PMIX_SUCCESS);
    ASSERT_NE(r.find(PMIX_QUERY_NAMESPACES), nullptr);
    EXPECT_STREQ(r.find(PMIX_QUERY_NAMESPACES)->value.data.string, job.c_str());
    for (const char* key : {PMIX_QUERY_PROC_TABLE, PMIX_QUERY_LOCAL_PROC_TABLE}) {
        Query t({key}, job);
        Results tr;
        ASSERT_EQ(PMIx_Query_info(&t.q, 1, &tr.info, &tr.n), PMIX_SUCCESS) << key;
        const pmix_info_t* table = tr.find(key);
        ASSERT_NE(table, nullptr) << key;
        ASSERT_EQ(table->value.type, PMIX_DATA_ARRAY);
        ASSERT_EQ(table->value.data.darray->type, PMIX_PROC_INFO);
        ASSERT_EQ(table->value.data.darray->size, 2u);
        auto* rows = static_cast<pmix_proc_info_t*>(table->value.data.darray->array);
        for (pmix_rank_t i = 0; i < 2; ++i) {
            EXPECT_EQ(nspace_text(rows[i].proc), job);
            EXPECT_EQ(rows[i].proc.rank, i);
            EXPECT_EQ(rows[i].state, PMIX_PROC_STATE_PREPPED) << "registered, never started";
            EXPECT_EQ(rows[i].pid, 0);
        }
    }
    Query unknown({PMIX_QUERY_PROC_TABLE}, "no-such-job");
    Results ur;
    EXPECT_NE(PMIx_Query_info(&unknown.q, 1, &ur.info, &ur.n), PMIX_SUCCESS);
}

TEST_F(ToolQueryLog, AvailableServersAreAnsweredInTheToolAndMergedWithServerAnswers) {
    HostProcess second({"--tmpdir", dir.path()});
    ASSERT_TRUE(second.wait_ready());
    Query q({PMIX_QUERY_AVAIL_SERVERS, PMIX_QUERY_NAMESPACES}, "", dir.path());
    Results r;
    ASSERT_EQ(PMIx_Query_info(&q.q, 1, &r.info, &r.n), PMIX_SUCCESS);
    ASSERT_NE(r.find(PMIX_QUERY_NAMESPACES), nullptr);
    const pmix_info_t* avail = r.find(PMIX_QUERY_AVAIL_SERVERS);
    ASSERT_NE(avail, nullptr);
    ASSERT_EQ(avail->value.type, PMIX_DATA_ARRAY);
    std::set<std::string> seen;
    auto* servers = static_cast<pmix_info_t*>(avail->value.data.darray->array);
    for (size_t i = 0; i < avail->value.data.darray->size; ++i) {
        ASSERT_TRUE(PMIX_CHECK_KEY(&servers[i], PMIX_SERVER_INFO_ARRAY));
        auto* fields = static_cast<pmix_info_t*>(servers[i].value.data.darray->array);
        for (size_t k = 0; k < servers[i].value.data.darray->size; ++k)
            if (PMIX_CHECK_KEY(&fields[k], PMIX_SERVER_NSPACE))
                seen.insert(fields[k].value.data.string);
    }
    EXPECT_EQ(seen, (std::set<std::string>{host->nspace(), second.nspace()}));
}

TEST_F(ToolQueryLog, LogToStdoutOnceTaggedAndUnsupportedChannels) {
    ASSERT_EQ(log({{PMIX_LOG_STDOUT, "plain line"}}), PMIX_SUCCESS);
    EXPECT_EQ(host->wait_line("plain line"), "plain line");
    ASSERT_EQ(log({{PMIX_LOG_STDERR, "error line"}}), PMIX_SUCCESS);
    EXPECT_EQ(host->wait_line("error line"), "error line");
    ASSERT_EQ(log({{PMIX_LOG_STDOUT, "first"}, {PMIX_LOG_STDOUT, "second"}}, {PMIX_LOG_ONCE}),
              PMIX_SUCCESS);
    EXPECT_EQ(host->wait_line("first"), "first");
    ASSERT_EQ(log({{PMIX_LOG_STDOUT, "tagged"}}, {PMIX_LOG_TAG_OUTPUT}), PMIX_SUCCESS);
    EXPECT_EQ(host->wait_line("["), "[" + nspace_text(me) + ",0] tagged");
    EXPECT_EQ(log({{PMIX_LOG_EMAIL, "nobody reads this"}}), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(log({{PMIX_LOG_STDOUT, "half"}, {PMIX_LOG_EMAIL, "x"}}), PMIX_ERR_PARTIAL_SUCCESS);
    EXPECT_EQ(host->wait_line("half"), "half");
    EXPECT_TRUE(host->wait_line("second", std::chrono::seconds(1)).empty())
        << "PMIX_LOG_ONCE logged twice";
}

// PMIX_LOG_TIMESTAMP (the caller's time) and PMIX_LOG_GENERATE_TIMESTAMP (the library's) put a
// local "YYYY-MM-DDTHH:MM:SS " before the entry.
TEST_F(ToolQueryLog, LogTimestampsGivenOrGenerated) {
    pmix_info_t entry, when;
    PMIX_INFO_LOAD(&entry, PMIX_LOG_STDOUT, "stamped", PMIX_STRING);
    const time_t t = 1700000000;  // 2023-11-14T22:13:20Z
    PMIX_INFO_LOAD(&when, PMIX_LOG_TIMESTAMP, &t, PMIX_TIME);
    ASSERT_EQ(PMIx_Log(&entry, 1, &when, 1), PMIX_SUCCESS);
    char expect[64];
    tm local{};
    localtime_r(&t, &local);
    strftime(expect, sizeof expect, "%Y-%m-%dT%H:%M:%S stamped", &local);
    EXPECT_EQ(host->wait_line(std::string(expect).substr(0, 4)), expect);
    PMIX_INFO_DESTRUCT(&entry);
    PMIX_INFO_DESTRUCT(&when);
    const time_t before = time(nullptr);
    ASSERT_EQ(log({{PMIX_LOG_STDOUT, "generated"}}, {PMIX_LOG_GENERATE_TIMESTAMP}), PMIX_SUCCESS);
    const std::string line = host->wait_line(std::to_string(1900 + localtime(&before)->tm_year));
    ASSERT_EQ(line.size(), 20u + 9u) << line;
    EXPECT_EQ(line.substr(20), "generated");
    tm parsed{};
    ASSERT_NE(strptime(line.c_str(), "%Y-%m-%dT%H:%M:%S", &parsed), nullptr) << line;
    parsed.tm_isdst = -1;
    EXPECT_LE(std::abs(mktime(&parsed) - before), 5) << line;
}

TEST(ToolLogSyslog, SyslogEntriesReachTheSyslogSocket) {
    ScratchDir dir;
    const std::string path = dir.path() + "/log.sock";
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    setenv("PMIX_CPP_SYSLOG_SOCKET", path.c_str(), 1);  // inherited by the host
    HostProcess host({"--tmpdir", dir.path()});
    unsetenv("PMIX_CPP_SYSLOG_SOCKET");
    ASSERT_TRUE(host.wait_ready());
    pmix_info_t where;
    PMIX_INFO_LOAD(&where, PMIX_SERVER_TMPDIR, dir.path().c_str(), PMIX_STRING);
    pmix_proc_t me;
    ASSERT_EQ(PMIx_tool_init(&me, &where, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&where);
    pmix_info_t entry, pri;
    PMIX_INFO_LOAD(&entry, PMIX_LOG_SYSLOG, "to syslog", PMIX_STRING);
    int err = 3;  // LOG_ERR
    PMIX_INFO_LOAD(&pri, PMIX_LOG_SYSLOG_PRI, &err, PMIX_INT);
    EXPECT_EQ(PMIx_Log(&entry, 1, &pri, 1), PMIX_SUCCESS);
    char buf[512] = {};
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    const ssize_t got = recv(fd, buf, sizeof(buf) - 1, 0);
    ASSERT_GT(got, 0);
    const std::string msg(buf, static_cast<size_t>(got));
    EXPECT_EQ(msg.rfind("<11>", 0), 0u) << msg;  // LOG_USER | LOG_ERR
    EXPECT_NE(msg.find("to syslog"), std::string::npos) << msg;
    PMIX_INFO_DESTRUCT(&entry);
    PMIX_INFO_DESTRUCT(&pri);
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
    close(fd);
}

// PMIX_QUERY_ATTRIBUTE_SUPPORT is answered in the caller's process: no server needed.
struct AttrQuery {
    pmix_query_t q;
    char* keys[2] = {const_cast<char*>(PMIX_QUERY_ATTRIBUTE_SUPPORT), nullptr};
    pmix_info_t qual;
    AttrQuery(const char* level, const char* functions) {
        PMIX_QUERY_CONSTRUCT(&q);
        q.keys = keys;
        PMIX_INFO_LOAD(&qual, level, functions, PMIX_STRING);
        q.qualifiers = &qual;
        q.nqual = 1;
    }
    ~AttrQuery() { PMIX_INFO_DESTRUCT(&qual); }
};

// The entries (function -> attributes, or level -> function list) of one answer.
const pmix_info_t* entry(const Results& r, const char* key, size_t* n = nullptr) {
    const pmix_info_t* top = r.find(PMIX_QUERY_ATTRIBUTE_SUPPORT);
    if (top == nullptr || top->value.type != PMIX_DATA_ARRAY) return nullptr;
    auto* items = static_cast<pmix_info_t*>(top->value.data.darray->array);
    for (size_t i = 0; i < top->value.data.darray->size; ++i) {
        if (PMIX_CHECK_KEY(&items[i], key)) {
            if (n != nullptr && items[i].value.type == PMIX_DATA_ARRAY)
                *n = items[i].value.data.darray->size;
            return &items[i];
        }
    }
    return nullptr;
}

TEST(ToolAttributeSupport, FunctionsAndTheirAttributesWithoutAServer) {
    pmix_info_t alone;
    bool yes = true;
    PMIX_INFO_LOAD(&alone, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    pmix_proc_t me;
    ASSERT_EQ(PMIx_tool_init(&me, &alone, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&alone);
    {
        AttrQuery q(PMIX_CLIENT_ATTRIBUTES, "PMIx_Get,PMIx_Fence");
        Results r;
        ASSERT_EQ(PMIx_Query_info(&q.q, 1, &r.info, &r.n), PMIX_SUCCESS);
        size_t n = 0;
        const pmix_info_t* get = entry(r, "PMIx_Get", &n);
        ASSERT_NE(get, nullptr);
        ASSERT_EQ(get->value.data.darray->type, PMIX_REGATTR);
        auto* attrs = static_cast<pmix_regattr_t*>(get->value.data.darray->array);
        bool timeout = false;
        for (size_t i = 0; i < n; ++i) {
            if (std::string(attrs[i].name) == "PMIX_TIMEOUT") {
                timeout = true;
                EXPECT_STREQ(attrs[i].string, PMIX_TIMEOUT);
                EXPECT_EQ(attrs[i].type, PMIX_INT);
            }
        }
        EXPECT_TRUE(timeout);
        EXPECT_NE(entry(r, "PMIx_Fence"), nullptr);
        EXPECT_EQ(entry(r, "PMIx_Init"), nullptr) << "only the functions asked for";
    }
    {
        AttrQuery q(PMIX_TOOL_FUNCTIONS, "");
        Results r;
        ASSERT_EQ(PMIx_Query_info(&q.q, 1, &r.info, &r.n), PMIX_SUCCESS);
        const pmix_info_t* fns = entry(r, PMIX_TOOL_FUNCTIONS);
        ASSERT_NE(fns, nullptr);
        EXPECT_NE(std::string(fns->value.data.string).find("PMIx_tool_init"), std::string::npos);
    }
    {
        AttrQuery q("pmix.setup.env",
                    "PMIx_tool_set_server");  // the Standard's PMIX_TOOL_ATTRIBUTES
        Results r;
        ASSERT_EQ(PMIx_Query_info(&q.q, 1, &r.info, &r.n), PMIX_SUCCESS);
        EXPECT_NE(entry(r, "PMIx_tool_set_server"), nullptr);
    }
    // Every listed attribute is a real one: its key string comes from the dictionary.
    for (const char* level :
         {PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_ATTRIBUTES, PMIX_TOOL_ATTRIBUTES}) {
        AttrQuery q(level, "all");
        Results r;
        ASSERT_EQ(PMIx_Query_info(&q.q, 1, &r.info, &r.n), PMIX_SUCCESS) << level;
        const pmix_info_t* top = r.find(PMIX_QUERY_ATTRIBUTE_SUPPORT);
        auto* fns = static_cast<pmix_info_t*>(top->value.data.darray->array);
        for (size_t f = 0; f < top->value.data.darray->size; ++f) {
            auto* attrs = static_cast<pmix_regattr_t*>(fns[f].value.data.darray->array);
            for (size_t a = 0; a < fns[f].value.data.darray->size; ++a) {
                EXPECT_NE(attrs[a].string[0], '\0')
                    << fns[f].key << ": " << attrs[a].name << " is unknown";
            }
        }
    }
    AttrQuery host(PMIX_HOST_ATTRIBUTES, "all");
    Results none;
    EXPECT_EQ(PMIx_Query_info(&host.q, 1, &none.info, &none.n), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
}

// The host level: registered by the host in its server process with PMIx_Register_attributes,
// answered by that server to a connected tool, alone or next to other levels and other keys.
TEST(ToolAttributeSupport, HostRegistrationsReachToolsThroughTheServer) {
    ScratchDir dir;
    HostProcess host({"--tmpdir", dir.path(), "--register-attributes"});
    ASSERT_TRUE(host.wait_ready());
    EXPECT_NE(std::find(host.lines().begin(), host.lines().end(),
                        "REGATTR 0 0 repeat=" + std::to_string(PMIX_ERR_REPEAT_ATTR_REGISTRATION) +
                            " null=" + std::to_string(PMIX_ERR_BAD_PARAM)),
              host.lines().end());
    tooltest::Infos init;
    init.str(PMIX_SERVER_TMPDIR, dir.path()).pid(host.pid());
    pmix_proc_t me;
    ASSERT_EQ(PMIx_tool_init(&me, init.data(), init.size()), PMIX_SUCCESS);
    {
        AttrQuery q(PMIX_HOST_ATTRIBUTES, "allocate");
        Results r;
        ASSERT_EQ(PMIx_Query_info(&q.q, 1, &r.info, &r.n), PMIX_SUCCESS);
        size_t n = 0;
        const pmix_info_t* alloc = entry(r, "allocate", &n);
        ASSERT_NE(alloc, nullptr);
        ASSERT_EQ(n, 2u);
        auto* attrs = static_cast<pmix_regattr_t*>(alloc->value.data.darray->array);
        EXPECT_STREQ(attrs[0].name, "PMIX_TIMEOUT");
        EXPECT_STREQ(attrs[0].string, PMIX_TIMEOUT);
        EXPECT_STREQ(attrs[1].name, "PMIX_ALLOC_NUM_NODES");
        EXPECT_STREQ(attrs[1].string, PMIX_ALLOC_NUM_NODES);
        EXPECT_EQ(entry(r, "query"), nullptr) << "only the function asked for";
    }
    {
        // Host functions, a library level and the host level in one query, next to another key
        // that the server's library answers (this host has no query callback).
        pmix_query_t q[2];
        PMIX_QUERY_CONSTRUCT(&q[0]);
        PMIX_QUERY_CONSTRUCT(&q[1]);
        char* attr_key[] = {const_cast<char*>(PMIX_QUERY_ATTRIBUTE_SUPPORT), nullptr};
        char* ns_key[] = {const_cast<char*>(PMIX_QUERY_NAMESPACES), nullptr};
        pmix_info_t quals[3];
        PMIX_INFO_LOAD(&quals[0], PMIX_HOST_FUNCTIONS, "", PMIX_STRING);
        PMIX_INFO_LOAD(&quals[1], PMIX_CLIENT_ATTRIBUTES, "PMIx_Get", PMIX_STRING);
        PMIX_INFO_LOAD(&quals[2], PMIX_HOST_ATTRIBUTES, "query", PMIX_STRING);
        q[0].keys = attr_key;
        q[0].qualifiers = quals;
        q[0].nqual = 3;
        q[1].keys = ns_key;
        Results r;
        ASSERT_EQ(PMIx_Query_info(q, 2, &r.info, &r.n), PMIX_SUCCESS);
        const pmix_info_t* fns = entry(r, PMIX_HOST_FUNCTIONS);
        ASSERT_NE(fns, nullptr);
        EXPECT_STREQ(fns->value.data.string, "allocate,query");
        EXPECT_NE(entry(r, "PMIx_Get"), nullptr);
        size_t n = 0;
        const pmix_info_t* query = entry(r, "query", &n);
        ASSERT_NE(query, nullptr);
        ASSERT_EQ(n, 2u);
        auto* attrs = static_cast<pmix_regattr_t*>(query->value.data.darray->array);
        EXPECT_STREQ(attrs[1].name, "pmix.not.a.known.attribute");  // kept as the host gave it
        EXPECT_EQ(attrs[1].string[0], '\0');
        const pmix_info_t* names = r.find(PMIX_QUERY_NAMESPACES);
        ASSERT_NE(names, nullptr);
        EXPECT_NE(std::string(names->value.data.string).find(host.nspace() + ".job"),
                  std::string::npos);
        for (auto& i : quals) PMIX_INFO_DESTRUCT(&i);
    }
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
}

}  // namespace
