#include "khun/bot/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <chrono>

namespace khun::bot::http {

namespace {

// What a stream's write callback needs: the line splitter and the caller's handlers.
struct StreamState {
    CURL* curl = nullptr;
    const std::function<void()>* opened = nullptr;
    const std::function<bool(const std::string&)>* line = nullptr;
    const std::atomic<bool>* stop = nullptr;
    std::string pending; // bytes after the last newline
    std::string refusal; // the body of a non-2xx answer
    bool announced = false;
    bool cancelled = false; // by `line` or `stop`, not a failure
    std::chrono::steady_clock::time_point lastByte;
    int idleSeconds = 0;
    bool idle = false;
};

size_t collect(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

size_t stream_write(char* data, size_t size, size_t n, void* user) {
    auto& s = *static_cast<StreamState*>(user);
    s.lastByte = std::chrono::steady_clock::now();
    long status = 0;
    curl_easy_getinfo(s.curl, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status >= 300) {
        // A refusal's body is a short message, not a stream: keep a bounded part of it.
        if (s.refusal.size() < 4096) s.refusal.append(data, std::min<size_t>(size * n, 4096));
        return size * n;
    }
    if (!s.announced) {
        s.announced = true;
        if (*s.opened) (*s.opened)();
    }
    s.pending.append(data, size * n);
    size_t start = 0;
    for (size_t nl; (nl = s.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string text = s.pending.substr(start, nl - start);
        if (!text.empty() && text.back() == '\r') text.pop_back();
        if (!(*s.line)(text)) {
            s.cancelled = true;
            return 0; // any value but size * n makes curl stop the transfer
        }
    }
    s.pending.erase(0, start);
    return size * n;
}

// curl calls this about once a second even while no byte arrives: the place to notice
// a stop request and a stream gone quiet.
int stream_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto& s = *static_cast<StreamState*>(user);
    if (s.stop->load()) {
        s.cancelled = true;
        return 1;
    }
    if (std::chrono::steady_clock::now() - s.lastByte > std::chrono::seconds(s.idleSeconds)) {
        s.idle = true;
        return 1;
    }
    return 0;
}

// What every transfer sets: the URL, the headers (the token's first), no signals (the
// client is threaded), a connect timeout and who we are.
curl_slist* prepare(CURL* c, const std::string& url, const std::string& authorization,
                    const std::vector<std::string>& extra = {}) {
    curl_easy_reset(c);
    curl_slist* headers = curl_slist_append(nullptr, authorization.c_str());
    for (const std::string& h : extra) headers = curl_slist_append(headers, h.c_str());
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "Khun/" KHUN_VERSION);
    return headers;
}

} // namespace

void global_init() { curl_global_init(CURL_GLOBAL_DEFAULT); }

std::string Response::what() const {
    if (!error.empty()) return error;
    return "HTTP " + std::to_string(status);
}

Client::Client(std::string serverUrl, const std::string& token)
    : server(std::move(serverUrl)), authorization("Authorization: Bearer " + token),
      curl(curl_easy_init()) {
    while (!server.empty() && server.back() == '/') server.pop_back();
}

Client::~Client() { curl_easy_cleanup(static_cast<CURL*>(curl)); }

Response Client::perform(const std::string& path, const std::string* form, int timeoutSeconds) {
    CURL* c = static_cast<CURL*>(curl);
    assert(c);
    Response r;
    const std::string url = server + path;
    curl_slist* headers = prepare(c, url, authorization);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, long(timeoutSeconds));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    if (form) {
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, form->c_str());
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, long(form->size()));
    }
    const CURLcode code = curl_easy_perform(c);
    curl_slist_free_all(headers);
    if (code != CURLE_OK) r.error = curl_easy_strerror(code);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &r.seconds);
    return r;
}

Response Client::get(const std::string& path, int timeoutSeconds) {
    return perform(path, nullptr, timeoutSeconds);
}

Response Client::post(const std::string& path, const std::string& form, int timeoutSeconds) {
    return perform(path, &form, timeoutSeconds);
}

Response Client::stream(const std::string& path, const std::vector<std::string>& extra,
                        const std::function<void()>& opened,
                        const std::function<bool(const std::string&)>& line,
                        const std::atomic<bool>& stop, int idleSeconds) {
    assert(idleSeconds > 0);
    CURL* c = static_cast<CURL*>(curl);
    Response r;
    const std::string url = server + path;
    curl_slist* headers = prepare(c, url, authorization, extra);
    StreamState s;
    s.curl = c;
    s.opened = &opened;
    s.line = &line;
    s.stop = &stop;
    s.lastByte = std::chrono::steady_clock::now();
    s.idleSeconds = idleSeconds;
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, stream_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, stream_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &s);
    const CURLcode code = curl_easy_perform(c);
    curl_slist_free_all(headers);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    r.body = std::move(s.refusal);
    if (s.idle)
        r.error = "no data for " + std::to_string(idleSeconds) + " s";
    else if (code != CURLE_OK && !s.cancelled)
        r.error = curl_easy_strerror(code);
    return r;
}

std::string form_escape(const std::string& text) {
    static const char Hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char ch : text) {
        if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
            out += char(ch);
        } else {
            out += '%';
            out += Hex[ch >> 4];
            out += Hex[ch & 15];
        }
    }
    return out;
}

} // namespace khun::bot::http
