// `khun bot`: Khun on pychess.org as a BOT account, speaking the site's lichess-style
// BOT API itself (docs/bot.md): the event stream (challenges, game starts), a stream per
// game, moves posted in the site's notation. Each game is searched by its own Engine, as
// a GUI would drive it; the API is only another dialect on top.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace khun::bot {

struct BotConfig {
    std::string server = "https://www.pychess.org";
    std::string token;
    int maxGames = 0; // exit 0 once this many games ended; 0: play on
    int concurrency = 1;
    std::vector<std::string> variants; // pychess.org's names; empty: every one Khun plays
    int threads = 1;                   // each game's engine
    int hashMb = 16;
};

// The games of the family pychess.org offers that Khun plays, by the site's names.
[[nodiscard]] std::vector<std::string> bot_variants();

// Plays until `maxGames` games ended (0), or until the server refuses the token or the
// client's capabilities (1, after one line on `log`). Network failures and 5xx answers
// are retried with backoff, games in progress resumed. One line per event on `log`.
int run_bot(const BotConfig& config, std::ostream& log);

// `khun bot ARGS`: the command line (README, "Play on pychess.org") into a BotConfig, then
// run_bot; 2 with a message for bad arguments.
int bot_main(const std::vector<std::string>& args);

} // namespace khun::bot
