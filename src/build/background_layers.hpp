#pragma once
// The build's LayerPrebuild (plan/layer_prebuild.hpp): a layer a step hands over is written into the
// store on a thread of its own, with the options the assembly will use (compression, mtime,
// threads), and recorded there under its key; the assembly, after wait(), finds it there. Layers
// that would be split (the recipe's max_layer_size) are left to the assembly.
#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "assemble/compression.hpp"
#include "plan/layer_prebuild.hpp"
#include "store/content_store.hpp"

namespace rp::build {

class BackgroundLayers final : public LayerPrebuild {
 public:
  // `compression`: the request's; `compression_given`: the request named one (else the recipe's
  // compression:, if any, applies, as for the assembly).
  BackgroundLayers(ContentStore& store, Compression compression, bool compression_given, unsigned threads)
      : store_(store), compression_(compression), compression_given_(compression_given), threads_(threads) {}
  // Stops the layers still being written (at their next entry; nothing of them is stored) and
  // waits for them: nothing is left running. A build that went on has called wait() before.
  ~BackgroundLayers() override;

  void start(const BuildPlan& plan, const recipe::Recipe& recipe, const LayerPlan& layer) override;
  // Waits for every layer started.
  void wait();
  // Whether the blob `digest` was written here (the assembly then counts its layer as built).
  bool wrote(const std::string& digest) const;

 private:
  ContentStore& store_;
  Compression compression_;
  bool compression_given_;
  unsigned threads_;
  std::atomic<bool> cancelled_{false};
  std::vector<std::thread> threads_running_;
  mutable std::mutex mu_;
  std::set<std::string> written_;  // blob digests
};

}  // namespace rp::build
