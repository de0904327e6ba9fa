// The sandbox alone: a step that does nothing, and one that changes 10,000 files (snapshot, run, diff).
// Built and run by bench/sandbox_bench.sh (needs root and busybox-static).
#include <chrono>
#include <fstream>
#include <iostream>
#include "sandbox/sandbox.hpp"
#include "sandbox/tree_diff.hpp"
namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;
double ms(clk::time_point a) { return std::chrono::duration<double, std::milli>(clk::now() - a).count(); }
int main(int, char** argv) {
  fs::path root = "/tmp/sbx/broot";
  fs::remove_all(root);
  fs::create_directories(root / "bin");
  fs::copy_file("/bin/busybox", root / "bin/busybox");
  fs::create_symlink("busybox", root / "bin/sh");
  for (int d = 0; d < 100; ++d) { fs::create_directories(root / "data" / std::to_string(d));
    for (int f = 0; f < 100; ++f) std::ofstream(root / "data" / std::to_string(d) / std::to_string(f)) << "x"; }
  rp::prepare_sandbox_rootfs(root);
  auto t = clk::now();
  auto before = rp::snapshot_tree(root);
  double snap = ms(t);
  rp::SandboxCommand c; c.name = "b"; c.argv = {"/bin/sh", "-c", argv[1]}; c.env = {"PATH=/bin"};
  t = clk::now();
  rp::run_in_sandbox(root, c, [](const std::string&) {});
  double run = ms(t);
  t = clk::now();
  auto entries = rp::diff_trees(root, before, rp::snapshot_tree(root), {});
  std::cout << "snapshot " << snap << " ms, run " << run << " ms, after-snapshot+diff " << ms(t) << " ms, entries " << entries.size() << "\n";
}
