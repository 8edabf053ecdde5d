// The Catch2 runner for khun-tests. Every other file here only adds test cases.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
