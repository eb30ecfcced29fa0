// PMIx_server_setup_application / setup_local_support through the public API of our libpmix: the
// launch blob round-trips into setup_fork's environment; bad directives, a corrupt blob and a
// blob for a plugin we do not have give clear errors.
#include "../support/public_server.h"

#include <pmix_server.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Blob = pmix_test::AppSetupAnswer;

class SetupApp : public pmix_test::PublicServerTest {
protected:
    SetupApp() : PublicServerTest("pmix-setupapp") {}
    // setup_application for `ns` with `extra` directives plus this host's maps (2 ranks). Takes
    // ownership of `extra` (destructed here, after the callback: the library may read it until
    // then).
    pmix_status_t collect(const char* ns, std::vector<pmix_info_t> extra, Blob& b) {
        pmix_info_t maps[2];
        PMIX_INFO_LOAD(&maps[0], PMIX_NODE_MAP, host_.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&maps[1], PMIX_PROC_MAP, "0,1", PMIX_STRING);
        extra.push_back(maps[0]);
        extra.push_back(maps[1]);
        pmix_status_t rc =
            PMIx_server_setup_application(ns, extra.data(), extra.size(), Blob::deliver, &b);
        if (rc == PMIX_SUCCESS) rc = b.wait();
        for (auto& i : extra) PMIX_INFO_DESTRUCT(&i);  // includes the maps
        return rc;
    }
    void register_ns(const char* ns) {
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, host_.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, "0,1", PMIX_STRING);
        ASSERT_EQ(PMIx_server_register_nspace(ns, 2, info, 2, nullptr, nullptr), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    }
};

pmix_info_t str_info(const char* key, const char* value) {
    pmix_info_t i;
    PMIX_INFO_LOAD(&i, key, value, PMIX_STRING);
    return i;
}

std::string env_value(char** env, const char* name) {
    const size_t n = std::strlen(name);
    for (char** e = env; e != nullptr && *e != nullptr; ++e)
        if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return "<unset>";
}

TEST_F(SetupApp, ForwardedEnvironmentReachesSetupFork) {
    ::setenv("INST_FWD_X", "42", 1);
    ::setenv("INST_FWD_SECRET", "no", 1);
    Blob b;
    ASSERT_EQ(
        collect("inst.env", {str_info("pmix.cpp.fwd.envars", "INST_FWD_?;^INST_FWD_SECRET")}, b),
        PMIX_SUCCESS);
    bool has_env_blob = false;
    for (auto& i : b.info) has_env_blob = has_env_blob || std::string(i.key) == "pmix.cpp.fab.env";
    EXPECT_TRUE(has_env_blob);
    register_ns("inst.env");
    ASSERT_EQ(
        PMIx_server_setup_local_support("inst.env", b.info.data(), b.info.size(), nullptr, nullptr),
        PMIX_SUCCESS);
    ::unsetenv("INST_FWD_X");  // the forked process must get it from the blob, not from here
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "inst.env", 0);
    char** env = nullptr;
    ASSERT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    EXPECT_EQ(env_value(env, "INST_FWD_X"), "42");
    EXPECT_EQ(env_value(env, "INST_FWD_SECRET"), "<unset>");
    PMIX_ARGV_FREE(env);
}

TEST_F(SetupApp, UnknownRequiredDirectiveIsNotSupported) {
    pmix_info_t i = str_info("pmix.no.such.directive", "x");
    PMIX_INFO_REQUIRED(&i);
    Blob b;
    EXPECT_EQ(collect("inst.req", {i}, b), PMIX_ERR_NOT_SUPPORTED);
    pmix_info_t optional = str_info("pmix.no.such.directive", "x");  // not required: ignored
    Blob b2;
    EXPECT_EQ(collect("inst.req", {optional}, b2), PMIX_SUCCESS);
}

TEST_F(SetupApp, MalformedPatternAndNullArguments) {
    pmix_info_t i = str_info("pmix.cpp.fwd.envars", "A*B");
    Blob b;
    EXPECT_EQ(collect("inst.bad", {i}, b), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_setup_application(nullptr, nullptr, 0, Blob::deliver, &b),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_setup_local_support(nullptr, nullptr, 0, nullptr, nullptr),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_setup_local_support("inst.bad", nullptr, 2, nullptr, nullptr),
              PMIX_ERR_BAD_PARAM);
}

TEST_F(SetupApp, CorruptOrForeignBlobsAreRefused) {
    ::setenv("INST_FWD_Y", "7", 1);
    Blob b;
    ASSERT_EQ(collect("inst.corrupt", {str_info("pmix.cpp.fwd.envars", "INST_FWD_Y")}, b),
              PMIX_SUCCESS);
    register_ns("inst.corrupt");
    pmix_info_t* env_blob = nullptr;
    for (auto& i : b.info)
        if (std::string(i.key) == "pmix.cpp.fab.env") env_blob = &i;
    ASSERT_NE(env_blob, nullptr);
    ASSERT_EQ(env_blob->value.type, PMIX_BYTE_OBJECT);
    env_blob->value.data.bo.size -= 1;  // truncated
    EXPECT_EQ(PMIx_server_setup_local_support("inst.corrupt", env_blob, 1, nullptr, nullptr),
              PMIX_ERR_UNPACK_FAILURE);
    env_blob->value.data.bo.size += 1;
    env_blob->value.data.bo.bytes[0] = 9;  // unknown version
    EXPECT_EQ(PMIx_server_setup_local_support("inst.corrupt", env_blob, 1, nullptr, nullptr),
              PMIX_ERR_UNPACK_FAILURE);
    pmix_info_t foreign;
    pmix_byte_object_t bo{const_cast<char*>("x"), 1};
    PMIX_INFO_LOAD(&foreign, "pmix.cpp.fab.nosuchplugin", &bo, PMIX_BYTE_OBJECT);
    EXPECT_EQ(PMIx_server_setup_local_support("inst.corrupt", &foreign, 1, nullptr, nullptr),
              PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&foreign);
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "inst.corrupt", 1);
    char** env = nullptr;
    ::unsetenv("INST_FWD_Y");
    ASSERT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    EXPECT_EQ(env_value(env, "INST_FWD_Y"), "<unset>");  // nothing half-installed
    PMIX_ARGV_FREE(env);
}

}  // namespace
