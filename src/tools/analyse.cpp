// The annotator. Each position of a game is searched once: its score is both the
// evaluation after the move that led to it and the measure of the next move, so a game
// of n moves costs n + 1 searches.
#include "khun/tools/analyse.h"

#include "khun/rules/movegen.h"
#include "khun/search/timeman.h"
#include "khun/tools/cli.h"
#include "khun/tools/progress.h"
#include "khun/tools/san.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace khun::tools {

double win_chance(const eval::wdl::WDL& w) { return (w.win + w.draw / 2.0) / 1000.0; }

double win_chance(Value score, int material, int countPliesLeft) {
    return win_chance(eval::wdl::from_score(score, material, countPliesLeft));
}

int judge_move(double drop) {
    // Lichess's thresholds (0.1, 0.2, 0.3 of its -1..1 scale) on the 0..1 scale, kept on
    // the WDL model's expectation: from an even start a bia given away is about ?!, two
    // about ?, a khon or more ??.
    if (drop >= 0.15) return 4;
    if (drop >= 0.10) return 2;
    if (drop >= 0.05) return 6;
    return 0;
}

std::string format_score(Value s) {
    if (std::abs(s) >= VALUE_MATE_IN_MAX_PLY) {
        const int plies = VALUE_MATE - std::abs(s);
        return std::string(s > 0 ? "+M" : "-M") + std::to_string((plies + 1) / 2);
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f", s / 100.0);
    std::string r = buf;
    if (r == "+0.00" || r == "-0.00") r = "0.00";
    return r;
}

namespace {

// What one position's search (or its end of game) says.
struct Verdict {
    Value score = 0;      // for the side to move
    eval::wdl::WDL wdl{}; // the same, with the position's material and count
    int depth = 0;
    Move best = Move::none();
    Outcome outcome = Outcome::None;
};

Verdict evaluate_position(protocol::Engine& engine, const AnalyseOptions& opts) {
    Verdict v;
    const Position& pos = engine.position();
    v.outcome = pos.outcome();
    if (v.outcome != Outcome::None) {
        v.score = is_loss(v.outcome) ? -VALUE_MATE : VALUE_DRAW;
        v.wdl = is_loss(v.outcome) ? eval::wdl::WDL{0, 0, 1000} : eval::wdl::WDL{0, 1000, 0};
        return v;
    }
    search::Limits limits;
    if (opts.depth > 0)
        limits.depth = opts.depth;
    else
        limits.movetime = opts.movetime > 0 ? opts.movetime : DefaultAnalyseMovetime;
    const protocol::Engine::Thought t = engine.think(limits);
    v.score = t.score;
    v.depth = t.depth;
    v.best = t.best;
    v.wdl = eval::wdl::from_position(pos, v.score, engine.wdl_model());
    return v;
}

Value for_white(Value v, Color stm) { return stm == WHITE ? v : -v; }

// "wdl 412/560/28": White's win, draw and loss per mille.
std::string format_wdl(const eval::wdl::WDL& w, Color stm) {
    const int win = stm == WHITE ? w.win : w.loss, loss = stm == WHITE ? w.loss : w.win;
    return "wdl " + std::to_string(win) + "/" + std::to_string(w.draw) + "/" + std::to_string(loss);
}

std::string outcome_text(Outcome o) {
    switch (o) {
    case Outcome::Checkmate: return "checkmate";
    case Outcome::Checked: return "check wins";
    case Outcome::Stalemate: return "stalemate";
    case Outcome::CountingDraw: return "draw by the counting rule";
    case Outcome::Repetition: return "draw by repetition";
    case Outcome::MoveRule: return "draw by the move rule";
    default: return "";
    }
}

// The note for a count that starts (or starts again) with the move just played.
std::string count_note(const Position& pos, int prevLimit, int prevPly) {
    const int limit = pos.count_limit(), ply = pos.count_ply();
    if (!limit) return prevLimit ? "count stops" : "";
    if (prevLimit == limit && ply == prevPly + 1) return "";
    auto bare = [&](Color c) { return pos.count(c) == 1; };
    // The counting side is the one with a bare king (pieces' honour), else the one to
    // move, for whom the board's honour count has just begun.
    const bool piecesHonour = bare(WHITE) || bare(BLACK);
    const Color counting = bare(WHITE) ? WHITE : bare(BLACK) ? BLACK : pos.side_to_move();
    const Color strong = ~counting;
    // The strong side's moves land on the plies after this one up to the limit.
    const int left = limit - ply;
    const int movesLeft = pos.side_to_move() == strong ? (left + 1) / 2 : left / 2;
    std::ostringstream os;
    os << (prevLimit ? "count restarts" : "count starts") << " ("
       << (piecesHonour ? "pieces'" : "board's") << " honour, " << limit / 2
       << "-move limit): " << (strong == WHITE ? "White" : "Black") << " has " << movesLeft
       << " moves";
    return os.str();
}

} // namespace

std::optional<std::string> annotate_game(protocol::Engine& engine, PgnGame& game,
                                         const AnalyseOptions& opts,
                                         const std::function<void()>& onPosition) {
    PgnGame copy = game;
    ReplayedGame r = replay_pgn(copy);
    if (r.error) return r.error;
    engine.set_variant(*r.variant);
    engine.new_game();

    std::vector<Verdict> verdicts;
    std::vector<Color> sides;
    std::vector<std::string> bestSan, notes; // per position: its best move, how it was reached
    int prevLimit = 0, prevPly = 0;
    // The game is played on once, move by move, as it is searched.
    if (auto e = engine.set_position(r.startFen, {})) return "move replay: " + *e;
    for (size_t i = 0; i <= copy.moves.size(); ++i) {
        verdicts.push_back(evaluate_position(engine, opts));
        Position& pos = engine.position();
        sides.push_back(pos.side_to_move());
        bestSan.push_back(verdicts.back().best ? to_san(pos, verdicts.back().best) : "");
        notes.push_back(i ? count_note(pos, prevLimit, prevPly) : "");
        prevLimit = pos.count_limit();
        prevPly = pos.count_ply();
        if (onPosition) onPosition();
        if (i < copy.moves.size()) engine.play(copy.moves[i].move);
    }

    for (size_t i = 0; i < copy.moves.size(); ++i) {
        PgnMove& pm = copy.moves[i];
        const Verdict& before = verdicts[i];
        const Verdict& after = verdicts[i + 1];
        const Color mover = sides[i];

        std::ostringstream c;
        c << format_score(for_white(after.score, sides[i + 1])) << "/" << after.depth;
        // The game's end says it all; otherwise what the score means for the result.
        if (after.outcome != Outcome::None)
            c << " " << outcome_text(after.outcome);
        else
            c << " " << format_wdl(after.wdl, sides[i + 1]);
        double drop = 0;
        if (before.best && before.best != pm.move) {
            // The verdict after the move is the opponent's, hence 1 minus.
            drop = std::max(0.0, win_chance(before.wdl) - (1.0 - win_chance(after.wdl)));
            c << " best " << bestSan[i] << " " << format_score(for_white(before.score, mover));
        }
        if (!notes[i + 1].empty()) c << "; " << notes[i + 1];

        // Our judgement replaces a glyph the game came with; other NAGs stay.
        auto& nags = pm.nags;
        nags.erase(std::remove_if(nags.begin(), nags.end(), [](int n) { return n >= 1 && n <= 6; }),
                   nags.end());
        if (int nag = judge_move(drop)) nags.insert(nags.begin(), nag);
        pm.comment = c.str();
    }
    game = std::move(copy);
    game.comment.clear();
    return std::nullopt;
}

int analyse_pgn(std::istream& in, std::ostream& out, std::ostream& err,
                const AnalyseOptions& opts) {
    std::vector<PgnGame> games = read_pgn(in);
    protocol::Engine engine;
    engine.set_option("Threads", std::to_string(opts.threads));
    engine.set_option("Hash", std::to_string(opts.hashMb));
    engine.set_option("UCI_AnalyseMode", "true"); // a draw scores 0, without contempt

    size_t total = 0, done = 0;
    for (const PgnGame& g : games) total += g.moves.size() + 1;
    // Positions are the unit (they take the time); the game being analysed rides along.
    Progress progress(err, "analyse", "positions", total, opts.progress);
    size_t gameIndex = 0;
    auto gameText = [&] {
        return "game " + std::to_string(gameIndex) + "/" + std::to_string(games.size());
    };

    int status = 0;
    for (PgnGame& g : games) {
        ++gameIndex;
        auto error = annotate_game(engine, g, opts, [&] {
            ++done;
            if (progress.due()) progress.update(done, gameText());
        });
        if (error) {
            progress.clear();
            err << "error: game " << g.number << ", " << *error << std::endl;
            status = 1;
            continue;
        }
        g.set_tag("Annotator", std::string("Khun ") + KHUN_VERSION);
        write_pgn(out, g);
        out.flush();
    }
    progress.update(done, gameText());
    progress.finish();
    return status;
}

int analyse_main(const std::vector<std::string>& args) {
    AnalyseOptions opts;
    std::string file, outFile;
    bool quiet = false;
    CommandLine app{
        "khun analyse",
        "Annotates every game of a PGN file: the evaluation after each move, the better "
        "move where the game left it, ?! ? ?? by the win chance a move gave away, and "
        "where a count starts. Writes the games to stdout or --out; progress on stderr."};
    app.add("GAMES", file, "the PGN file (- for stdin)").required();
    Arg& movetime =
        app.add("--movetime", opts.movetime,
                "milliseconds a position (default " + std::to_string(DefaultAnalyseMovetime) + ")");
    movetime.check(int_in(1, 86400000));
    app.add("--depth", opts.depth, "a fixed depth a position instead")
        .check(int_in(1, MAX_PLY - 1))
        .excludes(movetime);
    app.add("--threads", opts.threads, "search threads").check(int_in(1, 512)).show_default();
    app.add("--hash", opts.hashMb, "hash table size in MB")
        .check(int_in(1, 1 << 20))
        .show_default();
    app.add("--out", outFile, "write the annotated games to FILE instead of stdout");
    app.flag("--quiet", quiet, "no progress line");
    if (auto exit = app.parse(args, std::cout, std::cerr)) return *exit;
    opts.progress = !quiet;
    std::ifstream inFile;
    if (file != "-") {
        inFile.open(file);
        if (!inFile) {
            std::cerr << "khun analyse: cannot read '" << file << "'\n";
            return 2;
        }
    }
    std::istream& in = file == "-" ? std::cin : inFile;
    if (outFile.empty()) return analyse_pgn(in, std::cout, std::cerr, opts);
    std::ofstream out(outFile);
    if (!out) {
        std::cerr << "khun analyse: cannot write '" << outFile << "'\n";
        return 2;
    }
    return analyse_pgn(in, out, std::cerr, opts);
}

} // namespace khun::tools
