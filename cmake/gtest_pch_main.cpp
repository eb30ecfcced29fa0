// The owner of the precompiled <gtest/gtest.h> that the test executables reuse
// (cmake/gtest_pch.cmake). Built, never run.
#include <gtest/gtest.h>

int main() { return 0; }
