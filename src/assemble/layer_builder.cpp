#include "assemble/layer_builder.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

#include "assemble/layer_build_lock.hpp"
#include "assemble/read_ahead.hpp"
#include "assemble/tar_writer.hpp"
#include "image/layer_archive.hpp"
#include "util/background_hashing_sink.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"

namespace rp {

namespace {

// Between entries: a build that stopped (LayerOptions::cancelled) ends the layer here. Called for
// every entry, so the message is made only when it is thrown.
void stop_if_cancelled(const LayerOptions& options, std::string_view what, std::string_view name = {}) {
  if (options.cancelled && options.cancelled->load(std::memory_order_relaxed))
    throw LayerCancelled(std::string(what) + std::string(name) + ": not written, the build stopped");
}

// Reports progress every few MiB of uncompressed input.
class ProgressSink final : public ByteSink {
 public:
  ProgressSink(ByteSink& next, BuildProgress* progress, const std::string& name,
               const ContentStore::BlobWriter& out_counter)
      : next_(next), progress_(progress), name_(name), out_counter_(out_counter) {}
  void write(const void* data, size_t size) override {
    next_.write(data, size);
    count(size);
  }
  void write_shared(const std::shared_ptr<const std::string>& bytes) override {
    next_.write_shared(bytes);
    count(bytes->size());
  }

 private:
  void count(size_t size) {
    count_ += size;
    if (progress_ && count_ - reported_ >= (8u << 20)) {
      reported_ = count_;
      progress_->layer_advanced(name_, count_, out_counter_.size());
    }
  }

