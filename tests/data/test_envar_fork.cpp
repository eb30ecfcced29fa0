// Environment directives end to end through the public server API: a host registers job info
// with each directive (and passes more through setup_application / setup_local_support), forks
// real clients (envar_client) from PMIx_server_setup_fork's environment and reads what they see.
// Bad directives get clear errors and leave the server serving.
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
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#ifndef ENVAR_CLIENT
#error "ENVAR_CLIENT: path of envar_client"
#endif

namespace {

pmix_info_t envar(const char* key, const char* name, const char* value, char sep = ':') {
    pmix_info_t i;
    pmix_envar_t e{const_cast<char*>(name), const_cast<char*>(value), sep};
    PMIX_INFO_LOAD(&i, key, &e, PMIX_ENVAR);
    return i;
}

pmix_info_t str(const char* key, const char* value) {
    pmix_info_t i;
    PMIX_INFO_LOAD(&i, key, value, PMIX_STRING);
    return i;
}

void destruct(std::vector<pmix_info_t>& v) {
    for (auto& i : v) PMIX_INFO_DESTRUCT(&i);
    v.clear();
}

using Results = pmix_test::AppSetupAnswer;

class EnvarFork : public pmix_test::PublicServerTest {
protected:
    EnvarFork() : PublicServerTest("pmix-envar") {}
    // Registers `ns` (local ranks 0..nprocs-1) with the maps and `extra` job info; takes `extra`.
    pmix_status_t register_ns(const char* ns, std::vector<pmix_info_t> extra, int nprocs = 1) {
        std::string ranks;
        for (int r = 0; r < nprocs; ++r) ranks += (r > 0 ? "," : "") + std::to_string(r);
        extra.push_back(str(PMIX_NODE_MAP, host_.c_str()));
        extra.push_back(str(PMIX_PROC_MAP, ranks.c_str()));
        const pmix_status_t rc =
            PMIx_server_register_nspace(ns, nprocs, extra.data(), extra.size(), nullptr, nullptr);
        destruct(extra);
        return rc;
    }
    // setup_fork for `rank` of `ns` on `base`, then the client run with `names`: its output.
    std::string run_client(const char* ns, std::vector<std::string> base,
                           const std::vector<std::string>& names, pmix_rank_t rank = 0) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, ns, rank);
        if (PMIx_server_register_client(&p, ::getuid(), ::getgid(), nullptr, nullptr, nullptr) !=
            PMIX_SUCCESS)
            return "register_client failed";
        char** env = nullptr;
        for (const auto& e : base) {
            [[maybe_unused]] pmix_status_t appended;
            PMIX_ARGV_APPEND(appended, env, e.c_str());
        }
        if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS) return "setup_fork failed";
        std::vector<std::string> args{ENVAR_CLIENT};
        args.insert(args.end(), names.begin(), names.end());
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const std::string text =
            pmix_test::run_captured(argv.data(), env, std::chrono::seconds(20));
        PMIx_server_deregister_client(&p, nullptr, nullptr);
        return text;
    }
    pmix_status_t setup_application(const char* ns, std::vector<pmix_info_t> extra, Results& r) {
        extra.push_back(str(PMIX_NODE_MAP, host_.c_str()));
        extra.push_back(str(PMIX_PROC_MAP, "0"));
        pmix_status_t rc =
            PMIx_server_setup_application(ns, extra.data(), extra.size(), Results::deliver, &r);
        if (rc == PMIX_SUCCESS) rc = r.wait();
        destruct(extra);
        return rc;
    }
};

