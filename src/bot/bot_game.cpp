#include "bot_game.h"

#include "khun/rules/movegen.h"
#include "khun/rules/text.h"
#include "khun/rules/variant.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <cctype>

namespace khun::bot {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// The game stream sends a ping every 6 s: this long without a byte means it is dead.
constexpr int StreamIdleSeconds = 20;
// The server lets go of a game stream that we dropped only when its next write fails: at
// the next ping, within 6 s. A stream opened before then is answered 200 and broken off
// (a conflict: server/bot_api.py), so a stream that did not end on the server's word is
// reopened after this long.
constexpr int ReopenAfterDropSeconds = 8;
// How long a move the server did not confirm (a 5xx, no answer) waits for the game
// stream to show it: the server sends the new state as it plays a move. Then it is
// posted again, which is harmless: the server ignores a move repeated or out of turn.
constexpr auto ConfirmWait = std::chrono::seconds(2);
// The watchdog's margin beyond the clocks (watchdog_ms).
constexpr double WatchdogMarginMs = 60000;
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

// A number field that the site sends as an integer or a float (clocks), or absent; held
// within a year of milliseconds, so that an absurd one converts to a duration.
double number(const json& j, const char* key) {
    constexpr double Year = 365.0 * 24 * 3600 * 1000;
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? std::clamp(it->get<double>(), -Year, Year) : 0.0;
}

// gameFull's initialFen: "" for the start position, and "None" for it too in a game the
// server restored after a restart (it writes the field without a test); "startpos" from
// servers that follow lichess.
std::string set_up_fen(const json& full) {
    const std::string fen = text_field(full, "initialFen");
    const std::vector<std::string> w = words(fen);
    return w.empty() || (w.size() == 1 && (w[0] == "None" || w[0] == "startpos")) ? "" : fen;
}

} // namespace

