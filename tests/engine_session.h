// The real `khun` binary as a child process with two pipes, for the engine tests: a test
// sends a line, then waits (always with a timeout) until a line it is looking for arrives.
// Every line the engine prints is kept with the time it arrived, so a failing test can
// show the whole conversation. Nothing here can hang the suite: every wait is bounded by
// poll(), and the destructor kills the child if it has not exited.
#pragma once

#include "helpers.h"
#include "khun/rules/movegen.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace enginetest {

using Clock = std::chrono::steady_clock;

inline double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

inline bool starts_with(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

// The shared text helpers of the rules tests.
using testutil::data_path;
using testutil::split;
using testutil::StartFen;
using testutil::trim;
using testutil::words;

// The lines of a data file, trimmed, with blank lines and `#` comments skipped. A missing
// or empty file fails the calling test rather than passing it vacuously.
inline std::vector<std::string> data_lines(const std::string& name) {
    std::ifstream in(data_path(name));
    INFO("data file " << data_path(name));
    REQUIRE(in.good());
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (!line.empty() && line[0] != '#') out.push_back(line);
    }
    REQUIRE(!out.empty());
    return out;
}

// ---------------------------------------------------------------------------------------
// The library's view of a position, to check the engine's moves against.

inline void init_library() { testutil::init(); }

// The game `fen` + `moves` as the library sets it up; nullptr (and `error`) if refused.
inline std::unique_ptr<khun::Game> library_game(const std::string& fen,
                                                const std::vector<std::string>& moves = {},
                                                std::string* error = nullptr) {
    init_library();
    std::string err;
    auto g = khun::Game::make(fen, moves, khun::default_variant(), err);
    if (error) *error = err;
    return g;
}

// True when `move` is a legal move in `fen` (+ `moves`) according to the library.
inline bool is_legal_move(const std::string& fen, const std::string& move,
                          const std::vector<std::string>& moves = {}) {
    auto g = library_game(fen, moves);
    if (!g) return false;
    return khun::parse_uci_move(g->pos, move) != khun::Move::none();
}

// The first move of `pv` that is not legal in sequence from `fen` (+ `moves`), or "" when
// the whole line can be played.
inline std::string first_illegal(const std::string& fen, const std::vector<std::string>& moves,
                                 const std::vector<std::string>& pv) {
    auto g = library_game(fen, moves);
    if (!g) return "(position refused)";
    for (const std::string& m : pv) {
        khun::Move mv = khun::parse_uci_move(g->pos, m);
        if (mv == khun::Move::none()) return m;
        g->play(mv);
    }
    return "";
}

// ---------------------------------------------------------------------------------------
// UCI output parsing.

struct InfoLine {
    bool valid = false;
    int depth = -1;
    int multipv = 1;
    std::string scoreType; // "cp" or "mate" ("" when absent)
    long long score = 0;
    bool bound = false; // lowerbound / upperbound
    long long nodes = -1;
    std::vector<std::string> pv;
};

// Parses an `info ...` line with a score (not `info string`, not `info ... currmove`).
inline InfoLine parse_info(const std::string& line) {
    InfoLine r;
    auto w = words(line);
    if (w.empty() || w[0] != "info" || (w.size() > 1 && w[1] == "string")) return r;
    for (size_t i = 1; i < w.size(); ++i) {
        const std::string& k = w[i];
        auto next = [&](long long& dst) {
            if (i + 1 < w.size()) {
                try {
                    dst = std::stoll(w[++i]);
                } catch (...) {
                }
            }
        };
        long long v = 0;
        if (k == "depth")
            next(v), r.depth = int(v);
        else if (k == "multipv")
            next(v), r.multipv = int(v);
        else if (k == "nodes")
            next(r.nodes);
        else if (k == "score" && i + 2 < w.size()) {
            r.scoreType = w[i + 1];
            try {
                r.score = std::stoll(w[i + 2]);
            } catch (...) {
                r.scoreType.clear();
            }
            i += 2;
        } else if (k == "lowerbound" || k == "upperbound")
            r.bound = true;
        else if (k == "pv") {
            r.pv.assign(w.begin() + long(i) + 1, w.end());
            break;
        } else if (k == "currmove")
            return InfoLine{};
    }
    r.valid = !r.scoreType.empty();
    return r;
}