TEST_F(EnvarFork, JobInfoDirectivesReachTheClient) {
    std::vector<pmix_info_t> job{
        envar(PMIX_SET_ENVAR, "EV_SET", "s"),
        envar(PMIX_SET_ENVAR, "EV_REPLACED", "new"),
        envar(PMIX_ADD_ENVAR, "EV_KEEP", "not-this"),
        envar(PMIX_ADD_ENVAR, "EV_NEW", "n"),
        str(PMIX_UNSET_ENVAR, "EV_GONE"),
        str(PMIX_UNSET_ENVAR, "EV_NEVER_SET"),
        envar(PMIX_PREPEND_ENVAR, "EV_PATH", "/a"),
        envar(PMIX_APPEND_ENVAR, "EV_PATH", "/c"),
        envar(PMIX_APPEND_ENVAR, "EV_LIST", "y", ','),
        envar(PMIX_FIRST_ENVAR, "EV_FIRST", "/f"),
        str(PMIX_UNSET_ENVAR, "PMIX_RANK"),  // the library's own variables win
    };
    ASSERT_EQ(register_ns("envar.job", std::move(job)), PMIX_SUCCESS);
    const std::string out =
        run_client("envar.job",
                   {"EV_REPLACED=old", "EV_KEEP=orig", "EV_GONE=x", "EV_PATH=/b", "EV_LIST=x",
                    "EV_FIRST=/a:/f:/c"},
                   {"EV_SET", "EV_REPLACED", "EV_KEEP", "EV_NEW", "EV_GONE", "EV_NEVER_SET",
                    "EV_PATH", "EV_LIST", "EV_FIRST", "PMIX_RANK"});
    EXPECT_EQ(out,
              "EV_SET=s\nEV_REPLACED=new\nEV_KEEP=orig\nEV_NEW=n\nEV_GONE unset\n"
              "EV_NEVER_SET unset\nEV_PATH=/a:/b:/c\nEV_LIST=x,y\nEV_FIRST=/f:/a:/c\n"
              "PMIX_RANK=0\ninit=SUCCESS\n");
}

// The array of one app: PMIX_APPNUM and `directives` (taken).
pmix_info_t app_array(uint32_t appnum, std::vector<pmix_info_t> directives) {
    pmix_info_t num;
    PMIX_INFO_LOAD(&num, PMIX_APPNUM, &appnum, PMIX_UINT32);
    directives.insert(directives.begin(), num);
    pmix_data_array_t darray;
    darray.type = PMIX_INFO;
    darray.size = directives.size();
    darray.array = directives.data();
    pmix_info_t array;
    PMIX_INFO_LOAD(&array, PMIX_APP_INFO_ARRAY, &darray, PMIX_DATA_ARRAY);  // copies
    destruct(directives);
    return array;
}

