// tests/data/test_host_credential.cpp - PMIx_Get_credential / PMIx_Validate_credential /
// PMIx_Process_monitor called by a host itself (a process that ran PMIx_server_init only, as
// mpirun or pmixrun), through libpmix: the library's own credentials with the server's identity
// when the host has no upcall, the host's upcalls when it has them (called from the server's
// thread, never inside the host's call), monitors refused as OpenPMIx does.
#include <pmix.h>
#include <pmix_server.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

std::thread::id g_caller;  // the thread that calls into the library
std::atomic<int> g_upcalls{0};
std::atomic<int> g_upcall_on_callers_stack{0};

pmix_status_t up_get_credential(const pmix_proc_t*, const pmix_info_t*, size_t,
                                pmix_credential_cbfunc_t cbfunc, void* cbdata) {
    ++g_upcalls;
    if (std::this_thread::get_id() == g_caller) ++g_upcall_on_callers_stack;
    char bytes[] = "host-cred";
    pmix_byte_object_t cred{bytes, sizeof bytes};
    cbfunc(PMIX_SUCCESS, &cred, nullptr, 0, cbdata);  // inline, as some hosts do
    return PMIX_SUCCESS;
}

class HostCredential : public ::testing::Test {
protected:
    void start(pmix_server_module_t* module) {
        char tmpl[] = "/tmp/pmix-hostcred.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        tmp_ = tmpl;
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_SERVER_TMPDIR, tmp_.c_str(), PMIX_STRING);
        ASSERT_EQ(PMIx_server_init(module, &info, 1), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info);
    }
    void TearDown() override {
        EXPECT_EQ(PMIx_server_finalize(), PMIX_SUCCESS);
        std::error_code ec;
        std::filesystem::remove_all(tmp_, ec);
    }
    std::string tmp_;
};

TEST_F(HostCredential, TheLibrarysOwnWithTheServersIdentity) {
    pmix_server_module_t module;
    std::memset(&module, 0, sizeof module);
    start(&module);
    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    EXPECT_EQ(PMIx_Get_credential(nullptr, 0, nullptr), PMIX_ERR_BAD_PARAM);
    ASSERT_EQ(PMIx_Get_credential(nullptr, 0, &cred), PMIX_SUCCESS);
    ASSERT_GT(cred.size, 0u);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    ASSERT_EQ(PMIx_Validate_credential(&cred, nullptr, 0, &results, &nresults), PMIX_SUCCESS);
    bool uid_ok = false, gid_ok = false;
    for (size_t i = 0; i < nresults; ++i) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_USERID))
            uid_ok = results[i].value.data.uint32 == geteuid();
        if (PMIX_CHECK_KEY(&results[i], PMIX_GRPID))
            gid_ok = results[i].value.data.uint32 == getegid();
    }
    EXPECT_TRUE(uid_ok && gid_ok);
    PMIX_INFO_FREE(results, nresults);
    cred.bytes[cred.size / 2] ^= 0x40;
    EXPECT_EQ(PMIx_Validate_credential(&cred, nullptr, 0, &results, &nresults),
              PMIX_ERR_INVALID_CRED);
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);
    pmix_info_t mon;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, nullptr, PMIX_POINTER);
    EXPECT_EQ(PMIx_Process_monitor(&mon, PMIX_SUCCESS, nullptr, 0, &results, &nresults),
              PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&mon);
}

TEST_F(HostCredential, TheHostsUpcallFromTheServersThread) {
    pmix_server_module_t module;
    std::memset(&module, 0, sizeof module);
    module.get_credential = up_get_credential;
    start(&module);
    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    g_caller = std::this_thread::get_id();
    ASSERT_EQ(PMIx_Get_credential(nullptr, 0, &cred), PMIX_SUCCESS);
    EXPECT_EQ(std::string(cred.bytes, cred.size), std::string("host-cred", 10));
    EXPECT_EQ(g_upcalls, 1);
    EXPECT_EQ(g_upcall_on_callers_stack, 0) << "the upcall ran inside the host's call";
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);
}

}  // namespace
