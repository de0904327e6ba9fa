#include "store/content_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>

#include "store/cache_admin.hpp"
#include "util/error.hpp"
#include "util/temp_files.hpp"

namespace rp {

namespace {

// Hashes what passes through; used to verify a blob on its way out of the store.
class VerifyingSink final : public ByteSink {
 public:
  explicit VerifyingSink(ByteSink& next) : next_(next) {}
  void write(const void* data, size_t size) override {
    sha_.update(data, size);
    next_.write(data, size);
  }
  std::string digest() { return sha_.finish_digest(); }

 private:
  ByteSink& next_;
  Sha256 sha_;
};

void make_dirs(const fs::path& p) {
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec)
    throw Error("cannot create directory " + p.string() + ": " + ec.message(), "choose another cache with --cache-dir");
}

std::string record_file_name(const std::string& key) { return sha256_hex(key) + ".json"; }

}  // namespace

ContentStore::ContentStore(fs::path root) : root_(std::move(root)) {
  make_dirs(root_ / "blobs" / "sha256");
  make_dirs(root_ / "tmp");
  make_dirs(root_ / "records");
  // Held shared while this store is open: `rockpack cache prune` takes it exclusively, so it
  // never removes what a running build uses (it waits for the build to finish).
  lock_fd_ = ::open(store_lock_path(root_).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ >= 0 && ::flock(lock_fd_, LOCK_SH | LOCK_NB) != 0) {
    spdlog::info("waiting for `rockpack cache` to finish with {}", root_.string());
    ::flock(lock_fd_, LOCK_SH);
  }
  sweep_stale_temporaries();
}

namespace {
// Outside tmp/ (which holds temporaries only): owners/<pid>.lock, held by each process using the store.
fs::path owner_lock_path(const fs::path& root, int pid) { return root / "owners" / (std::to_string(pid) + ".lock"); }
}  // namespace

ContentStore::~ContentStore() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (owner_fd_ >= 0) {
    std::error_code ec;
    fs::remove(owner_lock_path(root_, static_cast<int>(::getpid())), ec);
    ::close(owner_fd_);
  }
}

bool ContentStore::owner_is_gone(int pid) const {
  if (pid <= 0 || pid == static_cast<int>(::getpid())) return false;
  fs::path lock = owner_lock_path(root_, pid);
  int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return process_is_gone(pid);  // no lock file: its process never held one, or is gone
  // The owner holds its lock for as long as it lives, in any pid namespace: taking it proves it gone.
  bool gone = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  if (gone) {
    std::error_code ec;
    fs::remove(lock, ec);
  }
  ::close(fd);
  return gone;
}

