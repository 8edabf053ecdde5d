#include "khun/bot/bot.h"
#include "khun/tools/cli.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>

namespace khun::bot {

// `khun bot`: plays on pychess.org (or a server speaking its BOT API) as a BOT account.
int bot_main(const std::vector<std::string>& args) {
    BotConfig config;
    std::string variants;
    if (const char* t = std::getenv("KHUN_BOT_TOKEN")) config.token = t;
    tools::CommandLine app{
        "khun bot", "Plays on pychess.org as a BOT account through the site's BOT API: accepts the "
                    "challenges it can play (declines the others with a reason), plays each game "
                    "with its own engine, reconnects after a dropped stream or a server error and "
                    "resumes the games in progress. One line per event on stderr. Create the "
                    "account's token on the site (Account, BOT API tokens); it may also come "
                    "from the environment variable KHUN_BOT_TOKEN, and it is never printed."};
    app.add("--server", config.server, "the site").show_default();
    app.add("--token", config.token, "the BOT account's API token");
    app.add("--max-games", config.maxGames,
            "exit 0 once this many games have ended (default: play on)")
        .check(tools::int_in(0, std::numeric_limits<int>::max()));
    app.add("--concurrency", config.concurrency, "games played at once")
        .show_default()
        .check(tools::int_in(1, 64));
    const std::vector<std::string> known = bot_variants();
    std::string all;
    for (const std::string& v : known) all += (all.empty() ? "" : ",") + v;
    app.add("--variants", variants,
            "the games to accept, a comma list of pychess.org's names (default: " + all + ")");
    app.add("--threads", config.threads, "search threads of each game's engine")
        .show_default()
        .check(tools::int_in(1, 512));
    app.add("--hash", config.hashMb, "hash table of each game's engine, in MB")
        .show_default()
        .check(tools::int_in(1, 1 << 20));
    if (auto exit = app.parse(args, std::cout, std::cerr)) return *exit;
    if (config.token.empty()) {
        std::cerr
            << "khun bot: no token: give --token or set KHUN_BOT_TOKEN; see khun bot --help\n";
        return tools::BadArguments;
    }
    std::istringstream list(variants);
    for (std::string v; std::getline(list, v, ',');) {
        if (v.empty()) continue;
        if (std::find(known.begin(), known.end(), v) == known.end()) {
            std::cerr << "khun bot: --variants: '" << v << "' is not a game Khun plays on "
                      << "pychess.org (" << all << "); see khun bot --help\n";
            return tools::BadArguments;
        }
        config.variants.push_back(v);
    }
    return run_bot(config, std::cerr);
}

} // namespace khun::bot
