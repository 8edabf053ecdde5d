// The progress line the long tools print on stderr, driven by a fake clock.
#include "khun/tools/progress.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

using namespace khun;
using namespace khun::tools;

namespace {

// A clock the test moves by hand.
struct FakeClock {
    double t = 100.0;
    Progress::Clock clock() {
        return [this] { return t; };
    }
};

size_t count(const std::string& s, char c) { return size_t(std::count(s.begin(), s.end(), c)); }

} // namespace

TEST_CASE("Progress helpers format durations, counts and rates", "[progress]") {
    CHECK(format_duration(0) == "0:00");
    CHECK(format_duration(30) == "0:30");
    CHECK(format_duration(283) == "4:43");
    CHECK(format_duration(3599.4) == "59:59");
    CHECK(format_duration(3600) == "1:00:00");
    CHECK(format_duration(3725) == "1:02:05");
    CHECK(format_duration(-5) == "0:00");
    CHECK(format_count(0) == "0");
    CHECK(format_count(999) == "999");
    CHECK(format_count(8432) == "8,432");
    CHECK(format_count(1234567) == "1,234,567");
    CHECK(format_rate(3.0) == "3.0");
    CHECK(format_rate(3.14) == "3.1");
    CHECK(format_rate(0.25) == "0.25");
    CHECK(format_rate(1234.4) == "1,234");
    CHECK(format_rate(0) == "0.0");
}

TEST_CASE("Progress redraws at most once a second", "[progress]") {
    FakeClock fc;
    std::ostringstream err;
    Progress p(err, "datagen", "games", 120, true, fc.clock());
    fc.t += 10;
    p.update(30, "8,432 positions");
    // done/total, the extra text, the rate and the time left: 90 more at 3.0/s.
    CHECK(err.str() == "\rdatagen: 30/120 games, 8,432 positions, 3.0 games/s, 0:30 left");
    CHECK_FALSE(p.due());
    fc.t += 0.5;
    p.update(31);
    CHECK(count(err.str(), '\r') == 1);
    fc.t += 0.5;
    CHECK(p.due());
    p.update(44);
    // 44 in 11 s: 4.0/s, 76 left take 19 s; the longer line before is blanked out.
    const std::string expect = "datagen: 44/120 games, 4.0 games/s, 0:19 left";
    CHECK(count(err.str(), '\r') == 2);
    CHECK(err.str().find("\r" + expect + "                 ") != std::string::npos);
    CHECK(err.str().find('\n') == std::string::npos);
}

TEST_CASE("Progress with an unknown total shows no time left", "[progress]") {
    FakeClock fc;
    std::ostringstream err;
    Progress p(err, "analyse", "positions", 0, true, fc.clock());
    fc.t += 4;
    p.update(10);
    CHECK(err.str() == "\ranalyse: 10 positions, 2.5 positions/s");

    // Nothing done yet: no rate, no time left, however long it has been.
    std::ostringstream err2;
    Progress q(err2, "datagen", "games", 50, true, fc.clock());
    fc.t += 3;
    q.update(0, "0 positions");
    CHECK(err2.str() == "\rdatagen: 0/50 games, 0 positions");
}

TEST_CASE("Progress finish ends the line with the summary and the time taken", "[progress]") {
    FakeClock fc;
    std::ostringstream err;
    Progress p(err, "tune", "epochs", 300, true, fc.clock());
    fc.t += 1;
    p.update(2, "loss 0.0731");
    fc.t += 119;
    p.update(300, "loss 0.0712");
    p.finish();
    const std::string s = err.str();
    REQUIRE(!s.empty());
    CHECK(s.back() == '\n');
    CHECK(count(s, '\n') == 1);
    CHECK(s.find("\rtune: 300/300 epochs, loss 0.0712, 2.5 epochs/s, done in 2:00") !=
          std::string::npos);
    p.finish();
    p.update(1);
    CHECK(err.str() == s); // nothing after finish

    std::ostringstream err2;
    Progress q(err2, "datagen", "games", 10, true, fc.clock());
    fc.t += 5;
    q.update(10, "90 positions");
    q.finish("90 positions written to out.txt");
    CHECK(err2.str().substr(err2.str().rfind('\r')) ==
          "\rdatagen: 10/10 games, 90 positions written to out.txt, 2.0 games/s, done in 0:05\n");
}

TEST_CASE("Progress clear blanks the line and the next update draws at once", "[progress]") {
    FakeClock fc;
    std::ostringstream err;
    Progress p(err, "tbgen", "tables", 4, true, fc.clock());
    p.update(0, "building KRK");
    const std::string first = "\rtbgen: 0/4 tables, building KRK";
    CHECK(err.str() == first);
    p.clear();
    CHECK(err.str() == first + "\r" + std::string(first.size() - 1, ' ') + "\r");
    fc.t += 0.25;
    p.update(1, "building KSK");
    // 3 more at 4.0/s.
    CHECK(err.str().substr(err.str().rfind('\r')) ==
          "\rtbgen: 1/4 tables, building KSK, 4.0 tables/s, 0:01 left");
}

TEST_CASE("Progress disabled prints nothing", "[progress]") {
    FakeClock fc;
    std::ostringstream err;
    Progress p(err, "analyse", "positions", 10, false, fc.clock());
    p.update(1);
    fc.t += 5;
    CHECK_FALSE(p.due());
    p.update(5, "game 1/2");
    p.clear();
    p.finish("done");
    CHECK(err.str().empty());
}
