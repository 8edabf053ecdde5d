// What bot.cpp and bot_game.cpp share: the log, the backoff, and one game played over
// its own stream (bot.h).
#pragma once

#include "khun/bot/http.h"
#include "khun/protocol/engine.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace khun::bot {

// One whole line at a time, from any thread: the operator's view of what happens.
class Log {
  public:
    explicit Log(std::ostream& out) : out(out) {}
    void line(const std::string& text);

  private:
    std::mutex m;
    std::ostream& out;
};

// Waits after a failure: 1, 2, 4 ... 30 s, back to 1 s after a success, so that a
// server in trouble is not hammered and a short outage costs little.
class Backoff {
  public:
    [[nodiscard]] int next() {
        const int s = seconds;
        seconds = std::min(seconds * 2, 30);
        return s;
    }
    void reset() { seconds = 1; }

  private:
    int seconds = 1;
};

// The string at `key` of an object, or "" (absent, another type, not an object): what
// the site's fields are read with where a malformed line must not throw.
[[nodiscard]] std::string text_field(const nlohmann::json& j, const char* key);

// Sleeps `seconds`, waking early once `stop()` holds (checked every 100 ms).
void pause(int seconds, const std::function<bool()>& stop);

// What every game needs from the client.
struct GameContext {
    std::string server, token;
    std::string account; // our name on the site, to find our colour
    std::vector<std::string> variants;
    int threads = 1, hashMb = 16;
    Log* log = nullptr;
    const std::atomic<bool>* quit = nullptr;
    // Called once when the game has ended (from the game's own thread).
    std::function<void()> ended;
};

// What the stream's clocks were worth when a gameFull brought them. The site stamps a
// state's clocks at the last move and runs the mover's clock from there, but a gameFull
// after a reconnection says nothing of when that move was: a list already seen keeps the
// stamp it had then (`known`), a list new to us is stamped no later than the last sign
// of life of the stream that missed it (`lastHeard`, or our own move's answer when that
// came later), and a first gameFull (a fresh client) at its arrival, as nothing better is
// known. So a stream that was dead for 20 s never makes Khun believe in time it lost.
[[nodiscard]] std::chrono::steady_clock::time_point
full_stamp(std::chrono::steady_clock::time_point arrival,
           std::optional<std::chrono::steady_clock::time_point> known,
           std::optional<std::chrono::steady_clock::time_point> lastHeard);

// How long a game may go without a state before Khun ends it on its side (ms): the side
// with more time could use all of it, plus an increment, and the site then owes a state
// or a gameEnd; 60 s more cover a slow server. A missed gameEnd, or a game the server no
// longer has (its stream then answers 200 and breaks, for ever), ends this way.
[[nodiscard]] double watchdog_ms(const double time[COLOR_NB], const double inc[COLOR_NB]);

// One game: a reader thread follows the game stream (reopening it after a drop, a
// timeout or a move the server may not have taken), a player thread searches and posts
// moves whenever the newest state has Khun to move.
class BotGame {
  public:
    BotGame(std::string id, GameContext context);
    ~BotGame();
    BotGame(const BotGame&) = delete;
    BotGame& operator=(const BotGame&) = delete;

    [[nodiscard]] bool finished() const { return done; }
    // Ended on Khun's side (no state for too long), not by the server's gameEnd: the
    // server may still have the game and send gameStart for it again.
    [[nodiscard]] bool abandoned() const { return timedOut; }

  private:
    // The newest state the stream gave: moves since the set-up position, the clocks.
    struct State {
        std::string moves;
        double time[COLOR_NB] = {0, 0};                // ms
        double inc[COLOR_NB] = {0, 0};                 // ms
        std::chrono::steady_clock::time_point stamp;   // when the clocks held
        std::chrono::steady_clock::time_point arrived; // when the line came
        uint64_t seq = 0; // counts the states; a gameFull makes a new one too
        // Counts the changes of the move list (and every gameFull): a state that repeats
        // the list we answered with no change between (a draw offer's flags, say) is not
        // a new question, but the same list after a takeback is.
        uint64_t epoch = 0;
    };

    void read();
    void play();
    bool on_line(const std::string& line, bool& seenFull);
    // A gameFull or gameState into `state` (m held).
    void read_state(const nlohmann::json& j, const std::string& type,
                    std::chrono::steady_clock::time_point now, bool& seenFull);
    [[nodiscard]] bool stopping() const { return ended || context.quit->load(); }
    // Posts `move` until the server answers 2xx or a newer state makes it moot; true
    // when the server took it.
    bool post_move(http::Client& client, const std::string& move, uint64_t seq, double& latencyMs);
    void abort_game(http::Client& client, const std::string& why);
    void finish_log(const State& last);

    const std::string id;
    GameContext context;
    const std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();
    protocol::Engine
        engine; // made here, on the caller's thread: Engine's set-up is not thread-safe

    std::mutex m;
    std::condition_variable changed;
    State state;
    // From gameFull: the game and our side in it.
    std::string variant, initialFen;
    std::optional<Color> us;
    std::string opponent;
    bool announced = false;

    // The last line of any stream (pings too), and the last 2xx answer to our move:
    // the lower bounds of when a move first seen in a gameFull was played.
    std::optional<std::chrono::steady_clock::time_point> lastHeard, lastAnswered;

    std::atomic<bool> ended{false};     // gameEnd came (or the game is gone)
    std::atomic<bool> timedOut{false};  // ended by the watchdog
    std::atomic<bool> interrupt{false}; // makes the reader drop its stream now
    std::atomic<bool> done{false};
    std::thread reader, player;
};

} // namespace khun::bot
