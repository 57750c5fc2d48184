#include "run_guard.h"

#include <cstdlib>

namespace ssim2 {
namespace cli {
namespace {

constexpr double kDefaultWatchdogSeconds = 30.0;

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void RecordStopSignal(int signal) {
  if (g_stop_signal == 0) g_stop_signal = signal;
}

}  // namespace

double WatchdogSeconds() {
  static const double seconds = [] {
    const char* env = std::getenv("SSIM2_WATCHDOG_SECONDS");
    char* end = nullptr;
    const double v = env ? std::strtod(env, &end) : 0.0;
    return env && end != env && *end == '\0' && v > 0.0 ? v : kDefaultWatchdogSeconds;
  }();
  return seconds;
}

void IgnoreFileSizeSignal() { std::signal(SIGXFSZ, SIG_IGN); }

StopSignals::StopSignals() {
  struct sigaction action = {};
  action.sa_handler = RecordStopSignal;
  sigemptyset(&action.sa_mask);
  // Reads and writes of the other threads go on rather than fail with EINTR.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

const volatile std::sig_atomic_t* StopSignals::received() { return &g_stop_signal; }

}  // namespace cli
}  // namespace ssim2
