// tests/unit/client: client scenarios run in child processes (scenarios.cpp).
#pragma once

#include <string>

namespace clienttest {

// Exit status of the named scenario: 0 when all its checks held.
int run_scenario(const std::string& name);

}  // namespace clienttest
