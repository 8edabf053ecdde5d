#include "bot_game.h"

#include "khun/rules/movegen.h"
#include "khun/rules/text.h"
#include "khun/rules/variant.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <cctype>

namespace khun::protocol::bot {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// The game stream sends a ping every 6 s: this long without a byte means it is dead.
constexpr int StreamIdleSeconds = 20;
// What a move's round trip is taken to cost before one has been measured (ms).
constexpr double FirstLatencyMs = 150;
// The share of a measured round trip that the clock is charged for in advance: the
// server starts our clock when it sends the state and stops it when our move arrives.
constexpr double LatencyMargin = 1.5;

bool same_name(const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower((unsigned char)x) == std::tolower((unsigned char)y);
           });
}

// A number field that the site sends as an integer or a float (clocks), or absent.
double number(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

} // namespace

void Log::line(const std::string& text) {
    std::lock_guard<std::mutex> lock(m);
    out << "bot: " << text << std::endl;
}

void pause(int seconds, const std::function<bool()>& stop) {
    const auto until = Clock::now() + std::chrono::seconds(seconds);
    while (Clock::now() < until && !stop())
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

BotGame::BotGame(std::string gameId, GameContext ctx) : id(std::move(gameId)), context(ctx) {
    assert(context.log && context.quit);
    engine.set_option("Threads", std::to_string(context.threads));
    engine.set_option("Hash", std::to_string(context.hashMb));
    reader = std::thread([this] { read(); });
    player = std::thread([this] { play(); });
}

BotGame::~BotGame() {
    ended = true;
    interrupt = true;
    changed.notify_all();
    engine.stop();
    if (reader.joinable()) reader.join();
    if (player.joinable()) player.join();
}

// One line of the game stream. Lines before the stream's gameFull are left alone: the
// server may deliver what it had queued before (an older state) ahead of it.
bool BotGame::on_line(const std::string& line, bool& seenFull) {
    if (interrupt) return false;
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object()) return !stopping();
    const std::string type = j.value("type", "");
    if (type == "gameEnd") {
        ended = true;
        engine.stop();
        changed.notify_all();
        return false;
    }
    if (type != "gameFull" && (type != "gameState" || !seenFull)) return !stopping();
    const json& s = type == "gameFull" ? j.value("state", json::object()) : j;
    std::lock_guard<std::mutex> lock(m);
    if (type == "gameFull") {
        seenFull = true;
        variant = j.value("variant", json::object()).value("name", "");
        initialFen = j.value("initialFen", "");
        if (initialFen == "startpos") initialFen.clear();
        const std::string white = j.value("white", json::object()).value("name", "");
        const std::string black = j.value("black", json::object()).value("name", "");
        us = same_name(white, context.account)   ? std::optional<Color>(WHITE)
             : same_name(black, context.account) ? std::optional<Color>(BLACK)
                                                 : std::nullopt;
        opponent = us == WHITE ? black : white;
    }
    state.moves = s.value("moves", "");
    // Clocks in milliseconds, increments in seconds (the site's units, not lichess's).
    state.time[WHITE] = number(s, "wtime");
    state.time[BLACK] = number(s, "btime");
    state.inc[WHITE] = 1000 * number(s, "winc");
    state.inc[BLACK] = 1000 * number(s, "binc");
    state.received = Clock::now();
    ++state.seq;
    changed.notify_all();
    return !stopping();
}

void BotGame::read() {
    http::Client client(context.server, context.token);
    Backoff backoff;
    while (!stopping()) {
        bool seenFull = false;
        interrupt = false;
        const http::Response r = client.stream(
            "/api/bot/game/stream/" + id, {}, [&backoff] { backoff.reset(); },
            [&](const std::string& line) { return on_line(line, seenFull); }, interrupt,
            StreamIdleSeconds);
        if (stopping()) break;
        if (r.status == 404 || r.status == 403) {
            context.log->line("game " + id + ": the server no longer has it for us (" + r.what() +
                              ")");
            ended = true;
            changed.notify_all();
            break;
        }
        if (resync.exchange(false)) continue; // the player wants a fresh gameFull now
        const int wait = backoff.next();
        context.log->line("game " + id + ": stream lost (" +
                          (r.error.empty() && r.ok() ? "closed by the server" : r.what()) +
                          "); reopening in " + std::to_string(wait) + " s");
        pause(wait, [this] { return stopping(); });
    }
    engine.stop();
    changed.notify_all();
}