inline bool is_bestmove(const std::string& line) { return starts_with(line, "bestmove"); }

// The move of a `bestmove X [ponder Y]` line.
inline std::string bestmove_of(const std::string& line) {
    auto w = words(line);
    return w.size() >= 2 && w[0] == "bestmove" ? w[1] : "";
}

inline std::string ponder_of(const std::string& line) {
    auto w = words(line);
    return w.size() >= 4 && w[2] == "ponder" ? w[3] : "";
}

// ---------------------------------------------------------------------------------------
// The child process.

struct Line {
    std::string text;
    Clock::time_point time;
};

class EngineSession {
  public:
    explicit EngineSession(const std::string& binary = KHUN_BINARY) {
        std::signal(SIGPIPE, SIG_IGN); // a dead child must fail a check, not kill the suite
        int in[2], out[2];
        REQUIRE(pipe2(in, O_CLOEXEC) == 0);
        REQUIRE(pipe2(out, O_CLOEXEC) == 0);
        started = Clock::now();
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            dup2(in[0], STDIN_FILENO);
            dup2(out[1], STDOUT_FILENO);
            execl(binary.c_str(), binary.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        toChild = in[1];
        fromChild = out[0];
        fcntl(toChild, F_SETFL, fcntl(toChild, F_GETFL) | O_NONBLOCK);
        fcntl(fromChild, F_SETFL, fcntl(fromChild, F_GETFL) | O_NONBLOCK);
    }

    EngineSession(const EngineSession&) = delete;
    EngineSession& operator=(const EngineSession&) = delete;

    ~EngineSession() {
        close_stdin();
        if (!exitStatus) wait_exit(2000);
        if (!exitStatus && pid > 0) {
            kill(pid, SIGKILL);
            int status = 0;
            waitpid(pid, &status, 0);
        }
        if (fromChild >= 0) close(fromChild);
    }

    // Sends one line (a newline is added). Reads the engine's output meanwhile, so a long
    // line cannot deadlock against a full output pipe. Returns the time the line was sent.
    Clock::time_point send(const std::string& line, int timeout_ms = 10000) {
        return send_raw(line + "\n", timeout_ms);
    }

    // Sends `data` exactly as given (no newline added).
    Clock::time_point send_raw(const std::string& data, int timeout_ms = 10000) {
        std::string shown = data.size() > 200 ? data.substr(0, 200) + "..." : data;
        if (!shown.empty() && shown.back() == '\n') shown.pop_back();
        log.push_back({"> " + shown, Clock::now()});
        size_t done = 0;
        const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        while (done < data.size()) {
            if (toChild < 0) break;
            pollfd fds[2] = {{toChild, POLLOUT, 0}, {fromChild, POLLIN, 0}};
            int left = remaining(deadline);
            if (left <= 0) break;
            if (poll(fds, fromChild >= 0 ? 2 : 1, left) < 0) {
                if (errno == EINTR) continue;
                break;
            }
            if (fromChild >= 0 && (fds[1].revents & (POLLIN | POLLHUP))) read_available();
            if (fds[0].revents & (POLLERR | POLLHUP)) break;
            if (fds[0].revents & POLLOUT) {
                ssize_t n = write(toChild, data.data() + done, data.size() - done);
                if (n > 0)
                    done += size_t(n);
                else if (n < 0 && errno != EAGAIN && errno != EINTR)
                    break;
            }
        }
        sendOk = sendOk && done == data.size();
        return Clock::now();
    }

    // Closes the engine's standard input (end of file).
    void close_stdin() {
        if (toChild >= 0) close(toChild);
        toChild = -1;
    }

    // Waits until a line from index `from` on satisfies `pred`; returns its index.
    std::optional<size_t> wait_for(const std::function<bool(const std::string&)>& pred,
                                   int timeout_ms, size_t from) {
        const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        for (size_t i = from;; ++i) {
            while (i >= lines.size()) {
                int left = remaining(deadline);
                if (left <= 0) return std::nullopt;
                if (!pump(left) && i >= lines.size()) return std::nullopt; // end of output
            }
            if (pred(lines[i].text)) return i;
        }
    }

    // Same, from the read cursor on; on success the cursor moves past the matching line.
    std::optional<size_t> expect(const std::function<bool(const std::string&)>& pred,
                                 int timeout_ms = 10000) {
        auto i = wait_for(pred, timeout_ms, cursor);
        if (i) cursor = *i + 1;
        return i;
    }

    std::optional<size_t> expect_line(const std::string& exact, int timeout_ms = 10000) {
        return expect([&](const std::string& l) { return l == exact; }, timeout_ms);
    }

    std::optional<size_t> expect_prefix(const std::string& prefix, int timeout_ms = 10000) {
        return expect([&](const std::string& l) { return starts_with(l, prefix); }, timeout_ms);
    }

    // True when no line matching `pred` appears from the cursor on during `ms`.
    bool silent_for(const std::function<bool(const std::string&)>& pred, int ms) {
        return !wait_for(pred, ms, cursor);
    }

    // Reads whatever output arrives during `ms` (or until end of output).
    void drain(int ms) {
        const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
        while (remaining(deadline) > 0 && pump(remaining(deadline))) {
        }
    }

    // `isready` and its `readyok`: true once the engine has handled everything sent so far.
    bool sync(int timeout_ms = 10000) {
        cursor = lines.size();
        send("isready");
        return bool(expect_line("readyok", timeout_ms));
    }

    // The lines from index `from` up to (excluding) `to` (default: all read so far).
    std::vector<std::string> texts(size_t from, size_t to = size_t(-1)) const {
        std::vector<std::string> out;
        for (size_t i = from; i < std::min(to, lines.size()); ++i) out.push_back(lines[i].text);
        return out;
    }

    // The last `info` line with a score among lines [from, to).
    InfoLine last_info(size_t from, size_t to) const {
        InfoLine last;
        for (size_t i = from; i < std::min(to, lines.size()); ++i) {
            InfoLine r = parse_info(lines[i].text);
            if (r.valid) last = r;
        }
        return last;
    }

    // Waits for the child to exit; its exit code (or -signal), or nullopt on timeout.
    std::optional<int> wait_exit(int timeout_ms) {
        const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        while (!exitStatus) {
            int status = 0;
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid) {
                exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
                exitTime = Clock::now();
                break;
            }
            if (r < 0 && errno != EINTR) break;
            int left = remaining(deadline);
            if (left <= 0) break;
            // Keep reading output so the child never blocks on a full pipe while exiting.
            if (!pump(std::min(left, 10))) usleep(1000);
        }
        return exitStatus;
    }

