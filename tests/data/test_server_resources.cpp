// The server's side of item 5 through the public API, with a host of its own:
// - PMIx_server_collect_inventory: this node's real inventory (host name, memory, the network
//   devices the kernel lists with a device behind them), delivered after the call returns;
// - PMIx_server_deliver_inventory, register_resources / deregister_resources: registered keys
//   readable as job-level data of namespaces registered afterwards (the host's own PMIx_Get),
//   gone for those registered after deregistration;
// - the host's fabric and allocate upcalls, reached by a real client (resources_client --fabric):
//   its directives arrive, the host's answer fills the client's pmix_fabric_t, update names the
//   fabric by the index register returned;
// - bad input: clear errors, no callback.
#include <pmix.h>
#include "../support/public_server.h"

#include <pmix_server.h>

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#ifndef RESOURCES_CLIENT
#error "RESOURCES_CLIENT: path of resources_client"
#endif

namespace {

std::thread::id g_test_thread;  // upcalls must come from the server's thread, never the test's

struct Upcalls {
    std::mutex mu;
    std::vector<std::thread::id> upcall_threads;
    std::vector<int> fabric_ops;
    std::vector<std::string> fabric_dirs;  // "key=value" of string / size directives
    std::vector<int> alloc_directives;
    uint64_t alloc_nodes = 0;
};
Upcalls g_up;

struct Answer {
    pmix_info_t info[3];
    size_t n = 0;
};
void release_answer(void* cbdata) {
    auto* a = static_cast<Answer*>(cbdata);
    for (size_t i = 0; i < a->n; ++i) PMIX_INFO_DESTRUCT(&a->info[i]);
    delete a;
}

std::string describe(const pmix_info_t& i) {
    if (i.value.type == PMIX_STRING) return std::string(i.key) + "=" + i.value.data.string;
    if (i.value.type == PMIX_SIZE)
        return std::string(i.key) + "=" + std::to_string(i.value.data.size);
    return i.key;
}

pmix_status_t host_fabric(const pmix_proc_t*, pmix_fabric_operation_t op, const pmix_info_t dirs[],
                          size_t ndirs, pmix_info_cbfunc_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_up.mu);
        g_up.upcall_threads.push_back(std::this_thread::get_id());
        g_up.fabric_ops.push_back(op);
        for (size_t i = 0; i < ndirs; ++i) g_up.fabric_dirs.push_back(describe(dirs[i]));
    }
    auto* a = new Answer;
    const size_t index = 7, devices = op == PMIX_FABRIC_REQUEST_INFO ? 3 : 4;
    PMIX_INFO_LOAD(&a->info[0], PMIX_FABRIC_VENDOR, "test-vendor", PMIX_STRING);
    PMIX_INFO_LOAD(&a->info[1], PMIX_FABRIC_INDEX, &index, PMIX_SIZE);
    PMIX_INFO_LOAD(&a->info[2], PMIX_FABRIC_NUM_DEVICES, &devices, PMIX_SIZE);
    a->n = 3;
    std::thread([a, cbfunc, cbdata] {
        cbfunc(PMIX_SUCCESS, a->info, a->n, cbdata, release_answer, a);
    }).detach();
    return PMIX_SUCCESS;
}

pmix_status_t host_allocate(const pmix_proc_t*, pmix_alloc_directive_t directive,
                            const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
                            void* cbdata) {
    {
        std::lock_guard lock(g_up.mu);
        g_up.upcall_threads.push_back(std::this_thread::get_id());
        g_up.alloc_directives.push_back(directive);
        for (size_t i = 0; i < ndata; ++i)
            if (PMIX_CHECK_KEY(&data[i], PMIX_ALLOC_NUM_NODES))
                g_up.alloc_nodes = data[i].value.data.uint64;
    }
    auto* a = new Answer;
    PMIX_INFO_LOAD(&a->info[0], PMIX_ALLOC_ID, "host-alloc-1", PMIX_STRING);
    a->n = 1;
    std::thread([a, cbfunc, cbdata] {
        cbfunc(PMIX_SUCCESS, a->info, a->n, cbdata, release_answer, a);
    }).detach();
    return PMIX_SUCCESS;
}

