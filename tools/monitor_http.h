// The monitor's HTTP server (libsoup 3, on the main loop): /metrics
// (OpenMetrics text), /api/state (JSON) and / (the live page).
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace ssim2 {
namespace monitor {

class HttpServer {
 public:
  struct Content {
    std::function<std::string()> metrics;  // /metrics
    std::function<std::string()> state;    // /api/state
  };
  // Listens on host:port (port 0: a free one). nullptr and *error on failure.
  static std::unique_ptr<HttpServer> Start(const std::string& host, int port, Content content,
                                           std::string* error);
  ~HttpServer();
  // The base URL it listens on, e.g. "http://127.0.0.1:9464/".
  const std::string& url() const { return url_; }

  struct Impl;  // the server and the content callbacks (the request handler's data)

 private:
  HttpServer() = default;
  std::unique_ptr<Impl> impl_;
  std::string url_;
};

}  // namespace monitor
}  // namespace ssim2
