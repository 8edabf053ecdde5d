#include "khun/bot/bot.h"

#include "bot_game.h"
#include "khun/rules/variant.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

namespace khun::bot {

using json = nlohmann::json;

namespace {

// pychess.org pings the event stream every 6 s: this long without a byte means it died.
constexpr int EventIdleSeconds = 20;
// An accepted challenge holds a slot until its gameStart; one that never comes (a custom
// FEN the server could not set up, a gameStart lost) gives the slot back after this long.
constexpr auto AcceptedGameWait = std::chrono::seconds(30);
// How long a game that came without a challenge waits for a game that just ended to give
// its slot back before it is aborted.
constexpr auto SlotGrace = std::chrono::seconds(2);

// "5+3", "0.5+0": the site's clock in minutes and increment in seconds.
std::string clock_text(const json& tc) {
    if (tc.value("type", "") != "clock") return tc.value("type", "no clock");
    const double limit = tc.value("limit", 0.0) / 60;
    std::ostringstream os;
    os << limit << "+" << tc.value("increment", 0);
    return os.str();
}

// The client's state between the event stream's lines.
class Bot {
  public:
    Bot(const BotConfig& config, std::ostream& out) : config(config), log(out) {}
    int run();

  private:
    bool on_event(const std::string& line);
    void on_challenge(const json& c);
    void start_game(const std::string& id);
    void reap();
    void expire_accepted();
    [[nodiscard]] bool done() const {
        return config.maxGames > 0 && finishedGames >= config.maxGames;
    }
    [[nodiscard]] int playing() const {
        int n = 0;
        for (const auto& [id, g] : games) n += !g->finished();
        return n;
    }