struct Wait {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread::id caller = std::this_thread::get_id();
    bool inside = false;  // the callback ran on the thread that made the call
    pmix_status_t status = PMIX_ERROR;
    std::vector<pmix_info_t> info;
    bool wait() {
        std::unique_lock lock(mu);
        return cv.wait_for(lock, std::chrono::seconds(10), [&] { return done; });
    }
};

void info_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void* cbdata,
             pmix_release_cbfunc_t release, void* release_data) {
    auto* w = static_cast<Wait*>(cbdata);
    {
        std::lock_guard lock(w->mu);
        w->inside = std::this_thread::get_id() == w->caller;
        w->status = status;
        for (size_t i = 0; i < ninfo; ++i) PMIx_Info_xfer(&w->info.emplace_back(), &info[i]);
        w->done = true;
        // Under the lock: the waiter may destroy `w` as soon as it sees `done`.
        w->cv.notify_all();
    }
    if (release != nullptr) release(release_data);
}

void op_cb(pmix_status_t status, void* cbdata) {
    auto* w = static_cast<Wait*>(cbdata);
    {
        std::lock_guard lock(w->mu);
        w->inside = std::this_thread::get_id() == w->caller;
        w->status = status;
        w->done = true;
        w->cv.notify_all();  // under the lock, as above
    }
}

// The network interfaces with a device behind them: what hwloc reports as network OS devices.
std::set<std::string> kernel_nics() {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator("/sys/class/net")) {
        if (std::filesystem::exists(e.path() / "device")) out.insert(e.path().filename().string());
    }
    return out;
}

class ServerResources : public ::testing::Test {
protected:
    void SetUp() override {
        g_test_thread = std::this_thread::get_id();
        {
            std::lock_guard lock(g_up.mu);
            g_up.upcall_threads.clear();
            g_up.fabric_ops.clear();
            g_up.fabric_dirs.clear();
            g_up.alloc_directives.clear();
            g_up.alloc_nodes = 0;
        }
        char tmpl[] = "/tmp/pmix-res.XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_SERVER_TMPDIR, dir_.c_str(), PMIX_STRING);
        pmix_server_module_t module;
        std::memset(&module, 0, sizeof module);
        module.fabric = host_fabric;
        module.allocate = host_allocate;
        const pmix_status_t rc = PMIx_server_init(&module, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
        ASSERT_EQ(rc, PMIX_SUCCESS);
        char host[HOST_NAME_MAX + 1] = {};
        ::gethostname(host, sizeof host - 1);
        host_ = host;
    }
    void TearDown() override {
        PMIx_server_finalize();
        std::filesystem::remove_all(dir_);
    }
    pmix_status_t register_ns(const char* ns) {
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, host_.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, "0", PMIX_STRING);
        const pmix_status_t rc = PMIx_server_register_nspace(ns, 1, info, 2, nullptr, nullptr);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        return rc;
    }
    // The host's own Get of a job-level key of `ns`; its string, or the status as text.
    static std::string job_string(const char* ns, const char* key) {
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, ns, PMIX_RANK_WILDCARD);
        pmix_value_t* v = nullptr;
        const pmix_status_t rc = PMIx_Get(&job, key, nullptr, 0, &v);
        if (rc != PMIX_SUCCESS) return PMIx_Error_string(rc);
        std::string out = v->type == PMIX_STRING ? v->data.string : "(not a string)";
        PMIX_VALUE_RELEASE(v);
        return out;
    }
    std::string run_client(const char* ns, const char* mode);
    std::string dir_, host_;
};