    // The end of the conversation, for failure messages: "> sent" and "< received" lines
    // with the milliseconds since the engine started.
    std::string transcript(size_t maxLines = 150) const {
        std::vector<std::pair<Clock::time_point, std::string>> all;
        for (size_t i = log.size() > maxLines ? log.size() - maxLines : 0; i < log.size(); ++i)
            all.push_back({log[i].time, log[i].text});
        for (size_t i = lines.size() > maxLines ? lines.size() - maxLines : 0; i < lines.size();
             ++i) {
            const std::string& t = lines[i].text;
            all.push_back({lines[i].time, "< " + (t.size() > 300 ? t.substr(0, 300) + "..." : t)});
        }
        std::stable_sort(all.begin(), all.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::ostringstream os;
        size_t first = all.size() > maxLines ? all.size() - maxLines : 0;
        os << "conversation with " << KHUN_BINARY << (first ? " (last lines)" : "") << ":\n";
        for (size_t i = first; i < all.size(); ++i)
            os << "[" << long(ms_between(started, all[i].first)) << " ms] " << all[i].second
               << "\n";
        return os.str();
    }

    // Sends `cmd` then `isready`; returns the lines the engine printed before `readyok`
    // (nullopt if readyok did not come).
    std::optional<std::vector<std::string>> reply(const std::string& cmd, int timeout_ms = 10000) {
        cursor = lines.size();
        const size_t from = cursor;
        send(cmd);
        send("isready");
        auto r = expect_line("readyok", timeout_ms);
        if (!r) return std::nullopt;
        return texts(from, *r);
    }

    // `d`, and the FEN it shows ("" if none came).
    std::string shown_fen(int timeout_ms = 10000) {
        cursor = lines.size();
        send("d");
        auto r = expect_prefix("Fen: ", timeout_ms);
        return r ? lines[*r].text.substr(5) : std::string();
    }

    struct Search {
        bool done = false;        // a bestmove arrived in time
        std::string best, ponder; // from the bestmove line
        std::string bestLine;     // the bestmove line itself
        InfoLine last;            // the last info line with a score
        std::vector<InfoLine> infos;
        std::vector<std::string> output; // every line from the go up to the bestmove
        double ms = 0;                   // from sending the go to reading the bestmove
    };

    // Sends a `go ...` command and waits for its bestmove.
    Search search(const std::string& go, int timeout_ms = 30000) {
        cursor = lines.size();
        const size_t from = cursor;
        const auto t0 = send(go);
        Search s;
        auto r = expect(is_bestmove, timeout_ms);
        const size_t to = r ? *r + 1 : lines.size();
        s.output = texts(from, to);
        for (const std::string& l : s.output) {
            InfoLine i = parse_info(l);
            if (i.valid) s.infos.push_back(i), s.last = i;
        }
        if (r) {
            s.done = true;
            s.bestLine = lines[*r].text;
            s.best = bestmove_of(s.bestLine);
            s.ponder = ponder_of(s.bestLine);
            s.ms = ms_between(t0, lines[*r].time);
        }
        return s;
    }

    std::vector<Line> lines; // everything the engine printed, in order
    size_t cursor = 0;       // where expect() starts looking
    size_t mark() const { return lines.size(); }
    bool sendOk = true; // false once a line could not be written whole
    std::optional<int> exitStatus;
    Clock::time_point exitTime;
    Clock::time_point started;

  private:
    static int remaining(Clock::time_point deadline) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        return int(std::max<long long>(0, left.count()));
    }

