// PGN as Cute Chess, pychess.org and XBoard write it for Makruk. The reader is a small
// lexer over the whole text: a game ends at its result or where the next tag section
// begins, so one damaged game does not take the rest of the file with it.
#include "khun/tools/pgn.h"

#include "khun/protocol/text.h"
#include "khun/rules/movegen.h"
#include "khun/tools/san.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace khun::tools {

using protocol::lower;

namespace {

bool is_result(const std::string& s) {
    return s == "1-0" || s == "0-1" || s == "1/2-1/2" || s == "*";
}

// Suffix glyphs and their NAGs (PGN standard 10.1).
struct Glyph {
    const char* text;
    int nag;
};
const Glyph Glyphs[] = {{"!!", 3}, {"??", 4}, {"!?", 5}, {"?!", 6}, {"!", 1}, {"?", 2}};

class Lexer {
  public:
    explicit Lexer(const std::string& t) : text(t) {}

    std::vector<PgnGame> games() {
        std::vector<PgnGame> out;
        skip_space();
        while (pos < text.size()) {
            PgnGame g;
            g.number = int(out.size()) + 1;
            g.line = line;
            read_game(g);
            out.push_back(std::move(g));
            skip_space();
        }
        return out;
    }

  private:
    const std::string& text;
    size_t pos = 0;
    int line = 1;

    char peek(size_t ahead = 0) const {
        return pos + ahead < text.size() ? text[pos + ahead] : '\0';
    }
    char get() {
        char c = text[pos++];
        if (c == '\n') ++line;
        return c;
    }
    bool at_line_start() const { return pos == 0 || text[pos - 1] == '\n'; }

    // Whitespace, ';' rest-of-line comments and '%' escape lines.
    void skip_space() {
        while (pos < text.size()) {
            char c = peek();
            if (std::isspace(static_cast<unsigned char>(c))) {
                get();
            } else if (c == ';' || (c == '%' && at_line_start())) {
                while (pos < text.size() && peek() != '\n') get();
            } else {
                break;
            }
        }
    }

    // Moves past the rest of a damaged game: up to the next line that opens a tag.
    void skip_to_next_game() {
        while (pos < text.size()) {
            if (at_line_start() && peek() == '[') return;
            get();
        }
    }

    std::string where(const PgnGame& g, const std::string& what) const {
        return "line " + std::to_string(line) + ": " + what +
               (g.moves.empty() ? "" : " (after " + g.moves.back().san + ")");
    }

