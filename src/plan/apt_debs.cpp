#include "plan/apt_debs.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <memory>

#include <nlohmann/json.hpp>

#include "assemble/tar_member_content.hpp"
#include "util/cpus.hpp"
#include "util/fs.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/phase_clock.hpp"

namespace rp {

namespace {

constexpr const char* kDebRecord = "apt-deb";
constexpr int kDebRecordVersion = 2;  // 2: the data index in a blob (TarIndex::serialize)

// The prepared .deb from its store record; false when there is none, it is of another version,
// damaged, or a blob it names is gone.
bool prepared_deb_from_store(const ContentStore& store, const std::string& deb_digest, PreparedDeb& out) {
  auto rec = store.get_record(kDebRecord, deb_digest);
  if (!rec) return false;
  try {
    if (rec->value("version", 0) != kDebRecordVersion) return false;
    std::string index_blob = rec->at("data_index").get<std::string>();
    bool complete = store.contains(index_blob);
    if (complete) out.data = TarIndex::parse(store.read_all(index_blob));
    complete = complete && store.contains(out.data.tar_digest);
    for (const auto& [name, c] : rec->at("control").items()) {
      std::string digest = c.at("digest").get<std::string>();
      if (!store.contains(digest)) complete = false;
      if (!complete) break;
      out.control.files[name] = store.read_all(digest);
      out.control.modes[name] = c.at("mode").get<uint32_t>();
    }
    return complete;
  } catch (const std::exception&) {
    return false;  // a damaged record: prepare again
  }
}

PreparedDeb prepare_deb(ContentStore& store, const std::string& deb_digest, const std::string& what) {
  {
    PreparedDeb cached;
    if (prepared_deb_from_store(store, deb_digest, cached)) {
      cached.deb_digest = deb_digest;
      return cached;
    }
  }
  fs::path file = store.blob_path(deb_digest);
  apt::DebLayout layout = apt::read_deb_layout(file, what);
  PreparedDeb out;
  out.deb_digest = deb_digest;
  out.control = apt::read_control_archive(file, layout.control, what);
  auto writer = store.begin_blob();
  apt::decompress_data_archive(file, layout.data, *writer, what);
  out.data.tar_digest = writer->commit();
  out.data.members = index_plain_tar(store.blob_path(out.data.tar_digest), what + " (" + layout.data.name + ")");
  nlohmann::json control = nlohmann::json::object();
  for (const auto& [name, bytes] : out.control.files)
    control[name] = {{"digest", store.put(bytes)}, {"mode", out.control.modes.at(name)}};
  store.put_record(kDebRecord, deb_digest, {{"version", kDebRecordVersion}, {"data_index", store.put(out.data.serialize())}, {"control", control}});
  return out;
}

// Prepares .debs on workers of their own as they are handed over, while the downloads go on: the
// CPU work of one .deb (decompressing its data.tar) overlaps the network's waits for the others. The
// first failure stops the handing out (push() then throws it, which stops the downloads too);
// finish() rethrows it; the destructor leaves nothing running.
class PrepareWorkers {
 public:
  PrepareWorkers(unsigned workers, std::function<void(size_t)> prepare) : prepare_(std::move(prepare)) {
    for (unsigned w = 0; w < workers; ++w) threads_.emplace_back([this] { work(); });
  }
  ~PrepareWorkers() { stop(true); }
  void push(size_t i) {
    std::lock_guard lock(mu_);
    if (error_) std::rethrow_exception(error_);
    queue_.push_back(i);
    ready_.notify_one();
  }
  void finish() {
    stop(false);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work() {
    for (;;) {
      size_t i = 0;
      {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
        if (queue_.empty()) return;
        i = queue_.front();
        queue_.pop_front();
      }
      try {
        prepare_(i);
      } catch (...) {
        std::lock_guard lock(mu_);
        if (!error_) error_ = std::current_exception();
        queue_.clear();
      }
    }
  }
  void stop(bool drop_queue) {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
      if (drop_queue) queue_.clear();
      ready_.notify_all();
    }
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  std::function<void(size_t)> prepare_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<size_t> queue_;
  bool closed_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace

std::vector<PreparedDeb> download_and_prepare_debs(ContentStore& store, const std::vector<DownloadJob>& jobs,
                                                   const apt::Resolution& resolution, const DownloadOptions& downloads) {
  PhaseClock clock;
  std::vector<PreparedDeb> prepared(jobs.size());
  std::vector<std::string> digests(jobs.size());  // each set before its index is pushed
  PrepareWorkers workers(worker_count(), [&](size_t i) { prepared[i] = prepare_deb(store, digests[i], jobs[i].what + " (.deb)"); });
  download_all(store, jobs, downloads, nullptr, [&](size_t i, const DownloadResult& deb) {
    if (deb.size != resolution.install[i].package.size)
      throw Error(jobs[i].what + " has " + std::to_string(deb.size) + " bytes, its index says " +
                      std::to_string(resolution.install[i].package.size),
                  "the mirror serves a .deb that does not match its index; nothing was installed");
    digests[i] = deb.digest;
    workers.push(i);
  });
  clock.lap("apt downloads (the first .debs prepared meanwhile)");
  workers.finish();
  clock.lap("apt .deb preparation after the last download (data.tar decompressed into the store)");
  return prepared;
}

apt::DebContents deb_contents(const ContentStore& store, const apt::Package& package, PreparedDeb prepared) {
  apt::DebContents deb;
  deb.package = package;
  deb.control = std::move(prepared.control);
  std::string name = package.name + "_" + package.version.str() + "_" + package.architecture + ".deb";
  deb.members.reserve(prepared.data.members.size());
  auto archive = std::make_shared<const TarArchiveRef>(TarArchiveRef{prepared.data.tar_digest, prepared.deb_digest, name});
  for (const auto& m : prepared.data.members) {
    apt::DataMember d;
    d.path = m.path;
    d.type = m.type;
    d.mode = m.mode;
    d.uid = m.uid;
    d.gid = m.gid;
    d.uname = m.uname;
    d.gname = m.gname;
    d.link_target = m.link_target;
    if (m.type == EntryType::kFile)
      d.content = std::make_shared<TarMemberContent>(store, archive, m.offset, m.size, m.path);
    deb.members.push_back(std::move(d));
  }
  return deb;
}

}  // namespace rp