    // Waits up to `ms` for output and reads it. False at end of output (and nothing read).
    bool pump(int ms) {
        if (fromChild < 0) return false;
        pollfd fd{fromChild, POLLIN, 0};
        int r = poll(&fd, 1, ms);
        if (r < 0) return errno == EINTR;
        if (r == 0) return true; // timeout: caller checks its deadline
        return read_available();
    }

    // Reads what is available now; false at end of file.
    bool read_available() {
        char buf[65536];
        while (true) {
            ssize_t n = read(fromChild, buf, sizeof buf);
            if (n > 0) {
                const auto t = Clock::now();
                for (ssize_t i = 0; i < n; ++i) {
                    if (buf[i] == '\n') {
                        if (!partial.empty() && partial.back() == '\r') partial.pop_back();
                        lines.push_back({partial, t});
                        partial.clear();
                    } else
                        partial += buf[i];
                }
                continue;
            }
            if (n == 0) {
                if (!partial.empty()) lines.push_back({partial, Clock::now()});
                partial.clear();
                close(fromChild);
                fromChild = -1;
                return false;
            }
            if (errno == EINTR) continue;
            return true; // EAGAIN
        }
    }

    pid_t pid = -1;
    int toChild = -1, fromChild = -1;
    std::string partial;
    std::vector<Line> log; // what was sent
};

// A check that shows the conversation so far when it fails. Evaluate what talks to the
// engine first, then check the result, so the transcript includes the reply.
#define ENGINE_CHECK(session, ...)                                                                 \
    do {                                                                                           \
        INFO((session).transcript());                                                              \
        CHECK(__VA_ARGS__);                                                                        \
    } while (false)
#define ENGINE_REQUIRE(session, ...)                                                               \
    do {                                                                                           \
        INFO((session).transcript());                                                              \
        REQUIRE(__VA_ARGS__);                                                                      \
    } while (false)

// A session that has done the handshake: `uci` ... `uciok`, then `isready`.
inline std::unique_ptr<EngineSession> started_engine() {
    auto e = std::make_unique<EngineSession>();
    e->send("uci");
    const bool uciok = bool(e->expect_line("uciok"));
    ENGINE_REQUIRE(*e, uciok);
    const bool ready = e->sync();
    ENGINE_REQUIRE(*e, ready);
    return e;
}

} // namespace enginetest
