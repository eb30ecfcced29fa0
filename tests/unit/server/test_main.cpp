// tests/unit/server/test_main.cpp - gtest main; with "--client <scenario>" this binary is instead
// one raw client process of the live tests (raw_client.cpp).
#include <gtest/gtest.h>

#include <cstring>

int run_raw_client(const char* scenario);

int main(int argc, char** argv) {
    if (argc >= 3 && std::strcmp(argv[1], "--client") == 0) {
        return run_raw_client(argv[2]);
    }
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
