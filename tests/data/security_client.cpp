// tests/data/security_client.cpp - credentials and process monitors between two ranks of one
// pmixrun job (run by security.sh). Modes:
//   cred       rank 0 obtains a credential and hands it to rank 1 (Put/Fence/Get); rank 1 has it
//              validated (uid and gid must be its own, which are rank 0's) and every one-byte
//              alteration, truncations and forgeries refused; bad input refused clearly.
//   heartbeat  rank 0 asks for a heartbeat monitor (1 s windows, 2 drops) and beats for 4 s:
//              rank 1 must hear nothing; then rank 0 stops beating and rank 1 must hear the
//              given code, from rank 0, with the monitor's id; a cancelled monitor never fires.
//   file       the same with a file monitor (PMIX_MONITOR_FILE_SIZE) on a file rank 0 grows,
//              then stops growing.
//   file_modify  the same with PMIX_MONITOR_FILE_MODIFY on a file rank 0 rewrites with the same
//              size (only its modification time moves), then leaves alone.
// Each rank prints "security_client: <mode> ok" on success; any failure prints FAIL and exits 1.
#include <pmix.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

pmix_proc_t me;
constexpr pmix_status_t kHeartbeatCode = PMIX_EXTERNAL_ERR_BASE - 11;
constexpr pmix_status_t kFileCode = PMIX_EXTERNAL_ERR_BASE - 12;

[[noreturn]] void fail(const std::string& what) {
    std::printf("FAIL: rank %u: %s\n", me.rank, what.c_str());
    std::fflush(stdout);
    std::_Exit(1);
}

void expect(pmix_status_t got, pmix_status_t want, const std::string& what) {
    if (got != want) {
        fail(what + ": " + PMIx_Error_string(got) + " (want " + PMIx_Error_string(want) + ")");
    }
}

void fence() {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    expect(PMIx_Fence(&all, 1, nullptr, 0), PMIX_SUCCESS, "fence");
}

// ---- credentials -------------------------------------------------------------------------------

pmix_status_t validate(const pmix_byte_object_t& cred, uint32_t* uid, uint32_t* gid) {
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Validate_credential(&cred, nullptr, 0, &results, &nresults);
    for (size_t i = 0; i < nresults; ++i) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_USERID)) *uid = results[i].value.data.uint32;
        if (PMIX_CHECK_KEY(&results[i], PMIX_GRPID)) *gid = results[i].value.data.uint32;
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    return rc;
}

void check_bad_input() {
    expect(PMIx_Get_credential(nullptr, 0, nullptr), PMIX_ERR_BAD_PARAM, "Get_credential(NULL)");
    expect(PMIx_Validate_credential(nullptr, nullptr, 0, nullptr, nullptr), PMIX_ERR_BAD_PARAM,
           "Validate_credential(NULL)");
    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    pmix_info_t type;
    PMIX_INFO_LOAD(&type, PMIX_CRED_TYPE, "munge", PMIX_STRING);
    expect(PMIx_Get_credential(&type, 1, &cred), PMIX_ERR_NOT_SUPPORTED, "a type we lack");
    PMIX_INFO_DESTRUCT(&type);
    pmix_info_t reqd;
    PMIX_INFO_LOAD(&reqd, "pmix.test.unknown", "x", PMIX_STRING);
    PMIX_INFO_REQUIRED(&reqd);
    expect(PMIx_Get_credential(&reqd, 1, &cred), PMIX_ERR_NOT_SUPPORTED,
           "a required unknown directive");
    PMIX_INFO_DESTRUCT(&reqd);
}

void refuse_alterations(const pmix_byte_object_t& good) {
    std::vector<char> bytes(good.bytes, good.bytes + good.size);
    pmix_byte_object_t bo{bytes.data(), bytes.size()};
    uint32_t uid = 0, gid = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {  // every byte, one at a time
        bytes[i] ^= 0x01;
        expect(validate(bo, &uid, &gid), PMIX_ERR_INVALID_CRED, "byte " + std::to_string(i));
        bytes[i] ^= 0x01;
    }
    bo.size = bytes.size() - 1;
    expect(validate(bo, &uid, &gid), PMIX_ERR_INVALID_CRED, "truncated");
    bo.size = 0;
    expect(validate(bo, &uid, &gid), PMIX_ERR_INVALID_CRED, "empty");
    // A forgery: the same layout and claims (uid 0), a MAC made without the key.
    std::vector<char> forged(bytes);
    std::memset(forged.data() + 4, 0, 8);
    for (size_t i = forged.size() - 32; i < forged.size(); ++i) forged[i] = static_cast<char>(i);
    pmix_byte_object_t fb{forged.data(), forged.size()};
    expect(validate(fb, &uid, &gid), PMIX_ERR_INVALID_CRED, "forged");
    bo.size = bytes.size();
    expect(validate(bo, &uid, &gid), PMIX_SUCCESS, "the unaltered copy");
}