void ContentStore::sweep_stale_temporaries() {
  // This process's temporaries are known to be live by its lock (see owner_is_gone).
  make_dirs(root_ / "owners");
  owner_fd_ = ::open(owner_lock_path(root_, static_cast<int>(::getpid())).c_str(),
                     O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (owner_fd_ >= 0 && ::flock(owner_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(owner_fd_);  // another store object of this process holds it already
    owner_fd_ = -1;
  }
  // A build killed mid-write leaves its temporary behind: it goes when its process is gone, and
  // anything a day old goes regardless (it belongs to no live build).
  std::error_code ec;
  auto cutoff = fs::file_time_type::clock::now() - std::chrono::hours(24);
  for (auto it = fs::directory_iterator(root_ / "tmp", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code ec2;
    std::string name = it->path().filename().string();
    if (owner_is_gone(temp_owner_pid(name)) || (it->last_write_time(ec2) < cutoff && !ec2)) fs::remove_all(it->path(), ec2);
  }
  // The lock files of owners that are gone (owner_is_gone removes them).
  std::error_code owners_ec;
  for (auto it = fs::directory_iterator(root_ / "owners", owners_ec); !owners_ec && it != fs::directory_iterator();
       it.increment(owners_ec)) {
    std::string pid = it->path().stem().string();
    if (!pid.empty() && pid.size() < 10 && pid.find_first_not_of("0123456789") == std::string::npos)
      (void)owner_is_gone(std::stoi(pid));
  }
}

fs::path ContentStore::default_root() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "rockpack";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "rockpack";
  return fs::path(".cache") / "rockpack";
}

fs::path ContentStore::blob_path(const std::string& digest) const {
  return root_ / "blobs" / "sha256" / digest_hex(digest);
}

bool ContentStore::contains(const std::string& digest) const {
  std::error_code ec;
  return fs::is_regular_file(blob_path(digest), ec);
}

uint64_t ContentStore::blob_size(const std::string& digest) const {
  std::error_code ec;
  auto size = fs::file_size(blob_path(digest), ec);
  if (ec) throw Error("blob " + digest + " is not in the store " + root_.string());
  return size;
}

ContentStore::BlobWriter::BlobWriter(ContentStore& store, fs::path temp_dir)
    : store_(store), file_(std::make_unique<AtomicFile>(temp_dir / "blob", 0444)), hasher_(file_.get(), BackgroundHashingSink::Forward::kBlocks) {}

void ContentStore::BlobWriter::write(const void* data, size_t size) {
  if (digest_) throw Error("internal error: a store blob was written to after its digest was taken");
  hasher_.write(data, size);
}

void ContentStore::BlobWriter::write_shared(const std::shared_ptr<const std::string>& bytes) {
  if (digest_) throw Error("internal error: a store blob was written to after its digest was taken");
  hasher_.write_shared(bytes);
}

std::string ContentStore::BlobWriter::digest() {
  if (!digest_) digest_ = hasher_.finish_digest();
  return *digest_;
}

std::string ContentStore::BlobWriter::commit(const std::string& expected) {
  std::string digest = this->digest();
  if (!expected.empty() && digest != expected) {
    file_->abandon();
    throw DigestMismatch(expected, digest);
  }
  // Renaming over an existing blob is harmless: same digest, same bytes (another build got there first).
  file_->commit_as(store_.blob_path(digest));
  std::lock_guard lock(store_.fresh_mu_);
  store_.fresh_.insert(digest);
  return digest;
}

std::unique_ptr<ContentStore::BlobWriter> ContentStore::begin_blob() {
  return std::make_unique<BlobWriter>(*this, root_ / "tmp");
}

std::string ContentStore::put(std::string_view bytes) {
  std::string digest = sha256_digest(bytes);
  if (contains(digest)) return digest;
  auto w = begin_blob();
  w->write(bytes.data(), bytes.size());
  return w->commit(digest);
}

void ContentStore::read(const std::string& digest, ByteSink& sink) const {
  fs::path path = blob_path(digest);
  if (!fs::exists(path)) throw Error("blob " + digest + " is missing from the store " + root_.string());
  VerifyingSink verify(sink);
  stream_file(path, verify);
  std::string actual = verify.digest();
  if (actual != digest) {
    std::error_code ec;
    fs::remove(path, ec);
    throw Error("the cached blob " + digest + " is corrupt (its content hashes to " + actual + "); it was removed",
                "run the build again: the blob will be fetched or built anew");
  }
}

bool ContentStore::written_by_us(const std::string& digest) const {
  std::lock_guard lock(fresh_mu_);
  return fresh_.count(digest) > 0;
}

std::string ContentStore::read_all(const std::string& digest) const {
  StringSink out;
  read(digest, out);
  return out.take();
}

std::string ContentStore::blob_identity(const std::string& digest) const {
  struct stat st;
  if (::stat(blob_path(digest).c_str(), &st) != 0) return {};
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
         std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
}

bool ContentStore::identity_verified(const std::string& digest, const std::string& identity) const {
  if (identity.empty()) return false;
  auto record = get_record("blob-verified", digest);
  return record && record->is_string() && record->get<std::string>() == identity;
}

bool ContentStore::verify(const std::string& digest) const {
  if (!contains(digest)) return false;
  const std::string identity = blob_identity(digest);
  if (written_by_us(digest) || identity_verified(digest, identity)) return true;
  try {
    CountingSink discard;
    read(digest, discard);  // removes a corrupt blob
  } catch (const Error&) {
    return false;
  }
  put_record("blob-verified", digest, blob_identity(digest));
  return true;
}

void ContentStore::export_to(const std::string& digest, const fs::path& dest) const {
  const std::string before = blob_identity(digest);
  const bool trusted = written_by_us(digest) || identity_verified(digest, before);
  struct stat blob_st, dest_st;
  bool same_file = ::stat(blob_path(digest).c_str(), &blob_st) == 0 && ::stat(dest.c_str(), &dest_st) == 0 &&
                   blob_st.st_dev == dest_st.st_dev && blob_st.st_ino == dest_st.st_ino;
  // Hashing is cheaper than copying; a shared inode cannot silently corrupt later builds because
  // store blobs are read-only and verified as above before every use.
  if (!trusted) {
    CountingSink discard;
    read(digest, discard);
  }
  if (same_file) {
    if (!trusted) put_record("blob-verified", digest, blob_identity(digest));
    return;
  }
  fs::path tmp = temp_sibling(dest);
  std::error_code ec;
  fs::create_directories(dest.parent_path(), ec);
  fs::create_hard_link(blob_path(digest), tmp, ec);
  if (!ec) {
    fs::rename(tmp, dest, ec);
    if (!ec) {
      // The new link moved the blob's ctime; what was verified a moment ago is what it now holds.
      put_record("blob-verified", digest, blob_identity(digest));
      return;
    }
    fs::remove(tmp, ec);
  }
  AtomicFile out(dest, 0444);
  read(digest, out);  // throws before commit on corruption: `dest` is never half-written
  out.commit();
}

std::optional<nlohmann::json> ContentStore::get_record(const std::string& kind, const std::string& key) const {
  fs::path path = root_ / "records" / kind / record_file_name(key);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(read_file(path));
    // The key is stored inside the record: a hash collision or a damaged file is treated as a miss.
    if (!j.is_object() || j.value("key", "") != key || !j.contains("value")) return std::nullopt;
    return j["value"];
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void ContentStore::put_record(const std::string& kind, const std::string& key, const nlohmann::json& value) const {
  nlohmann::json j = {{"key", key}, {"value", value}};
  write_file_atomic(root_ / "records" / kind / record_file_name(key), j.dump());
}

}  // namespace rp
