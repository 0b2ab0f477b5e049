// doctest's main, which also fails a run whose filters match no test case: ctest runs each test
// case by its name (doctest_discover_tests), and a name that ctest splits (at ';') matches none,
// which doctest alone reports as success, so that test case never ran.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

namespace {

// Records how many test cases passed the run's filters.
struct MatchedTestCases : doctest::IReporter {
  static inline unsigned count = 0;
  explicit MatchedTestCases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override { count = stats.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
DOCTEST_REGISTER_LISTENER("matched-test-cases", 1, MatchedTestCases);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit() || status != 0) return status;
  if (MatchedTestCases::count == 0) {
    std::cerr << "react_tests: no test case matches the filters (a test case's name must not contain ';', '[' or ']')\n";
    return 1;
  }
  return 0;
}
