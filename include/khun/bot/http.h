// HTTP for the BOT front-end (bot.h): requests and newline-delimited streams over
// libcurl, with TLS. One Client per thread: a curl handle is not shared.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace khun::bot::http {

// Once per process, before any thread makes a Client (curl_global_init is not
// thread-safe).
void global_init();

struct Response {
    long status = 0;    // the HTTP status; 0 when no answer came (see `error`)
    std::string body;   // a request's whole body; for a stream, the body of a refusal
    std::string error;  // a transport error (refused, timed out, reset), "" if none
    double seconds = 0; // from sending to the last byte
    // The answer carries the request's outcome: a 2xx status and no transport error.
    [[nodiscard]] bool ok() const { return error.empty() && status >= 200 && status < 300; }
    // How to describe a failure in one line ("HTTP 502", "connection refused").
    [[nodiscard]] std::string what() const;
};

class Client {
  public:
    // `server`: scheme and host ("https://www.pychess.org"); `token` goes into an
    // `Authorization: Bearer` header and nowhere else.
    Client(std::string server, const std::string& token);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    Response get(const std::string& path, int timeoutSeconds = 30);
    // A form post (application/x-www-form-urlencoded); `form` is already encoded.
    Response post(const std::string& path, const std::string& form = "", int timeoutSeconds = 30);

    // Opens a stream and hands `line` every complete line of a 2xx answer until the
    // server closes it, `idleSeconds` pass without a byte, `line` returns false, or
    // `stop` becomes true (checked about once a second). `opened` runs when a 2xx status
    // arrives, before the first line.
    Response stream(const std::string& path, const std::vector<std::string>& headers,
                    const std::function<void()>& opened,
                    const std::function<bool(const std::string&)>& line,
                    const std::atomic<bool>& stop, int idleSeconds);

  private:
    Response perform(const std::string& path, const std::string* form, int timeoutSeconds);
    std::string server;
    std::string authorization;
    void* curl; // CURL*, kept out of the header
};

// `text` with everything but unreserved characters percent-encoded, for a form field.
[[nodiscard]] std::string form_escape(const std::string& text);

} // namespace khun::bot::http