    bool read_tag(PgnGame& g) {
        get(); // '['
        std::string name;
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(peek()))) get();
        while (pos < text.size() &&
               (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-'))
            name += get();
        while (pos < text.size() && peek() != '"' && peek() != ']' && peek() != '\n') get();
        if (name.empty() || peek() != '"') {
            g.error = where(g, "malformed tag");
            return false;
        }
        get();
        std::string value;
        while (pos < text.size() && peek() != '"' && peek() != '\n') {
            char c = get();
            if (c == '\\' && (peek() == '"' || peek() == '\\')) c = get();
            value += c;
        }
        if (peek() != '"') {
            g.error = where(g, "unterminated tag value");
            return false;
        }
        get();
        while (pos < text.size() && peek() != ']' && peek() != '\n') get();
        if (peek() != ']') {
            g.error = where(g, "tag without ']'");
            return false;
        }
        get();
        g.tags.emplace_back(name, value);
        return true;
    }

    void add_comment(PgnGame& g, const std::string& c) {
        std::string& dst = g.moves.empty() ? g.comment : g.moves.back().comment;
        if (!dst.empty()) dst += ' ';
        dst += c;
    }

    void read_game(PgnGame& g) {
        // Tag section.
        while (pos < text.size() && peek() == '[') {
            if (!read_tag(g)) {
                skip_to_next_game();
                return;
            }
            skip_space();
        }
        // Movetext.
        while (true) {
            skip_space();
            if (pos >= text.size()) return; // no termination: accepted, result stays "*"
            char c = peek();
            if (c == '[' && at_line_start()) return; // the next game's tags
            if (c == '{') {
                get();
                std::string comment;
                // A comment left open would swallow every game after it: one ends at
                // a line that opens a tag ("[%clk" inside a comment is no tag).
                while (pos < text.size() && peek() != '}' &&
                       !(at_line_start() && peek() == '[' &&
                         std::isalpha(static_cast<unsigned char>(peek(1)))))
                    comment += get();
                if (pos >= text.size() || peek() != '}') {
                    g.error = where(g, "unterminated comment");
                    return;
                }
                get();
                // Comments hold no line structure worth keeping.
                std::string flat;
                for (char ch : comment) {
                    if (std::isspace(static_cast<unsigned char>(ch))) {
                        if (!flat.empty() && flat.back() != ' ') flat += ' ';
                    } else {
                        flat += ch;
                    }
                }
                while (!flat.empty() && flat.back() == ' ') flat.pop_back();
                add_comment(g, flat);
            } else if (c == '(') {
                // Variations are skipped whole, nested ones and their comments too.
                int depth = 0;
                do {
                    char ch = get();
                    if (ch == '{') {
                        while (pos < text.size() && peek() != '}') get();
                        if (pos < text.size()) get();
                    } else if (ch == '(') {
                        ++depth;
                    } else if (ch == ')') {
                        --depth;
                    }
                } while (depth > 0 && pos < text.size());
                if (depth > 0) {
                    g.error = where(g, "unterminated variation");
                    return;
                }
            } else if (c == ')') {
                g.error = where(g, "')' without '('");
                skip_to_next_game();
                return;
            } else if (c == '$') {
                get();
                std::string n;
                while (std::isdigit(static_cast<unsigned char>(peek()))) n += get();
                if (n.empty() || n.size() > 3) {
                    g.error = where(g, "bad NAG");
                    skip_to_next_game();
                    return;
                }
                if (!g.moves.empty()) g.moves.back().nags.push_back(std::stoi(n));
            } else {
                std::string tok;
                while (pos < text.size()) {
                    char ch = peek();
                    if (std::isspace(static_cast<unsigned char>(ch)) || ch == '{' || ch == '(' ||
                        ch == ')' || ch == '[' || ch == ']' || ch == ';' || ch == '$' || ch == '"')
                        break;
                    tok += get();
                }
                if (tok.empty()) {
                    g.error = where(g, "unexpected '" + std::string(1, c) + "'");
                    skip_to_next_game();
                    return;
                }
                if (is_result(tok)) {
                    g.result = tok;
                    return;
                }
                // Move numbers: "12." "12..." and "12.Nc3" written together.
                size_t k = 0;
                while (k < tok.size() && std::isdigit(static_cast<unsigned char>(tok[k]))) ++k;
                if (k > 0 && k < tok.size() && tok[k] == '.') {
                    while (k < tok.size() && tok[k] == '.') ++k;
                    tok = tok.substr(k);
                } else if (k == tok.size()) {
                    continue; // a bare number
                }
                while (!tok.empty() && tok[0] == '.') tok.erase(0, 1);
                if (tok.empty()) continue;
                if (!std::isalpha(static_cast<unsigned char>(tok[0])) && tok != "--") {
                    g.error = where(g, "unexpected '" + tok + "'");
                    skip_to_next_game();
                    return;
                }
                PgnMove m;
                // Suffix glyphs become NAGs so that the writer has one form to print.
                for (const Glyph& gl : Glyphs) {
                    std::string s = gl.text;
                    if (tok.size() > s.size() &&
                        tok.compare(tok.size() - s.size(), s.size(), s) == 0) {
                        m.nags.push_back(gl.nag);
                        tok.erase(tok.size() - s.size());
                        break;
                    }
                }
                m.san = tok;
                g.moves.push_back(std::move(m));
            }
        }
    }
};

} // namespace

std::string PgnGame::tag(const std::string& name) const {
    const std::string n = lower(name);
    for (auto& [k, v] : tags)
        if (lower(k) == n) return v;
    return "";
}

void PgnGame::set_tag(const std::string& name, const std::string& value) {
    const std::string n = lower(name);
    for (auto& [k, v] : tags)
        if (lower(k) == n) {
            v = value;
            return;
        }
    tags.emplace_back(name, value);
}

std::vector<PgnGame> read_pgn(std::istream& in) {
    std::stringstream ss;
    ss << in.rdbuf();
    return read_pgn_string(ss.str());
}

std::vector<PgnGame> read_pgn_string(const std::string& text) {
    std::string t = text;
    // A UTF-8 byte order mark, as some Windows tools write it.
    if (t.compare(0, 3, "\xEF\xBB\xBF") == 0) t.erase(0, 3);
    return Lexer(t).games();
}

