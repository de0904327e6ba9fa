// Generates a file tree for the layer benchmark: a given number of files and total size, with
// mixed compressibility (a third text-like, a third random, a third structured binary with
// repeats, as in shared libraries). Deterministic for a given seed.
//   gen_tree DIR TOTAL_MB FILES [SEED]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

const char* kWords[] = {"rocm", "hip", "kernel", "tensor", "device", "memory", "stream", "launch", "gfx942",
                        "library", "include", "template", "struct", "return", "const", "void", "int", "float",
                        "namespace", "static", "inline", "#define", "buffer", "queue", "signal", "agent"};

void fill(std::string& buf, size_t size, int kind, Rng& rng) {
  buf.clear();
  buf.reserve(size);
  if (kind == 0) {  // text
    while (buf.size() < size) {
      buf += kWords[rng.next() % (sizeof kWords / sizeof *kWords)];
      buf += (rng.next() % 8 == 0) ? "\n" : " ";
    }
  } else if (kind == 1) {  // random
    while (buf.size() < size) {
      uint64_t v = rng.next();
      buf.append(reinterpret_cast<const char*>(&v), 8);
    }
  } else {  // structured: random records repeated with small changes
    std::string record(256, '\0');
    while (buf.size() < size) {
      if (rng.next() % 16 == 0)
        for (auto& c : record) c = static_cast<char>(rng.next());
      record[rng.next() % record.size()] = static_cast<char>(rng.next());
      buf += record;
      buf.append(64, '\0');
    }
  }
  buf.resize(size);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: gen_tree DIR TOTAL_MB FILES [SEED]\n");
    return 2;
  }
  std::filesystem::path dir = argv[1];
  uint64_t total = std::strtoull(argv[2], nullptr, 10) << 20;
  uint64_t files = std::strtoull(argv[3], nullptr, 10);
  Rng rng{argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 88172645463325252ULL};
  // Sizes: most files small, a few large, scaled to the requested total.
  std::vector<double> weights(files);
  double sum = 0;
  for (auto& w : weights) {
    double u = static_cast<double>(rng.next() % 1000000) / 1000000.0;
    w = u < 0.9 ? 1.0 + 20 * u : 200.0 + 4000 * (u - 0.9);
    sum += w;
  }
  std::string buf;
  uint64_t written = 0;
  for (uint64_t i = 0; i < files; ++i) {
    uint64_t size = static_cast<uint64_t>(static_cast<double>(total) * weights[i] / sum);
    auto sub = dir / ("d" + std::to_string(i % 97)) / ("s" + std::to_string(i % 13));
    std::filesystem::create_directories(sub);
    fill(buf, size, static_cast<int>(i % 3), rng);
    std::ofstream(sub / ("f" + std::to_string(i) + ".bin"), std::ios::binary).write(buf.data(), buf.size());
    written += size;
  }
  std::printf("%llu files, %llu bytes\n", static_cast<unsigned long long>(files),
              static_cast<unsigned long long>(written));
  return 0;
}
