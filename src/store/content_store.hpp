#pragma once
// The content-addressed store: every download and every blob rockpack makes lives here once, under
// its sha256. Writes go to a temporary file and are renamed into place when their digest is known,
// so two builds sharing a store never see a partial blob; a blob that is read is hashed again on the
// way out and a mismatch removes it (a corrupt cache heals itself on the next run).
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/background_hashing_sink.hpp"
#include "util/byte_sink.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/record_cache.hpp"

namespace rp {

// Bytes that arrived were not the bytes promised: nothing was stored.
class DigestMismatch : public Error {
 public:
  DigestMismatch(std::string expected, std::string actual)
      : Error("content does not match its expected digest: expected " + expected + ", got " + actual,
              "the source served different bytes than it promised; nothing was stored"),
        expected_(std::move(expected)),
        actual_(std::move(actual)) {}
  const std::string& expected() const { return expected_; }
  const std::string& actual() const { return actual_; }

 private:
  std::string expected_;
  std::string actual_;
};

class ContentStore final : public RecordCache {
 public:
  explicit ContentStore(fs::path root);
  ~ContentStore();
  ContentStore(const ContentStore&) = delete;
  ContentStore& operator=(const ContentStore&) = delete;

  // $XDG_CACHE_HOME/rockpack, else ~/.cache/rockpack.
  static fs::path default_root();

  const fs::path& root() const { return root_; }
  bool contains(const std::string& digest) const;
  fs::path blob_path(const std::string& digest) const;
  uint64_t blob_size(const std::string& digest) const;

  // A blob being written; its digest is computed as bytes arrive.
  class BlobWriter final : public DigestingSink {
   public:
    BlobWriter(ContentStore& store, fs::path temp_dir);
    void write(const void* data, size_t size) override;
    void write_shared(const std::shared_ptr<const std::string>& bytes) override;
    using ByteSink::write;
    uint64_t size() const override { return hasher_.count(); }
    // The digest commit() will name the blob by; nothing may be written after it.
    std::string digest() override;
    // Moves the blob into the store. With `expected`, a different digest is an error and nothing is kept.
    std::string commit(const std::string& expected = {});

   private:
    ContentStore& store_;
    std::unique_ptr<AtomicFile> file_;
    // On a thread of its own: the writer (a layer's compressor, a download) has enough to do.
    BackgroundHashingSink hasher_;
    std::optional<std::string> digest_;
  };
  std::unique_ptr<BlobWriter> begin_blob();

  // Stores bytes; returns their digest.
  std::string put(std::string_view bytes);

  // Streams a blob into `sink`, verifying its digest at the end. A blob that does not match is removed
  // and an error thrown (the caller must discard what it received).
  void read(const std::string& digest, ByteSink& sink) const;
  std::string read_all(const std::string& digest) const;

  // Puts a verified blob at `dest` atomically (a hardlink when the file system allows). A blob is
  // verified by hashing it, unless this process wrote it, or its stat identity (inode, size, mtime,
  // ctime) is the one recorded when it was last verified: blobs are read-only and ctime moves on
  // any change, so an unchanged identity means unchanged bytes short of silent disk corruption.
  // When `dest` already is the blob (same inode) and its identity is unchanged, nothing is done.
  void export_to(const std::string& digest, const fs::path& dest) const;

  // Whether the blob is present and intact, by the same rule as export_to (written by this process,
  // an unchanged stat identity since its last verification, or hashing it now). A corrupt blob is
  // removed and false returned, so a caller can make it anew instead of failing later.
  bool verify(const std::string& digest) const;

  // Small JSON records by kind and key (util/record_cache.hpp): the layer cache, archive indexes,
  // wheel metadata.
  std::optional<nlohmann::json> get_record(const std::string& kind, const std::string& key) const override;
  void put_record(const std::string& kind, const std::string& key, const nlohmann::json& value) const override;

 private:
  // Removes the temporaries of builds that are gone (killed): by pid and by their owner lock.
  void sweep_stale_temporaries();
  bool owner_is_gone(int pid) const;
  bool written_by_us(const std::string& digest) const;
  // The blob's stat identity, and whether it is the one recorded at its last verification.
  std::string blob_identity(const std::string& digest) const;
  bool identity_verified(const std::string& digest, const std::string& identity) const;
  fs::path root_;
  int owner_fd_ = -1;  // owners/<pid>.lock, held while this store is open
  int lock_fd_ = -1;   // store.lock, held shared while this store is open (see cache_admin.hpp)
  // Blobs this process hashed on their way in: exporting them needs no second hashing pass.
  mutable std::mutex fresh_mu_;
  std::set<std::string> fresh_;
};

}  // namespace rp
