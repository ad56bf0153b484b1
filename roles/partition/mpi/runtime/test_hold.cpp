#include "roles/partition/mpi/runtime/test_hold.h"

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>

namespace dg::mpi {

void TestHold(const char* point, int rank) {
  const char* spec = std::getenv("DISTGNN_TEST_HOLD");
  if (!spec) return;
  std::stringstream items(spec);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || item.compare(0, colon, point) != 0) continue;
    char* end = nullptr;
    const double seconds = std::strtod(item.c_str() + colon + 1, &end);
    if (*end == ':' && std::atoi(end + 1) != rank) continue;
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
}

}  // namespace dg::mpi
