// The last step of every ssim2 run: the result on stdout must have reached
// its destination (a full disk, a closed pipe), else the run failed.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ssim2 {
namespace cli {

// Flushes stdout; on a write error prints one line and returns 1, else
// returns `code`.
inline int FinishStdout(int code) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    std::fprintf(stderr, "ssim2: cannot write the result to standard output: %s\n",
                 err ? std::strerror(err) : "write error");
    return 1;
  }
  return code;
}

}  // namespace cli
}  // namespace ssim2