    const BotConfig& config;
    Log log;
    std::unique_ptr<http::Client> client; // requests; a curl handle runs one transfer at a time
    std::unique_ptr<http::Client> events; // the event stream, whose lines make the requests
    GameContext context;
    std::map<std::string, std::unique_ptr<BotGame>> games;
    std::set<std::string> seen; // every game id started, so a repeated gameStart is ignored
    // Accepted challenges whose gameStart has not come, and when they were accepted.
    std::map<std::string, std::chrono::steady_clock::time_point> accepted;
    std::atomic<int> finishedGames{0};
    std::atomic<bool> quit{false};   // the games stop (at exit)
    std::atomic<bool> finish{false}; // the event stream stops: --max-games reached
};

void Bot::on_challenge(const json& c) {
    const std::string id = c.value("id", "");
    const std::string who = c.value("challenger", json::object()).value("name", "someone");
    const std::string game = c.value("variant", json::object()).value("key", "?");
    const json tc = c.value("timeControl", json::object());
    const std::string what =
        "challenge " + id + " from " + who + " (" + game + " " + clock_text(tc) + ")";
    const bool ours =
        std::find(context.variants.begin(), context.variants.end(), game) != context.variants.end();
    // The site's decline reasons (server/seek.py), each shown to the player in words.
    std::string reason;
    if (!ours || c.value("chess960", false))
        reason = "variant";
    else if (tc.value("type", "") != "clock")
        reason = "timeControl";
    else if (playing() + int(accepted.size()) >= config.concurrency ||
             (config.maxGames > 0 && int(seen.size() + accepted.size()) >= config.maxGames))
        reason = "later";
    if (!reason.empty()) {
        const http::Response r = client->post("/api/challenge/" + id + "/decline",
                                              "reason=" + http::form_escape(reason));
        log.line(what + ": declined (" + reason + ")" + (r.ok() ? "" : ", " + r.what()));
        return;
    }
    const http::Response r = client->post("/api/challenge/" + id + "/accept");
    if (r.ok()) {
        accepted[id] = std::chrono::steady_clock::now();
        log.line(what + ": accepted");
    } else {
        log.line(what + ": could not accept (" + r.what() + ")");
    }
}

void Bot::start_game(const std::string& id) {
    if (id.empty() || seen.count(id)) return;
    // A game we accepted was counted then. One that comes without a challenge (a rematch,
    // a challenge whose slot was given back, a game in progress re-sent after a restart)
    // takes a slot now, or is aborted when none is free.
    if (!accepted.erase(id)) {
        const auto taken = [&] { return playing() + int(accepted.size()) >= config.concurrency; };
        // A rematch's gameStart may come a moment after the last game's gameEnd, on
        // another stream, before that game's thread has given its slot back.
        for (auto until = std::chrono::steady_clock::now() + SlotGrace;
             taken() && std::chrono::steady_clock::now() < until;)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const bool full = taken();
        const bool spent =
            config.maxGames > 0 && int(seen.size() + accepted.size()) >= config.maxGames;
        if (full || spent) {
            const http::Response r = client->post("/api/bot/game/" + id + "/abort");
            log.line("game " + id + " came without a challenge, but " +
                     (full ? "the --concurrency " + std::to_string(config.concurrency) +
                                 " slots are taken"
                           : "the --max-games " + std::to_string(config.maxGames) +
                                 " are played or playing") +
                     "; aborted it" + (r.ok() ? "" : " (" + r.what() + ")"));
            return;
        }
    }
    seen.insert(id);
    games[id] = std::make_unique<BotGame>(id, context);
}

// Games that ended are joined and dropped. Their ids stay in `seen`, but for games the
// watchdog ended: the server may still have one and send gameStart for it again.
void Bot::reap() {
    for (auto it = games.begin(); it != games.end();) {
        if (!it->second->finished()) {
            ++it;
            continue;
        }
        if (it->second->abandoned()) seen.erase(it->first);
        it = games.erase(it);
    }
}

void Bot::expire_accepted() {
    const auto now = std::chrono::steady_clock::now();
    for (auto it = accepted.begin(); it != accepted.end();) {
        if (now - it->second < AcceptedGameWait) {
            ++it;
            continue;
        }
        log.line("challenge " + it->first + ": accepted, but no game began in " +
                 std::to_string(std::chrono::seconds(AcceptedGameWait).count()) +
                 " s; its slot is free again");
        it = accepted.erase(it);
    }
}

bool Bot::on_event(const std::string& line) {
    reap();
    expire_accepted();
    const json j = json::parse(line, nullptr, false);
    // A field of another type than the site sends (json::type_error) skips the line.
    try {
        if (j.is_object()) {
            const std::string type = j.value("type", "");
            if (type == "challenge")
                on_challenge(j.value("challenge", json::object()));
            else if (type == "gameStart" && !done())
                start_game(j.value("game", json::object()).value("id", ""));
        }
    } catch (const json::exception& e) {
        log.line("ignored an event the client cannot read (" + std::string(e.what()) + ")");
    }
    return !done();
}

int Bot::run() {
    http::global_init();
    client = std::make_unique<http::Client>(config.server, config.token);
    events = std::make_unique<http::Client>(config.server, config.token);
    context.server = config.server;
    context.token = config.token;
    context.variants = config.variants.empty() ? bot_variants() : config.variants;
    context.threads = config.threads;
    context.hashMb = config.hashMb;
    context.log = &log;
    context.quit = &quit;
    context.ended = [this] {
        if (++finishedGames >= config.maxGames && config.maxGames > 0) finish = true;
    };

    // Who we are on the site (our colour in each game is found by this name). A refused
    // token will not heal: say so once and stop.
    Backoff backoff;
    while (true) {
        const http::Response r = client->get("/api/account");
        if (r.ok()) {
            const json j = json::parse(r.body, nullptr, false);
            context.account = text_field(j, "id");
            if (context.account.empty()) context.account = text_field(j, "username");
            if (context.account.empty()) {
                log.line("error: " + config.server + "/api/account did not say who we are");
                return 1;
            }
            // The site answers a token of an account that is not a BOT everywhere but on
            // the BOT endpoints, which refuse it with a bare 403: say what to do instead.
            if (text_field(j, "title") != "BOT") {
                log.line("error: " + context.account +
                         " is not a BOT account: upgrade the account to BOT (on the site: "
                         "Account, BOT API tokens, Upgrade to BOT), then run khun bot again");
                return 1;
            }
            break;
        }
        if (r.status >= 400 && r.status < 500) {
            log.line("error: " + config.server + " refused the token (" + r.what() + ")");
            return 1;
        }
        const int wait = backoff.next();
        log.line("cannot reach " + config.server + " (" + r.what() + "); trying again in " +
                 std::to_string(wait) + " s");
        pause(wait, [] { return false; });
    }
    std::string list;
    for (const std::string& v : context.variants) list += (list.empty() ? "" : ",") + v;
    log.line("connected to " + config.server + " as " + context.account + "; plays " + list);

    // pychess.org answers the event stream only when told what the client plays.
    json caps = {{"version", 1}, {"variants", context.variants}};
    const std::vector<std::string> headers = {"X-PyChess-Bot-Capabilities: " + caps.dump()};
    backoff.reset();
    int code = 0;
    while (!done()) {
        const http::Response r = events->stream(
            "/api/stream/event", headers, [&backoff] { backoff.reset(); },
            [this](const std::string& line) { return on_event(line); }, finish, EventIdleSeconds);
        if (done()) break;
        if (r.status >= 400 && r.status < 500) {
            std::string body = r.body.substr(0, r.body.find('\n'));
            log.line("error: the event stream was refused (" + r.what() +
                     (body.empty() ? "" : ": " + body.substr(0, 200)) + ")");
            code = 1;
            break;
        }
        const int wait = backoff.next();
        log.line("event stream lost (" +
                 (r.error.empty() && r.ok() ? "closed by the server" : r.what()) +
                 "); reconnecting in " + std::to_string(wait) + " s");
        pause(wait, [this] {
            reap();
            expire_accepted();
            return done();
        });
    }
    quit = true;
    games.clear(); // each game stops its search and threads
    return code;
}

} // namespace

std::vector<std::string> bot_variants() {
    // pychess.org's names for the games it shares with Khun (server/variants.py).
    std::vector<std::string> out;
    for (const char* name : {"makruk", "makpong", "cambodian", "asean", "sittuyin", "makrukhouse"})
        if (find_variant(name)) out.push_back(name);
    return out;
}

int run_bot(const BotConfig& config, std::ostream& log) {
    assert(config.concurrency >= 1);
    Bot bot(config, log);
    return bot.run();
}

} // namespace khun::bot
