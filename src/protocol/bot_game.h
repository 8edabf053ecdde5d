// What bot.cpp and bot_game.cpp share: the log, the backoff, and one game played over
// its own stream (bot.h).
#pragma once

#include "khun/protocol/engine.h"
#include "khun/protocol/http.h"

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

namespace khun::protocol::bot {

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

  private:
    // The newest state the stream gave: moves since the set-up position, the clocks.
    struct State {
        std::string moves;
        double time[COLOR_NB] = {0, 0}; // ms
        double inc[COLOR_NB] = {0, 0};  // ms
        std::chrono::steady_clock::time_point received;
        uint64_t seq = 0; // counts the states; a gameFull makes a new one too
    };

    void read();
    void play();
    bool on_line(const std::string& line, bool& seenFull);
    [[nodiscard]] bool stopping() const { return ended || context.quit->load(); }
    void finish_log(const State& last);

    const std::string id;
    GameContext context;
    Engine engine; // made here, on the caller's thread: Engine's set-up is not thread-safe

    std::mutex m;
    std::condition_variable changed;
    State state;
    // From gameFull: the game and our side in it.
    std::string variant, initialFen;
    std::optional<Color> us;
    std::string opponent;
    bool announced = false;

    std::atomic<bool> ended{false};     // gameEnd came (or the game is gone)
    std::atomic<bool> resync{false};    // the player asks for the stream to be reopened
    std::atomic<bool> interrupt{false}; // makes the reader drop its stream now
    std::atomic<bool> done{false};
    std::thread reader, player;
};

} // namespace khun::protocol::bot
