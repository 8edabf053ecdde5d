#include "khun/protocol/bench.h"

#include <ostream>

namespace khun::protocol {

const std::vector<std::string>& bench_positions() {
    static const std::vector<std::string> fens = {
        // Openings
        "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1",
        "rnsm1snr/5k2/ppppppp1/7p/6PP/PPPPPP2/2SN4/R2KMSNR w - - 0 5",
        "2smksnr/r2n4/pppp1p1p/4p1p1/8/PPPPPPPP/3KN1R1/RNS1MS2 w - - 0 5",
        "rn1mksnr/1s6/pp3ppp/2ppp3/P7/1PPPPPPP/2SMS3/RN1K2NR w - - 0 5",
        "r1sm1snr/3n1k2/pppp1ppp/4p3/8/PPPPPPPP/3KN1SR/RNS1M3 w - - 0 5",
        "rnsm1knr/5s2/ppp2ppp/3pp3/1P4P1/P1PPPP1P/2S2S2/RN1KM1NR w - - 0 5",
        "rnsmk1nr/5s2/ppppp1pp/8/5P2/PPPPm1PP/1S1K4/RN2MSNR w - - 0 5",
        "rnsm1s1r/3k4/p1pppppn/1p5p/7P/PPPPPPPR/R4S2/1NSKM1N1 w - - 0 5",
        "1r1mksnr/1s1n4/ppp1pppp/3p4/P2P1P2/1PP1P1PP/4N3/RNSKMS1R w - - 0 5",
        "rn1m1s2/3snk1r/pppppppp/8/3P3P/PPP1PPP1/4N1S1/RNSKM2R w - - 0 5",
        "rnsmk1n1/4s2r/ppppppp1/7p/1P1P4/P1P1PPPP/2S1KS2/RN2M1NR w - - 10 8",
        "rns2sn1/3km2r/p1pppppp/1N6/P7/1PPPPPPP/4N3/R1SKMSR1 b - - 0 5",
        // Middlegames
        "1n1m2nr/r4sk1/sppppp2/p6P/2P2P1P/PP1P4/1R1MS3/1NSK2NR w - - 1 13",
        "r3k3/3n2sr/p2p1ppp/4p3/3P2P1/SPP2PRP/3M4/1NK3N1 w - - 0 16",
        "rn2k1s1/3sm3/pppp1p2/8/P7/1PPPPP1r/3MK3/RNS2S2 b - - 1 13",
        "rn5r/1k4M1/s7/p1p2p1p/P2p3P/1KP1P1PN/2S5/RN1S2M1 w - - 0 26",
        "r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26",
        "2n2kn1/2s1m3/4pp2/1p2p2s/4S3/8/1K3S2/2M5 b - - 16 33",
        "1nn5/5k2/2p5/1p3p1s/3P1P2/1SP1P1P1/5MS1/1N3K2 b - - 4 23",
        "2k3n1/8/2p3s1/p7/2P5/P4P1r/2SM4/1RK1S3 w - - 0 26",
        "2rm3r/5k2/1p1M1p2/p7/P3P1s1/1n1K4/8/1N4N1 b - - 0 27",
        "1n1m4/8/1R1p4/2p3p1/P2k4/S5K1/7S/4M3 b - - 0 32",
        "M7/2m1k2s/2M5/3p4/S2P2pp/8/1K6/6n1 b - - 5 47",
        "4s3/m2k4/4p2R/8/8/2M5/K5S1/8 w - - 1 38",
        // Endings, several with a running count
        "1ks5/2m5/5pn1/8/8/1K3m2/1M6/8 w - - 6 56",
        "8/2m5/k2p4/2p1R1M1/7P/2M2K2/6S1/6N1 b - - 0 50",
        "1m6/2s5/8/4k3/8/8/8/K5M1 w - 128 38 82",
        "8/8/8/6k1/8/4N3/3K3M/8 b - 128 12 52",
        "8/4M3/8/4N3/5k2/3K4/8/1S6 w - 88 35 83",
        "8/3K4/8/8/8/8/5R2/7k w - 32 7 40",
        "7k/8/2K4S/8/6R1/8/8/8 w - 32 21 40",
        "8/8/4R3/8/1k6/3K4/8/5R2 w - 16 13 40",
        "8/2k5/8/8/8/2P5/4S3/4K3 b - - 32 108",
        "7k/8/r7/1m6/8/8/8/7K b - 32 53 71",
    };
    return fens;
}

uint64_t run_bench(Engine& engine, std::ostream& out, int hashMb, int threads, int depth) {
    engine.set_option("Hash", std::to_string(hashMb));
    engine.set_option("Threads", std::to_string(threads));
    engine.new_game();
    const auto& fens = bench_positions();
    uint64_t total = 0;
    const search::TimePoint start = search::now();
    for (size_t i = 0; i < fens.size(); ++i) {
        out << "Position: " << (i + 1) << "/" << fens.size() << " (" << fens[i] << ")" << std::endl;
        total += engine.search_nodes(fens[i], depth, {});
    }
    const search::TimePoint elapsed = std::max<search::TimePoint>(1, search::now() - start);
    out << "\n===========================\nTotal time (ms) : " << elapsed
        << "\nNodes searched  : " << total << "\nNodes/second    : " << total * 1000 / elapsed
        << std::endl;
    return total;
}

} // namespace khun::protocol
