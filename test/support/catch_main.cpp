// One Catch2 main shared by every test executable. Two of Catch's warnings are
// always errors here (Catch2 v2 accepts only one -w on the command line):
//   NoTests:      a test spec that matches no test case fails (a ctest entry
//                 whose name Catch cannot match must never pass as a no-op);
//   NoAssertions: a test case or leaf section that checks nothing fails.
// And a test case whose name contains ';' or starts with '-' makes every run
// of its executable fail: ctest would split the first into entries that match
// nothing, and Catch reads the second as a command-line flag.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <string>

int main(int argc, char* argv[]) {
  Catch::Session session;
  const int rc = session.applyCommandLine(argc, argv);
  if (rc != 0) return rc;
  Catch::ConfigData& config = session.configData();
  config.warnings = static_cast<Catch::WarnAbout::What>(config.warnings | Catch::WarnAbout::NoTests |
                                                        Catch::WarnAbout::NoAssertions);
  session.useConfigData(config);
  const bool listing = config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters;
  if (!listing) {
    for (const Catch::TestCase& tc : Catch::getAllTestCasesSorted(session.config())) {
      if (tc.name.find(';') != std::string::npos) {
        Catch::cerr() << "test case name contains ';' (ctest splits it into entries that match nothing): \""
                      << tc.name << "\"\n";
        return 1;
      }
      if (!tc.name.empty() && tc.name[0] == '-') {
        Catch::cerr() << "test case name starts with '-' (Catch reads it as a flag under ctest): \""
                      << tc.name << "\"\n";
        return 1;
      }
    }
  }
  return session.run();
}
