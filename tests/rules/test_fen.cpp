// FEN: what is accepted, how it is written back, and that every refusal explains itself
// and leaves the previous position exactly as it was.
#include "helpers.h"

using namespace khun;
using namespace khun::protocol;
using namespace testutil;

namespace {

// Sets `fen` on a fresh position; returns the error, if any.
std::optional<std::string> try_set(const std::string& fen) {
    init();
    Position pos;
    StateInfo st;
    return pos.set(fen, makruk(), &st);
}

std::string fen_of(const std::string& fen) { return game(fen)->pos.fen(); }

} // namespace

TEST_CASE("fen: every FEN in the data files round-trips", "[fen]") {
    auto fens = data_fens();
    CHECK(fens.size() >= 300);
    for (const std::string& f : fens) {
        INFO(f);
        auto g = game(f);
        CHECK(g->pos.fen() == f);
        std::string why;
        CHECK(g->pos.is_ok(&why));
        INFO(why);
        // Setting the written FEN again gives the same position and key.
        auto again = game(g->pos.fen());
        CHECK(again->pos.key() == g->pos.key());
        CHECK(again->pos.fen() == f);
    }
}

TEST_CASE("fen: the start position in Fairy-Stockfish form", "[fen]") {
    auto g = game(StartFen);
    CHECK(g->pos.fen() == StartFen);
    CHECK(g->pos.side_to_move() == WHITE);
    CHECK(g->pos.count_limit() == 0);
    CHECK(g->pos.count_ply() == 0);
    CHECK(g->pos.piece_on(SQ_D1) == W_KING);
    CHECK(g->pos.piece_on(SQ_E1) == W_MET);
    CHECK(g->pos.piece_on(SQ_E8) == B_KING);
    CHECK(g->pos.piece_on(SQ_D8) == B_MET);
    CHECK(g->pos.piece_on(SQ_C1) == W_KHON);
    CHECK(g->pos.piece_on(SQ_A3) == W_PAWN);
    CHECK(g->pos.piece_on(SQ_H6) == B_PAWN);
    CHECK(g->pos.count(WHITE) == 16);
    CHECK(g->pos.count(BLACK) == 16);
    CHECK_FALSE(g->pos.in_check());
    // The variant's own start position is the same.
    CHECK(fen_of(makruk().startFen) == StartFen);
}

TEST_CASE("fen: Cute Chess's '- 0 0 1' reads as no count and is written as '- - 0 1'", "[fen]") {
    auto cute = game("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - 0 0 1");
    auto fs = game(StartFen);
    CHECK(cute->pos.count_limit() == 0);
    CHECK(cute->pos.count_ply() == 0);
    CHECK(cute->pos.fen() == StartFen);
    CHECK(cute->pos.key() == fs->pos.key());

    auto ending = game("8/8/8/4k3/8/8/8/R3K3 b - 0 0 1");
    CHECK(ending->pos.count_limit() == 0);
    CHECK(ending->pos.fen() == "8/8/8/4k3/8/8/8/R3K3 b - - 0 1");
}

TEST_CASE("fen: a running count is read and written back", "[fen]") {
    const std::string f = "8/8/8/8/2nM4/1k6/1mm5/K7 w - 128 49 91";
    auto g = game(f);
    CHECK(g->pos.count_limit() == 128);
    CHECK(g->pos.count_ply() == 49);
    CHECK(g->pos.rule50() == 0);
    CHECK(g->pos.fen() == f);

    auto small = game("7k/8/8/8/8/8/8/R3K3 b - 32 7 60");
    CHECK(small->pos.count_limit() == 32);
    CHECK(small->pos.count_ply() == 7);
    CHECK(small->pos.side_to_move() == BLACK);
    CHECK(small->pos.fen() == "7k/8/8/8/8/8/8/R3K3 b - 32 7 60");
}

TEST_CASE("fen: no count keeps the halfmove clock and move number", "[fen]") {
    auto g = game("8/2k5/8/8/8/2P5/4S3/4K3 b - - 32 108");
    CHECK(g->pos.count_limit() == 0);
    CHECK(g->pos.rule50() == 32);
    CHECK(g->pos.fen() == "8/2k5/8/8/8/2P5/4S3/4K3 b - - 32 108");
}

TEST_CASE("fen: short forms default to '- - 0 1'", "[fen]") {
    const std::string board = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR";
    CHECK(fen_of(board) == board + " w - - 0 1");
    CHECK(fen_of(board + " w") == board + " w - - 0 1");
    CHECK(fen_of(board + " b") == board + " b - - 0 1");
    CHECK(fen_of(board + " w -") == board + " w - - 0 1");
    CHECK(fen_of(board + " w - -") == board + " w - - 0 1");
    CHECK(fen_of(board + " w - - 7") == board + " w - - 7 1");
    CHECK(game(board + " b")->pos.side_to_move() == BLACK);
    CHECK(game(board)->pos.key() == game(StartFen)->pos.key());
    // Extra spaces between fields do not matter.
    CHECK(fen_of("  " + board + "   w  -  -  0  1  ") == StartFen);
}

