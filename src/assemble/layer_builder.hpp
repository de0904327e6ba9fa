#pragma once
// Turns a sorted entry list into a layer blob in the content store, in one streaming pass:
//   entries -> TarWriter -> sha256 (diff_id) -> compressor -> sha256 (digest) -> store file.
// A layer whose inputs were built before (same entries, contents, mtime and compression) is taken
// from the store's layer records without compressing anything, or else from an external (registry)
// layer cache when one is given.
#include <atomic>
#include <string>
#include <vector>

#include "assemble/compression.hpp"
#include "assemble/external_layer_cache.hpp"
#include "entries/entry.hpp"
#include "assemble/progress.hpp"
#include "image/image.hpp"
#include "store/content_store.hpp"
#include "util/error.hpp"

namespace rp {

struct LayerOptions {
  Compression compression;
  int64_t mtime = 0;     // SOURCE_DATE_EPOCH
  unsigned threads = 0;  // per layer: read-ahead workers and compression workers; 0 = util/cpus.hpp's count
  bool use_cache = true;
  // Asked by content key after the store missed, and told every layer of the build (--cache-from,
  // --cache-to). Not owned. With it, every layer's content key is computed (host files are read
  // once more; wheel, tar and store members cost nothing).
  ExternalLayerCache* external = nullptr;
  unsigned parallel_layers = 0;  // layers written at once by build_all; 0 = LayerBuilder::kParallelLayers
  // When set (not owned), a layer being written stops at its next entry with LayerCancelled, and
  // nothing of it is stored: a build whose plan failed does not wait for the layers it had started.
  const std::atomic<bool>* cancelled = nullptr;
};

// What write() throws when LayerOptions::cancelled is set.
class LayerCancelled : public Error {
 public:
  using Error::Error;
};

// One layer for build_all.
struct LayerInput {
  std::string name;
  const std::vector<Entry>* entries = nullptr;  // finalized (finalize_entries)
  std::string lineage;
};

struct BuiltLayer {
  ImageLayer layer;
  bool from_cache = false;           // not built: from the store or the external cache
  bool from_external_cache = false;  // from the external (registry) cache
};

class LayerBuilder {
 public:
  LayerBuilder(ContentStore& store, LayerOptions options, BuildProgress* progress = nullptr)
      : store_(store), options_(std::move(options)), progress_(progress) {}

  // `entries` must have gone through finalize_entries(). `lineage` names the layer across builds
  // (recipe name + layer name): when a layer of that lineage was built before, a changed quick key
  // is worth a content check (read and hash every input) before compressing again; when it never
  // was, the build goes straight to the single streaming pass.
  BuiltLayer build(const std::string& name, const std::vector<Entry>& entries, const std::string& lineage = {});

  // A layer record this version wrote: "checked" says its diff_id is the one its entries make
  // (built here, or found in a registry cache and checked against the entries). Records without
  // it come from versions that took registry-cache layers unchecked: lookups ignore them and
  // `rockpack cache verify` reports them.
  static bool record_is_checked(const nlohmann::json& record);

  // Several layers: looked up in order, the misses written side by side (up to kParallelLayers at
  // once, the largest first; each with the whole worker pool, so a small layer's serial parts -- its
  // digests, its tar stream -- overlap a large one's), recorded in order. `seconds`: each layer's
  // wall time. Memory: each layer in flight holds its read-ahead and compressor buffers
  // (docs/performance.md, "Memory").
  static constexpr unsigned kParallelLayers = 2;
  std::vector<BuiltLayer> build_all(const std::vector<LayerInput>& layers, std::vector<double>* seconds = nullptr);

  // The layer the store already holds for `entries` (found by the quick key: nothing is read or
  // compressed), or nullopt. What `rockpack plan` shows as a layer's digest.
  std::optional<BuiltLayer> cached(const std::vector<Entry>& entries) const;

  // The cache key of a layer: every input that changes its bytes. Exposed for tests.
  std::string cache_key(const std::vector<Entry>& entries) const;
  // The same listing with each content's quick_key(): found without reading any file.
  std::string quick_cache_key(const std::vector<Entry>& entries) const;

 private:
  struct Keys {
    std::string quick;    // always computed when the cache is used
    std::string content;  // computed only when needed (see find)
  };
  std::optional<BuiltLayer> find(const std::string& name, const std::vector<Entry>& entries, const std::string& lineage,
                                 Keys& keys);
  // A layer not found by `find`: written, unless another build sharing the store made it meanwhile
  // (then that one is taken); recorded in the store.
  BuiltLayer make(const std::string& name, const std::vector<Entry>& entries, const std::string& lineage, Keys& keys);
  BuiltLayer write(const std::string& name, const std::vector<Entry>& entries);
  void record(const std::string& lineage, const Keys& keys, const BuiltLayer& built);
  // After a layer is found or made: its line in the external cache's list.
  void list_in_external(const std::vector<Entry>& entries, Keys& keys, const BuiltLayer& built);
  unsigned parallel_layers(size_t misses) const;
  std::string listing_key(const std::vector<Entry>& entries, bool quick) const;
  // Why a layer found in the external cache cannot stand for `entries`, or "" when it can: its
  // diff_id and size must be those of the tar the entries make (written and hashed here, not
  // compressed), and its blob, when in the store, compressed as its media type and this build say.
  std::string external_mismatch(const std::vector<Entry>& entries, const ImageLayer& layer) const;
  std::optional<BuiltLayer> lookup(const std::string& kind, const std::string& key) const;

  ContentStore& store_;
  LayerOptions options_;
  BuildProgress* progress_;
};

}  // namespace rp