void run_cred() {
    if (me.rank == 0) {
        check_bad_input();
        pmix_byte_object_t cred;
        PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
        expect(PMIx_Get_credential(nullptr, 0, &cred), PMIX_SUCCESS, "Get_credential");
        if (cred.size == 0) fail("empty credential");
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, &cred, PMIX_BYTE_OBJECT);
        expect(PMIx_Put(PMIX_GLOBAL, "sec.cred", &v), PMIX_SUCCESS, "Put");
        PMIX_VALUE_DESTRUCT(&v);
        PMIX_BYTE_OBJECT_DESTRUCT(&cred);
        expect(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    }
    fence();
    if (me.rank == 1) {
        pmix_proc_t r0;
        PMIX_LOAD_PROCID(&r0, me.nspace, 0);
        pmix_value_t* v = nullptr;
        expect(PMIx_Get(&r0, "sec.cred", nullptr, 0, &v), PMIX_SUCCESS, "Get of rank 0's cred");
        if (v->type != PMIX_BYTE_OBJECT) fail("cred is not a byte object");
        uint32_t uid = 12345, gid = 12345;
        expect(validate(v->data.bo, &uid, &gid), PMIX_SUCCESS, "validate rank 0's credential");
        if (uid != getuid() || gid != getgid()) {
            fail("uid/gid " + std::to_string(uid) + "/" + std::to_string(gid) + ", want " +
                 std::to_string(getuid()) + "/" + std::to_string(getgid()));
        }
        std::printf("security_client: validated uid %u gid %u, %zu bytes\n", uid, gid,
                    v->data.bo.size);
        refuse_alterations(v->data.bo);
        PMIX_VALUE_RELEASE(v);
    }
    fence();
}

// ---- monitors ----------------------------------------------------------------------------------

std::atomic<int> g_alerts{0};
std::atomic<int> g_wrong{0};
std::string g_expected_id;

void on_alert(size_t, pmix_status_t, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
              pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    bool id_ok = false;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_MONITOR_ID) && info[i].value.type == PMIX_STRING) {
            id_ok = g_expected_id == info[i].value.data.string;
        }
    }
    if (source->rank == 0 && id_ok) {
        ++g_alerts;
    } else {
        ++g_wrong;
    }
    if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void check_monitor_input() {
    pmix_info_t hb;
    PMIX_INFO_LOAD(&hb, PMIX_MONITOR_HEARTBEAT, nullptr, PMIX_POINTER);
    expect(PMIx_Process_monitor(nullptr, PMIX_SUCCESS, nullptr, 0, nullptr, nullptr),
           PMIX_ERR_BAD_PARAM, "monitor NULL");
    expect(PMIx_Process_monitor(&hb, kHeartbeatCode, nullptr, 0, nullptr, nullptr),
           PMIX_ERR_BAD_PARAM, "heartbeat without a period");
    pmix_info_t bogus;
    PMIX_INFO_LOAD(&bogus, "pmix.monitor.bogus", nullptr, PMIX_POINTER);
    expect(PMIx_Process_monitor(&bogus, kHeartbeatCode, nullptr, 0, nullptr, nullptr),
           PMIX_ERR_NOT_SUPPORTED, "unknown monitor");
    pmix_info_t cancel;
    PMIX_INFO_LOAD(&cancel, PMIX_MONITOR_CANCEL, "no-such-id", PMIX_STRING);
    expect(PMIx_Process_monitor(&cancel, PMIX_SUCCESS, nullptr, 0, nullptr, nullptr),
           PMIX_ERR_NOT_FOUND, "cancel of an unknown id");
    pmix_info_t dirs[2];
    uint32_t one = 1;
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[1], "pmix.test.unknown", "x", PMIX_STRING);
    PMIX_INFO_REQUIRED(&dirs[1]);
    expect(PMIx_Process_monitor(&hb, kHeartbeatCode, dirs, 2, nullptr, nullptr),
           PMIX_ERR_NOT_SUPPORTED, "required unknown directive");
    PMIX_INFO_DESTRUCT(&dirs[1]);
    PMIX_INFO_DESTRUCT(&cancel);
    PMIX_INFO_DESTRUCT(&bogus);
    PMIX_INFO_DESTRUCT(&hb);
}

