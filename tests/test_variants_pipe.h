// The real `khun` binary on two pipes, for the dialect tests (UCI, USI, CECP): send a
// line, wait (always with a timeout) for a line, keep the whole conversation so that a
// failing check can show it. The destructor kills a child that has not exited.
#pragma once

#include "khun/rules/text.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace pipetest {

class Child {
  public:
    // `args`: the engine's command-line arguments (`khun xboard`), none by default.
    explicit Child(const std::vector<std::string>& args = {}) {
        std::vector<char*> argv{const_cast<char*>(KHUN_BINARY)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        std::signal(SIGPIPE, SIG_IGN); // a dead engine must fail a check, not kill the suite
        int in[2], out[2];
        REQUIRE(pipe(in) == 0);
        REQUIRE(pipe(out) == 0);
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            dup2(in[0], 0);
            dup2(out[1], 1);
            close(in[1]);
            close(out[0]);
            execv(KHUN_BINARY, argv.data());
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        to = in[1];
        from = out[0];
        start = std::chrono::steady_clock::now();
    }
    ~Child() {
        if (to >= 0) close(to);
        if (pid > 0 && !exited) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
        if (from >= 0) close(from);
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;

    void send(const std::string& line) {
        log.push_back(stamp() + "> " + line);
        std::string s = line + "\n";
        size_t done = 0;
        while (done < s.size()) {
            ssize_t n = write(to, s.data() + done, s.size() - done);
            if (n <= 0) break;
            done += size_t(n);
        }
    }

    // The next line the engine prints, or nullopt after `ms` milliseconds.
    std::optional<std::string> line(int ms = 10000) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (true) {
            size_t nl = buffer.find('\n');
            if (nl != std::string::npos) {
                std::string l = buffer.substr(0, nl);
                buffer.erase(0, nl + 1);
                lines.push_back(l);
                log.push_back(stamp() + "< " + l);
                return l;
            }
            int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                               deadline - std::chrono::steady_clock::now())
                               .count());
            if (left <= 0) return std::nullopt;
            pollfd p{from, POLLIN, 0};
            if (poll(&p, 1, left) <= 0) continue;
            char buf[4096];
            ssize_t n = read(from, buf, sizeof buf);
            if (n <= 0) return std::nullopt;
            buffer.append(buf, size_t(n));
        }
    }

    // Lines up to and including the first one `done` accepts; nullopt on timeout.
    std::optional<std::vector<std::string>>
    until(const std::function<bool(const std::string&)>& done, int ms = 10000) {
        std::vector<std::string> got;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (true) {
            int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                               deadline - std::chrono::steady_clock::now())
                               .count());
            auto l = line(std::max(left, 0));
            if (!l) return std::nullopt;
            got.push_back(*l);
            if (done(*l)) return got;
        }
    }
    std::optional<std::vector<std::string>> until_prefix(const std::string& prefix,
                                                         int ms = 10000) {
        return until([&](const std::string& l) { return l.compare(0, prefix.size(), prefix) == 0; },
                     ms);
    }

    // Closes the engine's input and waits for it to exit; its exit status, or -1.
    int wait_exit(int ms = 5000) {
        if (to >= 0) close(to), to = -1;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (waitpid(pid, &status, WNOHANG) == pid) {
                exited = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
            usleep(2000);
        }
        return -1;
    }

    std::string transcript() const {
        std::string s;
        for (const std::string& l : log) s += l + "\n";
        return s;
    }

    std::vector<std::string> lines;

  private:
    std::string stamp() const {
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
        return "[" + std::to_string(ms) + " ms] ";
    }
    pid_t pid = -1;
    int to = -1, from = -1;
    bool exited = false;
    std::string buffer;
    std::vector<std::string> log;
    std::chrono::steady_clock::time_point start;
};

using khun::words;

inline bool starts_with(const std::string& s, const std::string& p) {
    return s.compare(0, p.size(), p) == 0;
}

// The text after `field` on the line of `d`'s answer that starts with it ("" if none);
// `d`'s answer ends with the line starting with `last`.
inline std::string d_field(Child& e, const std::string& field, const std::string& last) {
    e.send("d");
    auto r = e.until_prefix(last);
    if (!r) return "";
    for (const std::string& l : *r)
        if (starts_with(l, field)) return l.substr(field.size());
    return "";
}

} // namespace pipetest

// A check that shows the conversation when it fails.
#define PIPE_CHECK(child, ...)                                                                     \
    do {                                                                                           \
        INFO("conversation:\n" << (child).transcript());                                           \
        CHECK(__VA_ARGS__);                                                                        \
    } while (0)
#define PIPE_REQUIRE(child, ...)                                                                   \
    do {                                                                                           \
        INFO("conversation:\n" << (child).transcript());                                           \
        REQUIRE(__VA_ARGS__);                                                                      \
    } while (0)