std::string text_field(const json& j, const char* key) {
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

void Log::line(const std::string& text) {
    std::lock_guard<std::mutex> lock(m);
    out << "bot: " << text << std::endl;
}

void pause(int seconds, const std::function<bool()>& stop) {
    const auto until = Clock::now() + std::chrono::seconds(seconds);
    while (Clock::now() < until && !stop())
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

Clock::time_point full_stamp(Clock::time_point arrival, std::optional<Clock::time_point> known,
                             std::optional<Clock::time_point> lastHeard) {
    if (known) return *known;
    if (lastHeard) return std::min(arrival, *lastHeard);
    return arrival;
}

double watchdog_ms(const double time[COLOR_NB], const double inc[COLOR_NB]) {
    return std::max(time[WHITE], time[BLACK]) + std::max(inc[WHITE], inc[BLACK]) + WatchdogMarginMs;
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
    const auto now = Clock::now();
    const json j = json::parse(line, nullptr, false);
    const std::string type = text_field(j, "type");
    if (type == "gameEnd") {
        ended = true;
        engine.stop();
        changed.notify_all();
        return false;
    }
    std::lock_guard<std::mutex> lock(m);
    try {
        read_state(j, type, now, seenFull);
    } catch (const json::exception& e) { // a field of another type than the site sends
        context.log->line("game " + id + ": ignored a line the client cannot read (" +
                          std::string(e.what()) + ")");
    }
    return !stopping();
}

void BotGame::read_state(const json& j, const std::string& type, Clock::time_point now,
                         bool& seenFull) {
    const bool full = type == "gameFull";
    if (!full && (type != "gameState" || !seenFull)) {
        if (seenFull) lastHeard = now;
        return;
    }
    const json& s = full ? j.value("state", json::object()) : j;
    State next;
    next.moves = s.value("moves", "");
    // Clocks in milliseconds, increments in seconds (the site's units, not lichess's).
    next.time[WHITE] = number(s, "wtime");
    next.time[BLACK] = number(s, "btime");
    next.inc[WHITE] = 1000 * number(s, "winc");
    next.inc[BLACK] = 1000 * number(s, "binc");
    next.arrived = now;
    next.stamp = now; // a gameState comes as the move is played
    next.seq = state.seq + 1;
    next.epoch = state.epoch + (full || next.moves != state.moves);
    if (full) {
        seenFull = true;
        variant = j.value("variant", json::object()).value("name", "");
        initialFen = set_up_fen(j);
        const std::string white = j.value("white", json::object()).value("name", "");
        const std::string black = j.value("black", json::object()).value("name", "");
        us = same_name(white, context.account)   ? std::optional<Color>(WHITE)
             : same_name(black, context.account) ? std::optional<Color>(BLACK)
                                                 : std::nullopt;
        opponent = us == WHITE ? black : white;
        const bool seen = state.seq > 0 && next.moves == state.moves &&
                          next.time[WHITE] == state.time[WHITE] &&
                          next.time[BLACK] == state.time[BLACK];
        std::optional<Clock::time_point> heard = lastHeard;
        if (lastAnswered && (!heard || *lastAnswered > *heard)) heard = lastAnswered;
        next.stamp = full_stamp(
            now, seen ? std::optional<Clock::time_point>(state.stamp) : std::nullopt, heard);
    }
    state = next;
    lastHeard = now;
    changed.notify_all();
}

void BotGame::read() {
    http::Client client(context.server, context.token);
    Backoff backoff;
    Clock::time_point heldUntil; // before then the server may hold our last stream
    while (!stopping()) {
        bool seenFull = false;
        interrupt = false;
        const http::Response r = client.stream(
            "/api/bot/game/stream/" + id, {}, {},
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
        if (seenFull) backoff.reset();
        // A stream that reached the server (2xx) and did not end on its word is one it may
        // still hold; a refusal on the way (a proxy's 502) never reached it.
        const bool reached = r.status >= 200 && r.status < 300;
        if (reached && !(seenFull && r.ok()))
            heldUntil = Clock::now() + std::chrono::seconds(ReopenAfterDropSeconds);
        const auto held = std::chrono::ceil<std::chrono::seconds>(heldUntil - Clock::now());
        const int wait = std::max(backoff.next(), int(held.count()));
        const std::string why = !seenFull && reached
                                    ? "answered without the game: the server still holds "
                                      "our last stream, or no longer has the game"
                                : r.ok() ? "closed by the server"
                                         : r.what();
        context.log->line("game " + id + ": stream lost (" + why + "); reopening in " +
                          std::to_string(wait) + " s");
        pause(wait, [this] { return stopping(); });
    }
    engine.stop();
    changed.notify_all();
}

void BotGame::abort_game(http::Client& client, const std::string& why) {
    const http::Response r = client.post("/api/bot/game/" + id + "/abort");
    context.log->line("game " + id + ": " + why + "; aborted it" +
                      (r.ok() ? "" : " (" + r.what() + ")"));
    ended = true;
    interrupt = true;
}

bool BotGame::post_move(http::Client& client, const std::string& move, uint64_t seq,
                        double& latencyMs) {
    while (!stopping()) {
        const http::Response r = client.post("/api/bot/game/" + id + "/move/" + move, "", 15);
        if (r.ok()) {
            latencyMs = 0.7 * latencyMs + 0.3 * 1000 * r.seconds;
            std::lock_guard<std::mutex> lock(m);
            lastAnswered = Clock::now();
            return true;
        }
        if (r.status == 404 || r.status == 403) {
            context.log->line("game " + id + ": the server no longer has it for us (" + r.what() +
                              ")");
            ended = true;
            interrupt = true;
            return false;
        }
        // No answer, or one that does not say the move was played (a 502 from a proxy
        // may come after the server took it): the game stream says what happened.
        context.log->line("game " + id + ": move " + move + " not confirmed (" + r.what() +
                          "); waiting for the game stream");
        std::unique_lock<std::mutex> lock(m);
        if (changed.wait_for(lock, ConfirmWait, [&] { return state.seq != seq || stopping(); }))
            return false; // a newer state: decided on afresh
    }
    return false;
}

void BotGame::play() {
    http::Client client(context.server, context.token);
    double latencyMs = FirstLatencyMs;
    uint64_t handled = 0;
    // The state our last move answered, by list and epoch (State::epoch).
    std::optional<std::pair<std::string, uint64_t>> answered;
    std::string setVariant;
    while (true) {
        State s;
        std::string gameVariant, fen;
        std::optional<Color> side;
        {
            std::unique_lock<std::mutex> lock(m);
            const double limitMs = watchdog_ms(state.time, state.inc);
            const auto deadline =
                (state.seq ? state.arrived : created) + std::chrono::milliseconds(int64_t(limitMs));
            if (!changed.wait_until(lock, deadline,
                                    [&] { return state.seq != handled || stopping(); })) {
                context.log->line("game " + id + ": no state from the server for " +
                                  std::to_string(int64_t(limitMs / 1000)) +
                                  " s, more than the clocks allow; ending it on our side");
                timedOut = true;
                ended = true;
                interrupt = true;
                break;
            }
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
                abort_game(client, gameVariant + " is not a game Khun plays here");
                break;
            }
            engine.set_option("UCI_Variant", gameVariant);
            setVariant = gameVariant;
        }
        if (auto err = engine.set_position(fen, words(s.moves))) {
            // A set-up position Khun refuses will not improve: the game is aborted at
            // once (the site allows it at any ply), not lost on time. A move list it
            // cannot follow may still be taken back.
            if (auto bad = engine.set_position(fen, {})) {
                abort_game(client, "Khun refuses its start position (" + *bad + ")");
                break;
            }
            context.log->line("game " + id + ": cannot follow the game (" + *err + ")");
            continue;
        }
        const Position& pos = engine.position();
        if (pos.side_to_move() != *side) continue;
        if (answered && answered->first == s.moves && answered->second == s.epoch) continue;
        // No test of Khun's own verdict (a count run out, a repetition): the server decides
        // through Fairy-Stockfish and sends gameEnd; until then a game goes on. A position
        // with no legal move gives no move to post.
        const Color me = *side;
        search::Limits limits;
        for (Color c : {WHITE, BLACK}) {
            limits.time[c] = search::TimePoint(s.time[c]);
            limits.inc[c] = search::TimePoint(s.inc[c]);
        }
        // Our clock has run since the state's stamp, and the move's trip to the server
        // costs more of it: the search gets what is left.
        const double spent =
            std::chrono::duration<double, std::milli>(Clock::now() - s.stamp).count();
        limits.time[me] = std::max<search::TimePoint>(
            1, search::TimePoint(s.time[me] - spent - LatencyMargin * latencyMs));
        const protocol::Engine::Thought t = engine.think(limits);
        if (stopping()) break;
        uint64_t now;
        {
            std::lock_guard<std::mutex> lock(m);
            if (state.seq != handled && state.moves != s.moves) continue; // moved on, or back
            now = state.seq;
        }
        if (!t.best) continue;
        if (post_move(client, to_uci(t.best, engine.position()), now, latencyMs))
            answered.emplace(s.moves, s.epoch);
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

} // namespace khun::bot