TEST_CASE("fen: the move number and side survive a round trip", "[fen]") {
    CHECK(fen_of("4k3/8/8/8/8/8/8/R3K3 b - - 3 57") == "4k3/8/8/8/8/8/8/R3K3 b - - 3 57");
    CHECK(fen_of("4k3/8/8/8/8/8/8/R3K3 w - - 0 200") == "4k3/8/8/8/8/8/8/R3K3 w - - 0 200");
    auto g = game("4k3/8/8/8/8/8/8/R3K3 b - - 3 57");
    play(*g, "e8e7");
    CHECK(g->pos.fen().substr(g->pos.fen().size() - 3) == " 58");
}

// ---------------------------------------------------------------------------------------
// Refusals

namespace {

struct Bad {
    const char* what;
    std::string fen;
};

const std::vector<Bad>& bad_fens() {
    static const std::vector<Bad> v = {
        {"rank too long (9 pieces)", "rnsmksnrr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"rank too long (digits)", "rnsmksnr/81/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"rank too long (piece after 8)", "rnsmksnr/8p/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"rank too short", "rnsmksn/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"rank too short (digit)", "rnsmksnr/7/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"last rank too short", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSN w - - 0 1"},
        {"empty rank", "rnsmksnr//pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"too many ranks", "rnsmksnr/8/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"trailing slash", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR/ w - - 0 1"},
        {"too few ranks", "rnsmksnr/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"one rank only", "8 w - - 0 1"},
        {"unknown letter q", "rnsqksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"unknown letter x", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNX w - - 0 1"},
        {"chess bishop letter", "rnbmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"digit 9", "rnsmksnr/9/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"digit 0", "rnsmksnr/08/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
        {"two white kings", "4k3/8/8/8/8/8/8/2K1K3 w - - 0 1"},
        {"two black kings", "4k1k1/8/8/8/8/8/8/4K3 w - - 0 1"},
        {"no black king", "8/8/8/8/8/8/8/R3K3 w - - 0 1"},
        {"no white king", "4k3/8/8/8/8/8/8/8 b - - 0 1"},
        {"white to move can take the king (rook)", "4k2R/8/8/8/8/8/8/4K3 w - - 0 1"},
        {"black to move can take the king (knight)", "4k3/8/8/8/8/8/2n5/4K3 b - - 0 1"},
        {"kings side by side", "8/8/8/3kK3/8/8/8/8 w - - 0 1"},
        {"white pawn on rank 6", "4k3/8/P7/8/8/8/8/4K3 w - - 0 1"},
        {"white pawn on rank 7", "4k3/3P4/8/8/8/8/8/4K3 w - - 0 1"},
        {"white pawn on rank 8", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1"},
        {"black pawn on rank 3", "4k3/8/8/8/8/p7/8/4K3 w - - 0 1"},
        {"black pawn on rank 2", "4k3/8/8/8/8/8/5p2/K7 w - - 0 1"},
        {"black pawn on rank 1", "4k3/8/8/8/8/8/8/K6p w - - 0 1"},
        {"side x", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR x - - 0 1"},
        {"side W", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR W - - 0 1"},
        {"side white", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR white - - 0 1"},
        {"side -", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR - - - 0 1"},
        {"castling rights", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w KQkq - 0 1"},
        {"count limit garbage", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - x 0 1"},
        {"count limit 12a", "4k3/8/8/8/8/8/8/R3K3 w - 12a 3 1"},
        {"count limit negative", "4k3/8/8/8/8/8/8/R3K3 w - -16 3 1"},
        {"count ply garbage", "4k3/8/8/8/8/8/8/R3K3 w - 32 y 1"},
        {"count ply negative", "4k3/8/8/8/8/8/8/R3K3 w - 32 -1 1"},
        {"halfmove garbage", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - a 1"},
        {"fullmove garbage", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 z"},
        {"fullmove 1.5", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1.5"},
        {"absurd count limit", "4k3/8/8/8/8/8/8/R3K3 w - 99999999999 3 1"},
        {"count limit that wraps to 32", "4k3/8/8/8/8/8/8/R3K3 w - 4294967328 3 1"},
        {"big count limit", "4k3/8/8/8/8/8/8/R3K3 w - 999999999 3 1"},
        {"absurd count ply", "4k3/8/8/8/8/8/8/R3K3 w - 32 99999999999 1"},
        {"absurd halfmove", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 99999999999 1"},
        {"absurd fullmove", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 99999999999"},
        {"seven fields", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1 extra"},
        {"empty string", ""},
        {"only spaces", "   "},
    };
    return v;
}

} // namespace

TEST_CASE("fen: each invalid class is refused with a message", "[fen]") {
    for (const Bad& b : bad_fens()) {
        INFO(b.what << ": '" << b.fen << "'");
        auto err = try_set(b.fen);
        REQUIRE(err);
        CHECK(!err->empty());
    }
}

TEST_CASE("fen: a refused FEN leaves the previous position unchanged", "[fen]") {
    init();
    // A position with a running count, black to move and a check, so that every part of
    // the state is something a half-done set() could disturb.
    const std::string prev = "8/8/8/8/2nM4/1k6/1mm5/K7 w - 128 49 91";
    for (const Bad& b : bad_fens()) {
        INFO(b.what << ": '" << b.fen << "'");
        Position pos;
        StateInfo st1, st2;
        REQUIRE_FALSE(pos.set(prev, makruk(), &st1));
        const Key key = pos.key();
        const Bitboard checkers = pos.checkers();
        auto err = pos.set(b.fen, makruk(), &st2);
        REQUIRE(err);
        CHECK(!err->empty());
        CHECK(pos.fen() == prev);
        CHECK(pos.key() == key);
        CHECK(pos.checkers() == checkers);
        CHECK(pos.count_limit() == 128);
        CHECK(pos.count_ply() == 49);
        std::string why;
        CHECK(pos.is_ok(&why));
        INFO(why);
        CHECK(count_legal(pos) == int(MoveList(pos).size()));
    }
}

TEST_CASE("fen: Engine::set_position refuses bad FENs and keeps its game", "[fen]") {
    Engine engine;
    REQUIRE_FALSE(engine.set_position("", {"e3e4", "e6e5"}));
    const std::string prev = engine.position().fen();
    const Key key = engine.position().key();
    for (const Bad& b : bad_fens()) {
        if (b.fen.empty()) continue; // an empty FEN means the start position here
        INFO(b.what << ": '" << b.fen << "'");
        auto err = engine.set_position(b.fen, {});
        REQUIRE(err);
        CHECK(!err->empty());
        CHECK(engine.position().fen() == prev);
        CHECK(engine.position().key() == key);
    }
}

TEST_CASE("fen: ai-wok's letter is not a makruk piece", "[fen]") {
    // 'A' is only a piece in ai-wok; docs/rules.md's makruk letters are K M S N R P.
    auto err = try_set("4k3/8/8/8/8/8/8/A3K3 w - - 0 1");
    CHECK(err);
    auto err2 = try_set("a3k3/8/8/8/8/8/8/4K3 w - - 0 1");
    CHECK(err2);
}

TEST_CASE("fen: the refusal messages say what is wrong", "[fen]") {
    auto has = [](const std::string& fen, const std::string& word) {
        auto err = try_set(fen);
        INFO(fen << " -> " << (err ? *err : std::string("accepted")));
        REQUIRE(err);
        std::string lower = *err;
        for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
        CHECK(lower.find(word) != std::string::npos);
    };
    has("rnsqksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", "q");
    has("4k3/8/8/8/8/8/8/2K1K3 w - - 0 1", "king");
    has("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "king");
    has("4k3/3P4/8/8/8/8/8/4K3 w - - 0 1", "pawn");
    has("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR x - - 0 1", "side");
    has("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR/ w - - 0 1", "rank");
    has("", "empty");
}

TEST_CASE("fen: counting-makruk.txt positions with the king en prise are refused", "[fen]") {
    auto bad = counting_records(false);
    CHECK(counting_records(true).size() >= 20);
    for (auto& r : bad) {
        INFO(r[0]);
        auto err = try_set(r[0]);
        REQUIRE(err);
        // The only fault of these positions: the side to move could take the king.
        CHECK(err->find("capture the enemy king") != std::string::npos);
        // With Black to move the same placement is a legal position.
        auto f = words(r[0]);
        f[1] = "b";
        std::string flipped;
        for (auto& w : f) flipped += (flipped.empty() ? "" : " ") + w;
        CHECK_FALSE(try_set(flipped));
    }
}

TEST_CASE("fen: Fairy-Stockfish's promoted-piece mark is read and changes nothing", "[fen]") {
    // pychess.org sends the mark on a met that was a pawn; makruk has no use for it.
    const std::string plain = "8/8/8/8/2nM4/1k6/1mm5/K7 w - 128 49 91";
    const std::string marked = "8/8/8/8/2nM~4/1k6/1mm~5/K7 w - 128 49 91";
    REQUIRE(!try_set(marked));
    CHECK(fen_of(marked) == plain);
    CHECK(game(marked)->pos.key() == game(plain)->pos.key());
    for (const char* bad :
         {"~8/8/8/8/2nM4/1k6/1mm5/K7 w - 128 49 91", "8/8/8/8/2~nM4/1k6/1mm5/K7 w - 128 49 91",
          "8/8/8/8/2nM4/1k6/1mm5/K7~ w - 128 49 91"}) {
        INFO(bad);
        auto err = try_set(bad);
        REQUIRE(err);
        CHECK(err->find("'~'") != std::string::npos);
    }
}
