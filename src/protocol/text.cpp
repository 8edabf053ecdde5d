#include "khun/protocol/text.h"

#include <algorithm>
#include <cctype>

namespace khun::protocol {

std::optional<long long> number(const std::string& s, long long lo, long long hi) {
    if (s.empty() || s.size() > 30) return std::nullopt;
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return std::nullopt;
    long long v = 0;
    bool big = false;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return std::nullopt;
        if (v > 100000000000000LL)
            big = true;
        else
            v = v * 10 + (s[i] - '0');
    }
    if (big) v = hi;
    if (s[0] == '-') v = -v;
    return std::clamp(v, lo, hi);
}

std::optional<long long> seconds_to_ms(const std::string& s) {
    const size_t dot = s.find('.');
    auto whole = number(dot == std::string::npos   ? s
                        : s.substr(0, dot).empty() ? "0"
                                                   : s.substr(0, dot),
                        0, 1LL << 30);
    if (!whole) return std::nullopt;
    long long ms = *whole * 1000;
    if (dot != std::string::npos) {
        const std::string frac = s.substr(dot + 1);
        long long scale = 100;
        for (char c : frac) {
            if (c < '0' || c > '9') return std::nullopt;
            ms += (c - '0') * scale;
            scale /= 10;
        }
    }
    return ms;
}

bool clamped(const std::string& s, long long n) {
    auto exact = number(s, -(1LL << 62), 1LL << 62);
    return exact && *exact != n;
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string printable(const std::string& text) {
    constexpr size_t MaxLine = 4096;
    static const char Hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    size_t lineLength = 0;
    bool cut = false;
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n') {
            out += '\n';
            lineLength = 0;
            cut = false;
            continue;
        }
        if (cut) continue;
        if (lineLength >= MaxLine) {
            out += "...";
            cut = true;
            continue;
        }
        if (c >= 0x20 && c < 0x7f) {
            out += ch;
            ++lineLength;
        } else {
            out += {'\\', 'x', Hex[c >> 4], Hex[c & 15]};
            lineLength += 4;
        }
    }
    return out;
}

void Writer::send(const std::string& text) {
    const std::string safe = printable(text);
    std::lock_guard<std::mutex> lock(mutex);
    out << safe << std::endl;
}

} // namespace khun::protocol
