// The test runner: Catch2's session (2.x or 3.x, see catch.hpp) with its TAP reporter.
#ifdef ATOLL_CATCH2_V3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <catch2/catch_reporter_tap.hpp>
#endif

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