std::string ServerResources::run_client(const char* ns, const char* mode) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, 0);
    if (PMIx_server_register_client(&p, ::getuid(), ::getgid(), nullptr, nullptr, nullptr) !=
        PMIX_SUCCESS)
        return "register_client failed";
    char** env = nullptr;
    if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS) return "setup_fork failed";
    std::string prog = RESOURCES_CLIENT, arg = mode;
    char* argv[] = {prog.data(), arg.data(), nullptr};
    const std::string text = pmix_test::run_captured(argv, env, std::chrono::seconds(30));
    PMIx_server_deregister_client(&p, nullptr, nullptr);
    return text;
}

const pmix_info_t* find(const std::vector<pmix_info_t>& v, const char* key) {
    for (const auto& i : v)
        if (PMIX_CHECK_KEY(&i, key)) return &i;
    return nullptr;
}

TEST_F(ServerResources, CollectInventoryReportsThisNode) {
    Wait w;
    ASSERT_EQ(PMIx_server_collect_inventory(nullptr, 0, info_cb, &w), PMIX_SUCCESS);
    ASSERT_TRUE(w.wait());
    EXPECT_FALSE(w.inside) << "the callback ran inside the host's call";
    ASSERT_EQ(w.status, PMIX_SUCCESS);
    const pmix_info_t* host = find(w.info, PMIX_HOSTNAME);
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(std::string(host->value.data.string), host_);
    const pmix_info_t* mem = find(w.info, PMIX_AVAIL_PHYS_MEMORY);
    ASSERT_NE(mem, nullptr);
    double kernel = 0;  // MemTotal, kB
    FILE* f = std::fopen("/proc/meminfo", "r");
    ASSERT_NE(f, nullptr);
    char line[256];
    while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::sscanf(line, "MemTotal: %lf kB", &kernel) == 1) break;
    std::fclose(f);
    EXPECT_NEAR(static_cast<double>(mem->value.data.uint64), kernel * 1024, kernel * 1024 * 0.01);
    std::set<std::string> names;
    if (const pmix_info_t* devs = find(w.info, PMIX_FABRIC_DEVICES)) {
        ASSERT_EQ(devs->value.type, PMIX_DATA_ARRAY);
        const auto* arr = devs->value.data.darray;
        ASSERT_EQ(arr->type, PMIX_INFO);
        const auto* entries = static_cast<const pmix_info_t*>(arr->array);
        for (size_t i = 0; i < arr->size; ++i) {
            ASSERT_TRUE(PMIX_CHECK_KEY(&entries[i], PMIX_FABRIC_DEVICE));
            const auto* fields =
                static_cast<const pmix_info_t*>(entries[i].value.data.darray->array);
            std::string name, type;
            for (size_t k = 0; k < entries[i].value.data.darray->size; ++k) {
                if (PMIX_CHECK_KEY(&fields[k], PMIX_FABRIC_DEVICE_NAME))
                    name = fields[k].value.data.string;
                if (PMIX_CHECK_KEY(&fields[k], PMIX_FABRIC_DEVICE_TYPE))
                    type = fields[k].value.data.string;
            }
            if (type == "network") names.insert(name);
        }
    }
    EXPECT_EQ(names, kernel_nics());
    for (auto& i : w.info) PMIX_INFO_DESTRUCT(&i);
}

TEST_F(ServerResources, RegisteredResourcesReachLaterJobs) {
    pmix_info_t res[2];
    PMIX_INFO_LOAD(&res[0], "test.res.switch", "sw-17", PMIX_STRING);
    PMIX_INFO_LOAD(&res[1], "test.res.rack", "r4", PMIX_STRING);
    ASSERT_EQ(register_ns("res.before"), PMIX_SUCCESS);
    Wait w;
    ASSERT_EQ(PMIx_server_register_resources(res, 2, op_cb, &w), PMIX_SUCCESS);
    ASSERT_TRUE(w.wait());
    EXPECT_FALSE(w.inside);
    EXPECT_EQ(w.status, PMIX_SUCCESS);
    ASSERT_EQ(register_ns("res.after"), PMIX_SUCCESS);
    EXPECT_EQ(job_string("res.after", "test.res.switch"), "sw-17");
    EXPECT_EQ(job_string("res.after", "test.res.rack"), "r4");
    EXPECT_EQ(job_string("res.before", "test.res.switch"), "NOT-FOUND");  // as OpenPMIx: later jobs
    // Blocking form: done when it returns.
    EXPECT_EQ(PMIx_server_deregister_resources(&res[1], 1, nullptr, nullptr),
              PMIX_OPERATION_SUCCEEDED);
    ASSERT_EQ(register_ns("res.later"), PMIX_SUCCESS);
    EXPECT_EQ(job_string("res.later", "test.res.switch"), "sw-17");
    EXPECT_EQ(job_string("res.later", "test.res.rack"), "NOT-FOUND");
    EXPECT_EQ(job_string("res.after", "test.res.rack"), "r4");  // registered jobs keep theirs
    PMIX_INFO_DESTRUCT(&res[0]);
    PMIX_INFO_DESTRUCT(&res[1]);
}