void BotGame::play() {
    http::Client client(context.server, context.token);
    double latencyMs = FirstLatencyMs;
    uint64_t handled = 0;
    std::optional<std::string> answered; // the moves our last accepted move answered
    std::string setVariant;
    while (true) {
        State s;
        std::string gameVariant, fen;
        std::optional<Color> side;
        {
            std::unique_lock<std::mutex> lock(m);
            changed.wait(lock, [&] { return state.seq != handled || stopping(); });
            if (stopping()) break;
            s = state;
            handled = s.seq;
            gameVariant = variant;
            fen = initialFen;
            side = us;
            if (!announced) {
                announced = true;
                if (!side)
                    context.log->line("game " + id + " started: " + gameVariant +
                                      ", Khun is not a player in it");
                else
                    context.log->line("game " + id + " started: " + gameVariant + ", " +
                                      (*side == WHITE ? "white" : "black") + " against " +
                                      opponent);
            }
        }
        if (!side) continue;
        if (gameVariant != setVariant) {
            const bool ours = find_variant(gameVariant) &&
                              std::find(context.variants.begin(), context.variants.end(),
                                        gameVariant) != context.variants.end();
            if (!ours) {
                context.log->line("game " + id + ": " + gameVariant +
                                  " is not a game Khun plays here; aborting it");
                (void)client.post("/api/bot/game/" + id + "/abort");
                break;
            }
            engine.set_option("UCI_Variant", gameVariant);
            setVariant = gameVariant;
        }
        if (auto err = engine.set_position(fen, words(s.moves))) {
            context.log->line("game " + id + ": cannot follow the game (" + *err + ")");
            continue;
        }
        const Position& pos = engine.position();
        if (pos.side_to_move() != *side || answered == s.moves) continue;
        if (pos.outcome() != Outcome::None) continue; // the server ends it
        const Color me = *side;
        search::Limits limits;
        for (Color c : {WHITE, BLACK}) {
            limits.time[c] = search::TimePoint(s.time[c]);
            limits.inc[c] = search::TimePoint(s.inc[c]);
        }
        // Our clock has run since the state arrived, and the move's trip to the server
        // costs more of it: the search gets what is left.
        const double spent =
            std::chrono::duration<double, std::milli>(Clock::now() - s.received).count();
        limits.time[me] = std::max<search::TimePoint>(
            1, search::TimePoint(s.time[me] - spent - LatencyMargin * latencyMs));
        const Engine::Thought t = engine.think(limits);
        if (stopping()) break;
        {
            std::lock_guard<std::mutex> lock(m);
            if (state.seq != handled && state.moves != s.moves) continue; // taken back
        }
        if (!t.best) continue;
        const std::string move = to_uci(t.best, engine.position());
        const http::Response r = client.post("/api/bot/game/" + id + "/move/" + move, "", 15);
        if (r.ok()) {
            latencyMs = 0.7 * latencyMs + 0.3 * 1000 * r.seconds;
            answered = s.moves;
            continue;
        }
        // No answer, or one that does not say the move was played (a 502 from a proxy
        // may come after the server took it): the game stream says what happened.
        context.log->line("game " + id + ": move " + move + " not confirmed (" + r.what() +
                          "); reading the game again");
        resync = true;
        interrupt = true;
    }
    State last;
    {
        std::lock_guard<std::mutex> lock(m);
        last = state; // the newest, which a gameEnd right behind it may have left unhandled
    }
    finish_log(last);
    done = true;
    if (context.ended) context.ended();
}

// The end as far as the rules tell it from the last position; the site's gameEnd says
// no more (a resignation, a flag, an abort or a draw agreed leave no mark on the board).
void BotGame::finish_log(const State& last) {
    std::string how = "ended";
    const std::vector<std::string> moves = words(last.moves);
    if (us && !variant.empty() && engine.variant().name == variant &&
        !engine.set_position(initialFen, moves)) {
        const Position& pos = engine.position();
        const Outcome o = pos.outcome();
        how += " after " + std::to_string(moves.size()) + " plies";
        if (is_loss(o))
            how += std::string(": Khun ") + (pos.side_to_move() == *us ? "lost" : "won") + " (" +
                   outcome_name(o) + ")";
        else if (o != Outcome::None)
            how += std::string(": drawn (") + outcome_name(o) + ")";
    }
    context.log->line("game " + id + " " + how);
}

} // namespace khun::protocol::bot
