// One Catch2 main shared by every test executable. Two of Catch's warnings are
// always errors here (Catch2 v2 accepts only one -w on the command line):
//   NoTests:      a test spec that matches no test case fails (a ctest entry
//                 whose name Catch cannot match must never pass as a no-op);
//   NoAssertions: a test case or leaf section that checks nothing fails.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  Catch::Session session;
  const int rc = session.applyCommandLine(argc, argv);
  if (rc != 0) return rc;
  Catch::ConfigData& config = session.configData();
  config.warnings = static_cast<Catch::WarnAbout::What>(config.warnings | Catch::WarnAbout::NoTests |
                                                        Catch::WarnAbout::NoAssertions);
  session.useConfigData(config);
  return session.run();
}
