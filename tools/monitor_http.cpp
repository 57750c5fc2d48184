// The monitor's HTTP server: see monitor_http.h. Every request is answered
// on the main loop from what the registry holds at that moment.
#include "monitor_http.h"

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "monitor_metrics.h"
#include "monitor_page.h"

namespace ssim2 {
namespace monitor {

struct HttpServer::Impl {
  SoupServer* server = nullptr;
  Content content;
  ~Impl() {
    if (server) {
      soup_server_disconnect(server);
      g_object_unref(server);
    }
  }
};

namespace {

void Respond(SoupServerMessage* msg, const char* content_type, const std::string& body) {
  soup_server_message_set_status(msg, SOUP_STATUS_OK, nullptr);
  SoupMessageHeaders* headers = soup_server_message_get_response_headers(msg);
  soup_message_headers_replace(headers, "Cache-Control", "no-store");
  soup_server_message_set_response(msg, content_type, SOUP_MEMORY_COPY, body.data(),
                                   body.size());
}

void OnRequest(SoupServer*, SoupServerMessage* msg, const char* path, GHashTable*,
               gpointer data) {
  auto* impl = static_cast<HttpServer::Impl*>(data);
  const char* method = soup_server_message_get_method(msg);
  if (g_strcmp0(method, "GET") != 0 && g_strcmp0(method, "HEAD") != 0) {
    soup_server_message_set_status(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, nullptr);
    return;
  }
  const std::string p = path;
  if (p == "/metrics") {
    Respond(msg, Metrics::kOpenMetricsContentType, impl->content.metrics());
  } else if (p == "/api/state") {
    Respond(msg, "application/json", impl->content.state());
  } else if (p == "/" || p == "/index.html") {
    Respond(msg, "text/html; charset=utf-8", PageHtml());
  } else {
    soup_server_message_set_status(msg, SOUP_STATUS_NOT_FOUND, nullptr);
    const std::string body = "not found: the monitor serves /, /metrics and /api/state\n";
    soup_server_message_set_response(msg, "text/plain", SOUP_MEMORY_COPY, body.data(),
                                     body.size());
  }
}

}  // namespace

std::unique_ptr<HttpServer> HttpServer::Start(const std::string& host, int port, Content content,
                                              std::string* error) {
  std::unique_ptr<HttpServer> http(new HttpServer());
  http->impl_ = std::make_unique<Impl>();
  http->impl_->content = std::move(content);
  http->impl_->server = soup_server_new("server-header", "ssim2-monitor", nullptr);
  soup_server_add_handler(http->impl_->server, nullptr, OnRequest, http->impl_.get(), nullptr);
  GInetAddress* address = g_inet_address_new_from_string(host.c_str());
  if (!address) {
    *error = "--listen " + host + ": not an IP address";
    return nullptr;
  }
  GSocketAddress* socket_address = g_inet_socket_address_new(address, static_cast<guint16>(port));
  g_object_unref(address);
  GError* err = nullptr;
  const gboolean ok = soup_server_listen(http->impl_->server, socket_address,
                                         static_cast<SoupServerListenOptions>(0), &err);
  g_object_unref(socket_address);
  if (!ok) {
    *error = "cannot listen on " + host + ":" + std::to_string(port) + ": " +
             (err ? err->message : "unknown error");
    g_clear_error(&err);
    return nullptr;
  }
  GSList* uris = soup_server_get_uris(http->impl_->server);
  if (uris) {
    gchar* text = g_uri_to_string(static_cast<GUri*>(uris->data));
    http->url_ = text;
    g_free(text);
  }
  g_slist_free_full(uris, reinterpret_cast<GDestroyNotify>(g_uri_unref));
  return http;
}

HttpServer::~HttpServer() = default;

}  // namespace monitor
}  // namespace ssim2
