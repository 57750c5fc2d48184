// What keeps a run of the ssim2 tool from hanging, or from dying without its
// results, in both long-running modes: the video mode (video_mode.cpp) and
// the pairs mode (pairs_mode.cpp).
#pragma once

#include <csignal>

namespace ssim2 {
namespace cli {

// Seconds without progress before a watchdog gives up: 30. The environment
// variable SSIM2_WATCHDOG_SECONDS overrides it; it exists for the tests
// (which would otherwise wait this long) and is not a user option.
double WatchdogSeconds();

// The exit status of a run that SIGINT or SIGTERM stopped after writing what
// it had: 128 + the signal's number, what a shell reports for a process the
// signal killed (130, 143).
inline int SignalExitCode(int signal) { return 128 + signal; }

// A write past a file-size limit (ulimit -f) fails with EFBIG, reported as
// "File too large" like any other write error, instead of SIGXFSZ killing
// the process halfway through its files. Called once at start.
void IgnoreFileSizeSignal();

// SIGINT and SIGTERM recorded instead of ending the process, for a run that
// polls for them (the pairs mode; the video mode's GLib main loop has
// g_unix_signal_add). The previous handlers come back when it goes away.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The first signal received (SIGINT or SIGTERM); 0 while none was.
  static const volatile std::sig_atomic_t* received();

 private:
  struct sigaction old_int_;
  struct sigaction old_term_;
};

}  // namespace cli
}  // namespace ssim2
