#include "build/background_layers.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

#include "assemble/layer_builder.hpp"
#include "plan/image_assembler.hpp"
#include "plan/layer_split.hpp"
#include "store/cache_admin.hpp"

namespace rp::build {

BackgroundLayers::~BackgroundLayers() {
  cancelled_ = true;
  wait();
}

void BackgroundLayers::start(const BuildPlan& plan, const recipe::Recipe& recipe, const LayerPlan& layer) {
  try {
    // A layer the plan will split is not the layer the assembly writes: leave it.
    uint64_t cap = recipe.max_layer_size ? parse_size(*recipe.max_layer_size) : kDefaultMaxLayerSize;
    uint64_t total = 0;
    for (const auto& e : layer.entries) total += tar_size_of(e);
    if (total > cap) return;
    LayerOptions options;
    options.compression =
        !compression_given_ && recipe.compression ? Compression::parse(*recipe.compression) : compression_;
    options.mtime = plan.source_date_epoch;
    options.threads = threads_;
    options.cancelled = &cancelled_;
    auto entries = std::make_shared<const std::vector<Entry>>(layer.entries);  // the plan's may move meanwhile
    std::string name = layer.name;
    std::string lineage = layer_lineage(plan, layer);
    threads_running_.emplace_back([this, options, entries, name, lineage] {
      try {
        auto started = std::chrono::steady_clock::now();
        LayerBuilder builder(store_, options);
        BuiltLayer built = builder.build(name, *entries, lineage);
        if (!built.from_cache) {
          std::lock_guard lock(mu_);
          written_.insert(built.layer.blob.digest);
        }
        spdlog::debug("layer {}: written in the background in {:.1f} s{}", name,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                      built.from_cache ? " (it was in the store)" : "");
      } catch (const LayerCancelled&) {
        spdlog::debug("layer {}: no longer written in the background: the build stopped", name);
      } catch (const std::exception& e) {
        spdlog::debug("layer {}: not written in the background ({}); the assembly writes it", name, e.what());
      }
    });
  } catch (const std::exception& e) {
    spdlog::debug("layer {}: not written in the background ({})", layer.name, e.what());
  }
}

void BackgroundLayers::wait() {
  for (auto& t : threads_running_)
    if (t.joinable()) t.join();
  threads_running_.clear();
}

bool BackgroundLayers::wrote(const std::string& digest) const {
  std::lock_guard lock(mu_);
  return written_.count(digest) > 0;
}

}  // namespace rp::build