// Starts the monitor `key` (value `value`) with `id`, period 1 s, 2 drops, and a second one with
// id "cancelled" that is cancelled at once (it must never fire).
void start_monitors(const char* key, const char* value, const char* time_key, const char* drops_key,
                    pmix_status_t code, bool file, bool modify) {
    for (const char* id : {"cancelled", g_expected_id.c_str()}) {
        pmix_info_t mon;
        PMIX_INFO_LOAD(&mon, key, value, value != nullptr ? PMIX_STRING : PMIX_POINTER);
        uint32_t one = 1, two = 2;
        bool yes = true;
        pmix_info_t dirs[4];
        PMIX_INFO_LOAD(&dirs[0], time_key, &one, PMIX_UINT32);
        PMIX_INFO_LOAD(&dirs[1], drops_key, &two, PMIX_UINT32);
        PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_ID, id, PMIX_STRING);
        PMIX_INFO_LOAD(&dirs[3], modify ? PMIX_MONITOR_FILE_MODIFY : PMIX_MONITOR_FILE_SIZE, &yes,
                       PMIX_BOOL);
        expect(PMIx_Process_monitor(&mon, code, dirs, file ? 4 : 3, nullptr, nullptr), PMIX_SUCCESS,
               std::string("monitor ") + id);
        for (auto& d : dirs) PMIX_INFO_DESTRUCT(&d);
        PMIX_INFO_DESTRUCT(&mon);
        if (std::strcmp(id, "cancelled") == 0) {
            pmix_info_t cancel;
            PMIX_INFO_LOAD(&cancel, PMIX_MONITOR_CANCEL, id, PMIX_STRING);
            expect(PMIx_Process_monitor(&cancel, PMIX_SUCCESS, nullptr, 0, nullptr, nullptr),
                   PMIX_SUCCESS, "cancel");
            PMIX_INFO_DESTRUCT(&cancel);
        }
    }
}

// Rank 0 keeps the monitor alive (a beat, or the file grows) every 200 ms for 4 s.
void keep_alive(bool file, bool modify, const std::string& path) {
    for (int i = 0; i < 20; ++i) {
        if (file) {
            FILE* f = std::fopen(path.c_str(), modify ? "w" : "a");  // "w": the same 2 bytes
            if (f == nullptr) fail("cannot append to " + path);
            std::fputs("x\n", f);
            std::fclose(f);
        } else {
            PMIx_Heartbeat();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

void run_monitor(bool file, bool modify) {
    const pmix_status_t code = file ? kFileCode : kHeartbeatCode;
    g_expected_id = file ? "file-0" : "beat-0";
    const std::string path =
        std::string(std::getenv("SEC_WORK") ? std::getenv("SEC_WORK") : "/tmp") + "/monitored." +
        std::to_string(getppid());
    if (me.rank == 1) {
        pmix_status_t codes[] = {code};
        if (PMIx_Register_event_handler(codes, 1, nullptr, 0, on_alert, nullptr, nullptr) < 0) {
            fail("Register_event_handler");
        }
    }
    if (me.rank == 0) {
        check_monitor_input();
        if (file) {
            FILE* f = std::fopen(path.c_str(), "w");
            if (f == nullptr) fail("cannot create " + path);
            std::fclose(f);
            start_monitors(PMIX_MONITOR_FILE, path.c_str(), PMIX_MONITOR_FILE_CHECK_TIME,
                           PMIX_MONITOR_FILE_DROPS, code, true, modify);
        } else {
            start_monitors(PMIX_MONITOR_HEARTBEAT, nullptr, PMIX_MONITOR_HEARTBEAT_TIME,
                           PMIX_MONITOR_HEARTBEAT_DROPS, code, false, false);
        }
    }
    fence();
    if (me.rank == 0) keep_alive(file, modify, path);
    fence();  // after 4 s alive: nothing may have fired
    if (me.rank == 1) {
        if (g_alerts != 0 || g_wrong != 0) fail("an alert while the monitor was fed");
        std::printf("security_client: no alert in 4 s while alive\n");
        const auto t0 = std::chrono::steady_clock::now();
        while (g_alerts == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
        if (g_alerts != 1) fail("no alert within 15 s after rank 0 went quiet");
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the cancelled one?
        if (g_alerts != 1 || g_wrong != 0) fail("a second or unexpected alert");
        std::printf("security_client: alert %lld ms after rank 0 went quiet\n",
                    static_cast<long long>(ms));
    }
    fence();  // rank 0 stays connected until rank 1 heard the alert
    if (me.rank == 0 && file) unlink(path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "cred" && mode != "heartbeat" && mode != "file" && mode != "file_modify") {
        std::fprintf(stderr, "usage: security_client cred|heartbeat|file|file_modify\n");
        return 2;
    }
    expect(PMIx_Init(&me, nullptr, 0), PMIX_SUCCESS, "PMIx_Init");
    if (mode == "cred") {
        run_cred();
    } else {
        run_monitor(mode != "heartbeat", mode == "file_modify");
    }
    expect(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS, "PMIx_Finalize");
    std::printf("security_client: %s ok\n", mode.c_str());
    return 0;
}
