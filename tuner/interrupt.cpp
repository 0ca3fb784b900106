#include "tuner/interrupt.h"

#include <csignal>

namespace tlp {
namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void on_interrupt(int) { g_stop_requested = true; }

}  // namespace

const std::atomic<bool> &stop_on_interrupt() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  return g_stop_requested;
}

}  // namespace tlp