TEST_F(ServerResources, DeliverInventoryIsAccepted) {
    pmix_info_t inv;
    PMIX_INFO_LOAD(&inv, PMIX_HOSTNAME, "other-node", PMIX_STRING);
    Wait w;
    ASSERT_EQ(PMIx_server_deliver_inventory(&inv, 1, nullptr, 0, op_cb, &w), PMIX_SUCCESS);
    ASSERT_TRUE(w.wait());
    EXPECT_FALSE(w.inside);
    EXPECT_EQ(w.status, PMIX_SUCCESS);
    EXPECT_EQ(PMIx_server_deliver_inventory(&inv, 1, nullptr, 0, nullptr, nullptr),
              PMIX_OPERATION_SUCCEEDED);
    PMIX_INFO_DESTRUCT(&inv);
}

TEST_F(ServerResources, BadInputIsRefusedWithoutCallback) {
    Wait w;
    EXPECT_EQ(PMIx_server_collect_inventory(nullptr, 0, nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_collect_inventory(nullptr, 2, info_cb, &w), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_deliver_inventory(nullptr, 1, nullptr, 0, op_cb, &w), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_deliver_inventory(nullptr, 0, nullptr, 3, op_cb, &w), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_register_resources(nullptr, 1, op_cb, &w), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_deregister_resources(nullptr, 1, op_cb, &w), PMIX_ERR_BAD_PARAM);
    pmix_info_t nameless;
    PMIX_INFO_CONSTRUCT(&nameless);
    EXPECT_EQ(PMIx_server_register_resources(&nameless, 1, op_cb, &w), PMIX_ERR_BAD_PARAM);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(w.done) << "a refused call invoked its callback";
}

TEST_F(ServerResources, FabricAndAllocateReachTheHost) {
    ASSERT_EQ(register_ns("res.fabric"), PMIX_SUCCESS);
    const std::string out = run_client("res.fabric", "--fabric");
    EXPECT_NE(out.find("fabric register: SUCCESS | pmix.fab.vndr="), std::string::npos) << out;
    EXPECT_NE(out.find("Value: test-vendor"), std::string::npos) << out;
    EXPECT_NE(out.find("fabric index 7\n"), std::string::npos) << out;
    EXPECT_NE(out.find("fabric update: SUCCESS"), std::string::npos) << out;
    EXPECT_NE(out.find("pmix.fab.nverts= PMIX_VALUE:  Data type: PMIX_SIZE\tValue: 4"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("fabric deregister: SUCCESS ninfo=0"), std::string::npos) << out;
    EXPECT_NE(out.find("fabric register_nb: SUCCESS SUCCESS ninfo=3"), std::string::npos) << out;
    EXPECT_NE(out.find("alloc new 2 nodes: SUCCESS | pmix.alloc.id="), std::string::npos) << out;
    EXPECT_NE(out.find("Value: host-alloc-1"), std::string::npos) << out;
    std::lock_guard lock(g_up.mu);
    const std::vector<int> ops{PMIX_FABRIC_REQUEST_INFO, PMIX_FABRIC_UPDATE_INFO,
                               PMIX_FABRIC_REQUEST_INFO};
    EXPECT_EQ(g_up.fabric_ops, ops);
    const std::vector<std::string> dirs{"pmix.fab.plane=plane-a", "pmix.fab.idx=7",
                                        "pmix.fab.plane=plane-a"};
    EXPECT_EQ(g_up.fabric_dirs, dirs);
    EXPECT_EQ(g_up.alloc_directives, std::vector<int>{PMIX_ALLOC_NEW});
    EXPECT_EQ(g_up.alloc_nodes, 2u);
    ASSERT_EQ(g_up.upcall_threads.size(), 4u);
    for (auto id : g_up.upcall_threads) EXPECT_NE(id, g_test_thread);
}

// The host's own calls (OpenPMIx: a server passes them to its own host module): its upcalls answer,
// made from the server's thread, never inside the host's call.
TEST_F(ServerResources, HostsOwnAllocationAndFabricGoToItsUpcalls) {
    uint64_t three = 3;
    pmix_info_t nodes;
    PMIX_INFO_LOAD(&nodes, PMIX_ALLOC_NUM_NODES, &three, PMIX_UINT64);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    ASSERT_EQ(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, &nodes, 1, &results, &nresults),
              PMIX_SUCCESS);
    ASSERT_EQ(nresults, 1u);
    EXPECT_STREQ(results[0].key, PMIX_ALLOC_ID);
    EXPECT_STREQ(results[0].value.data.string, "host-alloc-1");
    PMIX_INFO_FREE(results, nresults);
    Wait w;
    ASSERT_EQ(PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, &nodes, 1, info_cb, &w), PMIX_SUCCESS);
    ASSERT_TRUE(w.wait());
    EXPECT_FALSE(w.inside);
    EXPECT_EQ(w.status, PMIX_SUCCESS);
    ASSERT_EQ(w.info.size(), 1u);
    for (auto& i : w.info) PMIX_INFO_DESTRUCT(&i);
    EXPECT_EQ(PMIx_Allocation_request(0, &nodes, 1, &results, &nresults), PMIX_ERR_BAD_PARAM);

    pmix_fabric_t fabric;
    PMIX_FABRIC_CONSTRUCT(&fabric);
    ASSERT_EQ(PMIx_Fabric_register(&fabric, nullptr, 0), PMIX_SUCCESS);
    EXPECT_EQ(fabric.index, 7u);
    ASSERT_EQ(fabric.ninfo, 3u);
    EXPECT_STREQ(fabric.info[0].value.data.string, "test-vendor");
    ASSERT_EQ(PMIx_Fabric_update(&fabric), PMIX_SUCCESS);
    ASSERT_EQ(fabric.ninfo, 3u);
    EXPECT_EQ(fabric.info[2].value.data.size, 4u);  // the update's answer replaced register's
    Wait fw;
    ASSERT_EQ(PMIx_Fabric_update_nb(&fabric, op_cb, &fw), PMIX_SUCCESS);
    ASSERT_TRUE(fw.wait());
    EXPECT_FALSE(fw.inside);
    EXPECT_EQ(fw.status, PMIX_SUCCESS);
    EXPECT_EQ(PMIx_Fabric_deregister(&fabric), PMIX_SUCCESS);
    EXPECT_EQ(fabric.ninfo, 0u);
    EXPECT_EQ(fabric.info, nullptr);
    PMIX_INFO_DESTRUCT(&nodes);

    std::lock_guard lock(g_up.mu);
    const std::vector<int> dirs{PMIX_ALLOC_EXTEND, PMIX_ALLOC_NEW};
    EXPECT_EQ(g_up.alloc_directives, dirs);
    EXPECT_EQ(g_up.alloc_nodes, 3u);
    const std::vector<std::string> fabric_dirs{"pmix.fab.idx=7", "pmix.fab.idx=7"};
    EXPECT_EQ(g_up.fabric_dirs, fabric_dirs);
    ASSERT_EQ(g_up.upcall_threads.size(), 5u);
    for (auto id : g_up.upcall_threads) EXPECT_NE(id, g_test_thread);
}

}  // namespace