  ByteSink& next_;
  BuildProgress* progress_;
  const std::string& name_;
  const ContentStore::BlobWriter& out_counter_;
  uint64_t count_ = 0;
  uint64_t reported_ = 0;
};

nlohmann::json record_of(const ImageLayer& l) {
  return {{"mediaType", l.blob.media_type},
          {"digest", l.blob.digest},
          {"size", l.blob.size},
          {"diff_id", l.diff_id},
          {"uncompressed_size", l.uncompressed_size},
          {"checked", true}};
}

}  // namespace

std::optional<BuiltLayer> LayerBuilder::lookup(const std::string& kind, const std::string& key) const {
  auto rec = store_.get_record(kind, key);
  if (!rec || !record_is_checked(*rec)) return std::nullopt;
  try {
    BuiltLayer hit;
    hit.from_cache = true;
    hit.layer.blob.media_type = rec->at("mediaType").get<std::string>();
    hit.layer.blob.digest = rec->at("digest").get<std::string>();
    hit.layer.blob.size = rec->at("size").get<int64_t>();
    hit.layer.diff_id = rec->at("diff_id").get<std::string>();
    hit.layer.uncompressed_size = rec->at("uncompressed_size").get<uint64_t>();
    // The blob may have been removed, or be corrupt (verify() removes it): then it is a miss and
    // the layer is built anew, rather than the build failing later when the blob is exported.
    if (store_.contains(hit.layer.blob.digest) &&
        store_.blob_size(hit.layer.blob.digest) == static_cast<uint64_t>(hit.layer.blob.size) &&
        store_.verify(hit.layer.blob.digest))
      return hit;
  } catch (const std::exception&) {
    // A damaged record is a cache miss.
  }
  return std::nullopt;
}

bool LayerBuilder::record_is_checked(const nlohmann::json& record) {
  return record.is_object() && record.value("checked", false) == true;
}

std::string LayerBuilder::external_mismatch(const std::vector<Entry>& entries, const ImageLayer& layer) const {
  // Compression first (cheap): the bytes, the media type and this build must agree, or the image
  // would name one compression and hold another.
  const std::string want = LayerArchive::compression_of(options_.compression.media_type());
  if (LayerArchive::compression_of(layer.blob.media_type) != want)
    return "its media type " + layer.blob.media_type + " is not this build's " + options_.compression.media_type();
  if (store_.contains(layer.blob.digest)) {
    std::string sniffed = LayerArchive::sniff_compression(store_.blob_path(layer.blob.digest));
    if (sniffed != want) return "its bytes are " + (sniffed == "none" ? std::string("not compressed") : sniffed + "-compressed") +
                                ", but its media type says " + want;
  }
  // Then the contents: the tar these entries make, hashed, must be the layer's uncompressed bytes.
  // The cache vouches for a digest and a diff_id, but only the entries say what belongs under this
  // key: a valid layer of other content listed here must not become this step's layer.
  BackgroundHashingSink hash;
  TarWriter tar(hash, options_.mtime, nullptr);
  {
    ReadAhead ahead(entries, tar, options_.threads);
    for (size_t i = 0; i < entries.size(); ++i) {
      stop_if_cancelled(options_, "a cached layer's check");
      tar.add(entries[i], ahead.take(i));
      ahead.release(i);
    }
  }
  tar.finish();
  std::string diff_id = hash.finish_digest();
  if (diff_id != layer.diff_id || hash.count() != layer.uncompressed_size)
    return "its contents (diff_id " + layer.diff_id + ") are not what this step makes (" + diff_id + ")";
  return {};
}

std::optional<BuiltLayer> LayerBuilder::cached(const std::vector<Entry>& entries) const {
  return lookup("layers-quick", quick_cache_key(entries));
}

std::string LayerBuilder::cache_key(const std::vector<Entry>& entries) const { return listing_key(entries, false); }

std::string LayerBuilder::quick_cache_key(const std::vector<Entry>& entries) const {
  return listing_key(entries, true);
}

std::string LayerBuilder::listing_key(const std::vector<Entry>& entries, bool quick) const {
  Sha256 h;
  std::string head = "rockpack-layer-v1\ncompression=" + options_.compression.str() +
                     "\nmtime=" + std::to_string(options_.mtime) + "\n";
  h.update(head);
  hash_entry_listing(h, entries, quick);
  return h.finish_digest();
}

// The store's (and the external cache's) layer for `entries`, or nullopt; `keys` keeps what was
// computed for the records written after a miss.
std::optional<BuiltLayer> LayerBuilder::find(const std::string& name, const std::vector<Entry>& entries,
                                             const std::string& lineage, Keys& keys) {
  uint64_t expected = 0;
  for (const auto& e : entries) expected += e.size() + 512;
  if (progress_) progress_->layer_started(name, expected);
  if (!options_.use_cache) return std::nullopt;

  // Two lookups: the quick key (file identities, no reading) and then the content key (hashes every
  // content: finds the layer again after a fresh checkout changed every mtime). An external cache is
  // asked by content key, which names no machine's file identities.
  ExternalLayerCache* external = options_.external;
  std::string& quick_key = keys.quick;
  std::string& key = keys.content;
  quick_key = quick_cache_key(entries);
  auto hit = lookup("layers-quick", quick_key);
  bool built_before = lineage.empty() || store_.get_record("layer-lineage", lineage).has_value();
  if (!hit && (built_before || external)) {
    key = cache_key(entries);
    hit = lookup("layers", key);
    if (hit) store_.put_record("layers-quick", quick_key, record_of(hit->layer));
  }
  if (!hit && external) {
    // Asked even on a first build of this lineage: on a fresh machine every build is a first one.
    std::optional<ImageLayer> layer = external->find(key);
    if (layer) {
      if (std::string why = external_mismatch(entries, *layer); !why.empty()) {
        spdlog::warn("the registry cache's layer {} for {} cannot be used, building the layer instead: {}",
                     layer->blob.digest, name, why);
        external->rejected(key);
        layer.reset();
      }
    }
    if (layer) {
      hit = BuiltLayer{*layer, true, true};
      // Downloaded into the store: the next build finds it there. A layer left in the registry
      // (to be mounted where the image is pushed) is not recorded: the store does not hold it.
      if (store_.contains(layer->blob.digest)) {
        store_.put_record("layers", key, record_of(*layer));
        store_.put_record("layers-quick", quick_key, record_of(*layer));
        if (!lineage.empty()) store_.put_record("layer-lineage", lineage, {{"quick_key", quick_key}});
      }
    }
  }
  if (hit && progress_) progress_->layer_finished(name, hit->layer.uncompressed_size, hit->layer.blob.size, true);
  return hit;
}

// Another build sharing the store (a variant built beside this one) may be making this very layer:
// wait for it and take its result rather than compress the same bytes a second time. The lock is
// held until the layer's records are written, so that the waiting build finds them.
BuiltLayer LayerBuilder::make(const std::string& name, const std::vector<Entry>& entries, const std::string& lineage,
                              Keys& keys) {
  std::optional<LayerBuildLock> building;
  if (options_.use_cache) {
    building.emplace(store_.root(), keys.quick);
    if (building->waited()) {
      if (auto hit = lookup("layers-quick", keys.quick)) {
        if (progress_) progress_->layer_finished(name, hit->layer.uncompressed_size, hit->layer.blob.size, true);
        return *hit;
      }
    }
  }
  BuiltLayer built = write(name, entries);
  record(lineage, keys, built);
  return built;
}

// The single streaming pass: tar -> diff_id hasher -> compressor -> blob (hashed as written).
// Touches nothing shared but the store's blobs: several layers may be written at once.
BuiltLayer LayerBuilder::write(const std::string& name, const std::vector<Entry>& entries) {
  // The blob writer hashes the compressed bytes itself; only the diff_id needs a hasher here, and it
  // runs on a thread of its own (util/background_hashing_sink.hpp): this thread has the tar stream
  // to make and deflate streams to copy; the contents are produced by the read-ahead's workers.
  auto blob = store_.begin_blob();
  auto compressor = make_compressor(options_.compression, *blob, options_.threads);
  BackgroundHashingSink uncompressed(compressor.get());
  ProgressSink progress(uncompressed, progress_, name, *blob);
  TarWriter tar(progress, options_.mtime, compressor->deflate_passthrough());
  {
    ReadAhead ahead(entries, tar, options_.threads);  // (assemble/read_ahead.hpp)
    for (size_t i = 0; i < entries.size(); ++i) {
      stop_if_cancelled(options_, "layer ", name);
      tar.add(entries[i], ahead.take(i));
      ahead.release(i);
    }
  }
  tar.finish();
  compressor->finish();

  BuiltLayer built;
  built.layer.diff_id = uncompressed.finish_digest();
  built.layer.uncompressed_size = uncompressed.count();
  built.layer.blob.media_type = options_.compression.media_type();
  built.layer.blob.size = static_cast<int64_t>(blob->size());
  built.layer.blob.digest = blob->commit();
  if (progress_) progress_->layer_finished(name, built.layer.uncompressed_size, built.layer.blob.size, false);
  return built;
}

void LayerBuilder::record(const std::string& lineage, const Keys& keys, const BuiltLayer& built) {
  if (!options_.use_cache) return;
  // The content key is recorded only when it was computed for the lookup: computing it now would
  // read every input a second time. A later build with changed file identities computes it then.
  if (!keys.content.empty()) store_.put_record("layers", keys.content, record_of(built.layer));
  store_.put_record("layers-quick", keys.quick, record_of(built.layer));
  if (!lineage.empty()) store_.put_record("layer-lineage", lineage, {{"quick_key", keys.quick}});
}

void LayerBuilder::list_in_external(const std::vector<Entry>& entries, Keys& keys, const BuiltLayer& built) {
  if (!options_.external) return;
  // --no-cache computed no key; --cache-to still lists the layer.
  if (keys.content.empty()) keys.content = cache_key(entries);
  options_.external->add(keys.content, built.layer);
}

BuiltLayer LayerBuilder::build(const std::string& name, const std::vector<Entry>& entries,
                               const std::string& lineage) {
  Keys keys;
  auto hit = find(name, entries, lineage, keys);
  BuiltLayer built = hit ? *hit : make(name, entries, lineage, keys);
  list_in_external(entries, keys, built);
  return built;
}

std::vector<BuiltLayer> LayerBuilder::build_all(const std::vector<LayerInput>& layers, std::vector<double>* seconds) {
  using Clock = std::chrono::steady_clock;
  std::vector<BuiltLayer> out(layers.size());
  std::vector<Keys> keys(layers.size());
  std::vector<Clock::time_point> started(layers.size());
  std::vector<double> took(layers.size(), 0);
  // Lookups in layer order (they may ask a registry, and list layers in the external cache).
  std::vector<size_t> misses;
  for (size_t i = 0; i < layers.size(); ++i) {
    started[i] = Clock::now();
    if (auto hit = find(layers[i].name, *layers[i].entries, layers[i].lineage, keys[i])) {
      out[i] = *hit;
      took[i] = std::chrono::duration<double>(Clock::now() - started[i]).count();
    } else {
      misses.push_back(i);
    }
  }
  // The misses are written side by side, the largest first so that a big layer does not start last.
  std::sort(misses.begin(), misses.end(), [&](size_t a, size_t b) {
    uint64_t sa = 0, sb = 0;
    for (const auto& e : *layers[a].entries) sa += e.size();
    for (const auto& e : *layers[b].entries) sb += e.size();
    return sa != sb ? sa > sb : a < b;
  });
  // Two layers of one image with the same entries (two empty steps, say) are made once: the second
  // would otherwise wait forever on the build lock the first one holds in this very process.
  std::map<std::string, size_t> first_with_key;
  std::vector<std::pair<size_t, size_t>> copies;  // (layer, the layer it copies)
  std::vector<std::function<void()>> work;
  for (size_t i : misses) {
    if (options_.use_cache) {
      auto [it, fresh] = first_with_key.emplace(keys[i].quick, i);
      if (!fresh) {
        copies.emplace_back(i, it->second);
        continue;
      }
    }
    work.push_back([&, i] {
      auto t0 = Clock::now();
      out[i] = make(layers[i].name, *layers[i].entries, layers[i].lineage, keys[i]);
      took[i] = std::chrono::duration<double>(Clock::now() - t0).count();
    });
  }
  run_parallel(work, static_cast<int>(parallel_layers(work.size())));
  for (auto [i, from] : copies) out[i] = out[from];
  // The external cache's list in layer order: the same cache image on every run.
  for (size_t i = 0; i < layers.size(); ++i) list_in_external(*layers[i].entries, keys[i], out[i]);
  if (seconds) *seconds = took;
  return out;
}

unsigned LayerBuilder::parallel_layers(size_t misses) const {
  unsigned n = options_.parallel_layers ? options_.parallel_layers : kParallelLayers;
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(n, misses)));
}

}  // namespace rp
