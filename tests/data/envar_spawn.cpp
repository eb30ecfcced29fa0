// Environment directives through pmixrun's PMIx_Spawn (envar_spawn.sh runs it as one rank).
// The parent spawns itself with job-level and app-level directives; the child (EV_CHILD set by a
// directive) writes what it sees to the file an app-level directive names, and the parent
// compares: job-level first, app-level after ("app trumps job"), pmixrun's environment as the
// base. Then spawns with bad directives must fail with an error, the parent still running.
// Prints "envar_spawn: ok" and exits 0 on success; "envar_spawn: FAIL ..." and 1 otherwise.
#include <pmix.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kNames[] = {"EV_ORDER", "EV_PATH", "EV_PARENT_ONLY", "EV_JOBONLY", "EV_FIRST"};

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

int child() {
    const char* out = std::getenv("EV_OUT");
    if (out == nullptr) return 2;
    std::ofstream f(std::string(out) + ".tmp");
    for (const char* name : kNames) {
        const char* v = std::getenv(name);
        f << name << (v == nullptr ? " unset" : std::string("=") + v) << "\n";
    }
    f.close();
    return std::rename((std::string(out) + ".tmp").c_str(), out) == 0 ? 0 : 3;
}

// PMIx_Spawn of this program (one process) with `job` and `app_info`; both destructed here.
pmix_status_t spawn(const char* self, std::vector<pmix_info_t> job,
                    std::vector<pmix_info_t> app_info) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = static_cast<char**>(calloc(2, sizeof(char*)));
    app.argv[0] = strdup(self);
    app.maxprocs = 1;
    app.info = app_info.data();
    app.ninfo = app_info.size();
    pmix_nspace_t spawned;
    const pmix_status_t rc = PMIx_Spawn(job.data(), job.size(), &app, 1, spawned);
    app.info = nullptr;
    app.ninfo = 0;
    PMIX_APP_DESTRUCT(&app);
    for (auto& i : job) PMIX_INFO_DESTRUCT(&i);
    for (auto& i : app_info) PMIX_INFO_DESTRUCT(&i);
    return rc;
}

std::string wait_for_file(const std::string& path) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream f(path);
        if (f) {
            std::stringstream ss;
            ss << f.rdbuf();
            return ss.str();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "[no answer from the child in 30 s]";
}

int fail(const std::string& why) {
    std::printf("envar_spawn: FAIL %s\n", why.c_str());
    std::fflush(stdout);
    PMIx_Finalize(nullptr, 0);
    return 1;
}

int parent(const char* self) {
    const char* work = std::getenv("EV_WORK");
    if (work == nullptr) return fail("EV_WORK is not set");
    const std::string out = std::string(work) + "/child.txt";
    const bool yes = true;
    pmix_info_t harvested;
    PMIX_INFO_LOAD(&harvested, PMIX_ENVARS_HARVESTED, &yes, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&harvested);  // accepted: pmixrun harvests nothing of its own
    pmix_info_t first = envar(PMIX_FIRST_ENVAR, "EV_FIRST", "/f");
    PMIX_INFO_REQUIRED(&first);
    pmix_status_t rc = spawn(
        self,
        {envar(PMIX_SET_ENVAR, "EV_CHILD", "1"), envar(PMIX_SET_ENVAR, "EV_ORDER", "job"),
         envar(PMIX_PREPEND_ENVAR, "EV_PATH", "/job"), str(PMIX_UNSET_ENVAR, "EV_PARENT_ONLY"),
         envar(PMIX_SET_ENVAR, "EV_JOBONLY", "j"), harvested},
        {envar(PMIX_SET_ENVAR, "EV_ORDER", "app"), envar(PMIX_APPEND_ENVAR, "EV_PATH", "/app"),
         envar(PMIX_SET_ENVAR, "EV_OUT", out.c_str()), first});
    if (rc != PMIX_SUCCESS) return fail(std::string("PMIx_Spawn: ") + PMIx_Error_string(rc));
    const std::string seen = wait_for_file(out);
    const std::string want =
        "EV_ORDER=app\nEV_PATH=/job:/base:/app\nEV_PARENT_ONLY unset\nEV_JOBONLY=j\n"
        "EV_FIRST=/f:/a\n";
    if (seen != want) return fail("the child saw:\n" + seen + "expected:\n" + want);
    std::printf("envar_spawn: child environment as expected\n");
    rc = spawn(self, {}, {envar(PMIX_SET_ENVAR, nullptr, "v")});
    std::printf("envar_spawn: NULL name -> %s\n", PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS) return fail("a NULL variable name was accepted");
    rc = spawn(self, {str(PMIX_SET_ENVAR, "A=1")}, {});
    std::printf("envar_spawn: wrong type -> %s\n", PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS) return fail("a string PMIX_SET_ENVAR was accepted");
    pmix_info_t unknown = str("pmix.envar.nosuch", "x");
    PMIX_INFO_REQUIRED(&unknown);
    rc = spawn(self, {unknown}, {});
    std::printf("envar_spawn: unknown required -> %s\n", PMIx_Error_string(rc));
    if (rc != PMIX_ERR_NOT_SUPPORTED) return fail("an unknown required directive was not refused");
    std::printf("envar_spawn: ok\n");
    std::fflush(stdout);
    rc = PMIx_Finalize(nullptr, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
}

}  // namespace

int main(int, char** argv) {
    pmix_proc_t me;
    if (pmix_status_t rc = PMIx_Init(&me, nullptr, 0); rc != PMIX_SUCCESS) {
        std::printf("envar_spawn: FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (std::getenv("EV_CHILD") != nullptr) {
        const int code = child();
        PMIx_Finalize(nullptr, 0);
        return code;
    }
    return parent(argv[0]);
}