// One rank's PMIX_PROC_DATA: its rank and app number.
pmix_info_t proc_data(pmix_rank_t rank, uint32_t appnum) {
    pmix_info_t in[2];
    PMIX_INFO_LOAD(&in[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&in[1], PMIX_APPNUM, &appnum, PMIX_UINT32);
    pmix_data_array_t darray{PMIX_INFO, 2, in};
    pmix_info_t array;
    PMIX_INFO_LOAD(&array, PMIX_PROC_DATA, &darray, PMIX_DATA_ARRAY);
    PMIX_INFO_DESTRUCT(&in[0]);
    PMIX_INFO_DESTRUCT(&in[1]);
    return array;
}

// Directives inside a registered PMIX_APP_INFO_ARRAY reach that app's ranks only, after the job's
// (the app trumps the job); a bad one in an app array fails the registration.
TEST_F(EnvarFork, AppArrayDirectivesReachThatAppsRanks) {
    std::vector<pmix_info_t> job{
        envar(PMIX_SET_ENVAR, "EV_WHO", "job"),
        app_array(0, {envar(PMIX_APPEND_ENVAR, "EV_WHO", "app0")}),
        app_array(1, {envar(PMIX_SET_ENVAR, "EV_WHO", "app1"), str(PMIX_UNSET_ENVAR, "EV_DROP")}),
        proc_data(0, 0),
        proc_data(1, 1),
    };
    ASSERT_EQ(register_ns("envar.apps", std::move(job), 2), PMIX_SUCCESS);
    EXPECT_EQ(run_client("envar.apps", {"EV_DROP=1"}, {"EV_WHO", "EV_DROP"}, 0),
              "EV_WHO=job:app0\nEV_DROP=1\ninit=SUCCESS\n");
    EXPECT_EQ(run_client("envar.apps", {"EV_DROP=1"}, {"EV_WHO", "EV_DROP"}, 1),
              "EV_WHO=app1\nEV_DROP unset\ninit=SUCCESS\n");
    pmix_info_t bad = envar(PMIX_PREPEND_ENVAR, "EV_X", "v", '\0');  // no separator
    EXPECT_EQ(register_ns("envar.badapp", {app_array(0, {bad})}), PMIX_ERR_BAD_PARAM);
}

TEST_F(EnvarFork, SetupApplicationResultsApplyAfterJobInfo) {
    ::setenv("EV_FWD_ONE", "forwarded", 1);
    Results r;
    ASSERT_EQ(
        setup_application(
            "envar.app",
            {str("pmix.cpp.fwd.envars", "EV_FWD_*"), envar(PMIX_PREPEND_ENVAR, "EV_FWD_ONE", "pre"),
             envar(PMIX_APPEND_ENVAR, "EV_ORDER", "support"), str(PMIX_UNSET_ENVAR, "EV_DROP")},
            r),
        PMIX_SUCCESS);
    ::unsetenv("EV_FWD_ONE");  // the client must get it from the results, not from here
    size_t directives = 0;
    for (auto& i : r.info) directives += std::strncmp(i.key, "pmix.envar.", 11) == 0 ? 1 : 0;
    EXPECT_EQ(directives, 3u);
    ASSERT_EQ(register_ns("envar.app", {envar(PMIX_SET_ENVAR, "EV_ORDER", "job")}), PMIX_SUCCESS);
    ASSERT_EQ(PMIx_server_setup_local_support("envar.app", r.info.data(), r.info.size(), nullptr,
                                              nullptr),
              PMIX_SUCCESS);
    const std::string out =
        run_client("envar.app", {"EV_DROP=1"}, {"EV_FWD_ONE", "EV_ORDER", "EV_DROP"});
    EXPECT_EQ(out, "EV_FWD_ONE=pre:forwarded\nEV_ORDER=job:support\nEV_DROP unset\ninit=SUCCESS\n");
    destruct(r.info);
}

TEST_F(EnvarFork, BadDirectivesAreRefusedAndTheServerKeepsServing) {
    EXPECT_EQ(register_ns("envar.bad1", {envar(PMIX_SET_ENVAR, nullptr, "v")}), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(register_ns("envar.bad2", {str(PMIX_SET_ENVAR, "A=1")}), PMIX_ERR_TYPE_MISMATCH);
    EXPECT_EQ(register_ns("envar.bad3", {envar(PMIX_PREPEND_ENVAR, "P", "/x", '\0')}),
              PMIX_ERR_BAD_PARAM);
    const std::string huge(200000, 'x');
    EXPECT_EQ(register_ns("envar.bad4", {envar(PMIX_SET_ENVAR, "BIG", huge.c_str())}),
              PMIX_ERR_BAD_PARAM);
    Results r1, r2, r3;
    EXPECT_EQ(setup_application("envar.bad5", {envar(PMIX_SET_ENVAR, "", "v")}, r1),
              PMIX_ERR_BAD_PARAM);
    pmix_info_t unknown = str("pmix.envar.nosuch", "x");
    PMIX_INFO_REQUIRED(&unknown);
    EXPECT_EQ(setup_application("envar.bad6", {unknown}, r2), PMIX_ERR_NOT_SUPPORTED);
    pmix_info_t required_ok = envar(PMIX_SET_ENVAR, "EV_REQ", "1");
    PMIX_INFO_REQUIRED(&required_ok);  // a directive we know, marked required: honoured
    EXPECT_EQ(setup_application("envar.bad7", {required_ok}, r3), PMIX_SUCCESS);
    pmix_info_t bad_support = str(PMIX_ADD_ENVAR, "not-an-envar");
    EXPECT_EQ(PMIx_server_setup_local_support("envar.bad7", &bad_support, 1, nullptr, nullptr),
              PMIX_ERR_TYPE_MISMATCH);
    PMIX_INFO_DESTRUCT(&bad_support);
    destruct(r3.info);
    ASSERT_EQ(register_ns("envar.good", {envar(PMIX_SET_ENVAR, "EV_AFTER", "ok")}), PMIX_SUCCESS);
    EXPECT_EQ(run_client("envar.good", {}, {"EV_AFTER"}), "EV_AFTER=ok\ninit=SUCCESS\n");
}

}  // namespace