const Variant* pgn_variant(const std::string& tagValue) {
    // No letters or digits at all ("", "?", "-"): the game with no name is makruk.
    if (std::none_of(tagValue.begin(), tagValue.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
        return &default_variant();
    return find_variant_named(tagValue);
}

std::string move_number_text(int fullmove, Color side) {
    return std::to_string(fullmove) + (side == BLACK ? "..." : "");
}

ReplayedGame replay_pgn(PgnGame& game) {
    ReplayedGame r;
    const std::string variantTag = game.tag("Variant");
    r.variant = pgn_variant(variantTag);
    if (!r.variant) {
        r.error = "unknown variant '" + variantTag + "'";
        return r;
    }
    r.startFen = game.tag("FEN");
    if (r.startFen.empty()) r.startFen = r.variant->startFen;
    std::string err;
    r.game = Game::make(r.startFen, {}, *r.variant, err);
    if (!r.game) {
        r.error = err;
        return r;
    }
    Position& pos = r.game->pos;
    r.fens.push_back(pos.fen());
    for (PgnMove& pm : game.moves) {
        const std::string number = move_number_text(pos.game_ply() / 2 + 1, pos.side_to_move());
        std::string why;
        Move m = parse_san(pos, pm.san, &why);
        if (!m) {
            r.error = "move " + number + ": " + why + " '" + pm.san + "'";
            return r;
        }
        pm.move = m;
        r.game->play(m);
        r.fens.push_back(pos.fen());
    }
    if (game.error)
        r.error = "move " + move_number_text(pos.game_ply() / 2 + 1, pos.side_to_move()) + ": " +
                  *game.error;
    return r;
}

void write_pgn(std::ostream& out, const PgnGame& game) {
    // The seven tag roster first, in its order, then the rest as read.
    static const char* const Roster[] = {"Event", "Site",  "Date",  "Round",
                                         "White", "Black", "Result"};
    for (const char* name : Roster) {
        std::string v = std::string(name) == "Result" ? game.result : game.tag(name);
        if (v.empty()) v = std::string(name) == "Date" ? "????.??.??" : "?";
        out << "[" << name << " \"" << v << "\"]\n";
    }
    auto in_roster = [](const std::string& k) {
        for (const char* name : Roster)
            if (lower(k) == lower(name)) return true;
        return false;
    };
    for (auto& [k, v] : game.tags) {
        if (in_roster(k)) continue;
        std::string esc;
        for (char c : v) {
            if (c == '"' || c == '\\') esc += '\\';
            esc += c;
        }
        out << "[" << k << " \"" << esc << "\"]\n";
    }
    // A set-up position is only honoured by readers that also see [SetUp "1"].
    if (!game.tag("FEN").empty() && game.tag("SetUp").empty()) out << "[SetUp \"1\"]\n";
    out << "\n";

    // The move numbers go on from the set-up position's.
    int ply = 0;
    if (const Variant* v = pgn_variant(game.tag("Variant"))) {
        std::string fen = game.tag("FEN");
        std::string err;
        auto g = Game::make(fen.empty() ? v->startFen : fen, {}, *v, err);
        if (g) ply = g->pos.game_ply();
    }

    std::string lineText;
    auto emit = [&](const std::string& word) {
        if (!lineText.empty() && lineText.size() + 1 + word.size() > 80) {
            out << lineText << "\n";
            lineText.clear();
        }
        if (!lineText.empty()) lineText += ' ';
        lineText += word;
    };
    auto emit_comment = [&](const std::string& c) {
        // A '}' would end the comment early.
        std::string safe = c;
        std::replace(safe.begin(), safe.end(), '}', ')');
        std::istringstream words("{" + safe + "}");
        for (std::string w; words >> w;) emit(w);
    };

    if (!game.comment.empty()) emit_comment(game.comment);
    bool needNumber = true;
    for (const PgnMove& m : game.moves) {
        const Color side = Color(ply & 1);
        if (side == WHITE)
            emit(std::to_string(ply / 2 + 1) + ". " + m.san);
        else if (needNumber)
            emit(std::to_string(ply / 2 + 1) + "... " + m.san);
        else
            emit(m.san);
        std::string glyphs, nags;
        for (int n : m.nags) {
            if (n >= 1 && n <= 6 && glyphs.empty()) {
                const char* const G[] = {"", "!", "?", "!!", "??", "!?", "?!"};
                glyphs = G[n];
            } else {
                nags += (nags.empty() ? "$" : " $") + std::to_string(n);
            }
        }
        lineText += glyphs;
        if (!nags.empty()) emit(nags);
        needNumber = false;
        if (!m.comment.empty()) {
            emit_comment(m.comment);
            needNumber = true;
        }
        ++ply;
    }
    emit(game.result);
    out << lineText << "\n\n";
}

} // namespace khun::tools
