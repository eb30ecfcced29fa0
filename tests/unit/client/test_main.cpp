// test_client's main: the gtest runner, or - with --scenario NAME - one client process.
#include "scenarios.h"

#include <gtest/gtest.h>

#include <cstring>

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--scenario") == 0) {
        return clienttest::run_scenario(argv[2]);
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
