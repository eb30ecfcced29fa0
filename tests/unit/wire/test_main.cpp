// test_wire's main: the gtest runner, or - with --echo-client - one client process of the
// multi-process tests (dials the server, runs echo calls, exits 0 only if all matched).
#include "helpers.h"

#include "exec/log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int echo_client_main(int argc, char** argv) {
    if (argc != 5) {
        return 64;
    }
    std::string path = argv[2];
    auto rank = static_cast<pmix_rank_t>(std::strtoul(argv[3], nullptr, 10));
    int calls = std::atoi(argv[4]);
    pmix::exec::Executor ex("echo-client");
    if (ex.start() != PMIX_SUCCESS) {
        return 2;
    }
    std::string why;
    auto conn = wiretest::dial_echo(ex, path, rank, &why);
    if (!conn) {
        pmix::exec::log_error("echo-client", "dial failed: " + why);
        return 3;
    }
    int matched = wiretest::run_echoes(*conn, rank, calls, 512);
    conn->close();
    return matched == calls ? 0 : 4;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--echo-client") == 0) {
        return echo_client_main(argc, argv);
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
