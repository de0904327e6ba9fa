#include "plan/rocm_step.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "assemble/store_archives.hpp"
#include "fetch/store_fetcher.hpp"
#include "image/rootfs_view.hpp"
#include "plan/lock_plan.hpp"
#include "plan/python_step.hpp"
#include "net/url.hpp"
#include "python/index_client.hpp"
#include "python/interpreter.hpp"
#include "python/native_sdist.hpp"
#include "python/pep508.hpp"
#include "python/wheel_filename.hpp"
#include "therock/channels.hpp"
#include "therock/devel_expansion.hpp"
#include "therock/dist_info.hpp"
#include "therock/families.hpp"
#include "therock/rocm_env.hpp"
#include "therock/rocm_package.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/phase_clock.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

constexpr std::string_view kBashrc = "etc/bash.bashrc";

const char* kEnvLayer = "rocm-env";
// One layer per package of the ROCm and torch set ("{name}" is the package's name): images for
// different GPU targets then share every layer but their device layers. The tiny `rocm` sdist and
// rocm-bootstrap share rocm-sdk-core's; torch's unsplit neighbours share one.
const char* kCoreLayer = "rocm-sdk-core";
const char* kPackageLayer = "{name}";
const char* kTorchExtrasLayer = "torch-extras";

struct RocmIndexes {
  std::vector<std::string> urls;  // one per family for a "{family}" URL, else one
  bool per_family_url = false;
};

RocmIndexes index_urls(const recipe::RocmSection& rocm) {
  RocmIndexes out;
  std::string url = rocm.index;
  if (url.empty()) url = std::string(therock::find_channel(rocm.channel.empty() ? therock::kDefaultChannel : rocm.channel)->url);
  if (url.find("{family}") != std::string::npos) {
    out.per_family_url = true;
    for (const auto& t : rocm.targets)
      if (t == "all")
        throw InputError(rocm.targets_where.str() + ": `all` targets need a multi-arch index; " + net::redact_url(url) +
                             " is a legacy per-family one",
                         "list the targets, or use a channel (channel: nightly)");
    for (const auto& f : therock::families_for(rocm.targets)) out.urls.push_back(therock::expand_family(url, f));
  } else {
    out.urls.push_back(url);
  }
  return out;
}

// The `rocm` sdists an index offers, and their versions (sorted, newest last).
struct RocmOnIndex {
  std::string display_url;
  std::vector<python::DistFile> sdists;
  std::vector<python::Version> versions;
};

RocmOnIndex rocm_on_index(const std::string& url, const DownloadOptions& downloads, const recipe::RocmSection& rocm) {
  python::IndexClientOptions client;
  client.verify_tls = downloads.verify_tls;
  python::IndexClient index({url, false, "", "", {}, rocm.tls_only}, client);
  auto files = index.project_files("rocm");
  if (!files)
    throw InputError(rocm.index_where.str() + ": the index " + index.display_url() + " has no 'rocm' project",
                     "check the URL: a TheRock index root (…/whl-next/, …/whl-multi-arch/, or a legacy …/v2/{family}/)");
  RocmOnIndex out{index.display_url(), {}, {}};
  for (const auto& f : *files) {
    if (auto v = python::sdist_version(f.filename, "rocm")) {
      out.sdists.push_back(f);
      out.versions.push_back(*v);
    }
  }
  std::sort(out.versions.begin(), out.versions.end());
  out.versions.erase(std::unique(out.versions.begin(), out.versions.end()), out.versions.end());
  if (out.versions.empty())
    throw InputError(rocm.index_where.str() + ": the index " + index.display_url() + " lists no rocm sdist (rocm-<version>.tar.gz)",
                     "this does not look like a TheRock index");
  return out;
}

// The version to install: the newest, or the pin if the index still has it.
std::string choose_version(const recipe::RocmSection& rocm, const std::string& url, const std::vector<python::Version>& have) {
  if (rocm.version == "latest") return have.back().to_string();
  python::Version want = python::Version::parse(rocm.version);
  if (std::find(have.begin(), have.end(), want) != have.end()) return want.to_string();
  // Nightlies disappear; show the ones around the pin so the user can pick a neighbour.
  auto upper = std::upper_bound(have.begin(), have.end(), want);
  size_t at = static_cast<size_t>(upper - have.begin());
  size_t from = at >= 3 ? at - 3 : 0;
  size_t to = std::min(have.size(), at + 3);
  std::vector<std::string> nearest;
  for (size_t i = from; i < to; ++i) nearest.push_back(have[i].to_string());
  throw InputError(rocm.version_where.str() + ": rocm " + rocm.version + " is not on " + net::redact_url(url) +
                       " (nightlies are removed after a while); the nearest versions it has: " + join(nearest, ", "),
                   "pin one of those, or use version: latest (the newest is " + have.back().to_string() + ")");
}

// The layout the index serves: per-family when its rocm sdist names family-specific libraries;
// otherwise whl-next when the rocm page links its files in its own directory (structured, one
// directory per package, routed per product), else flat whl-multi-arch (`../<file>` links).
std::string layout_served(therock::IndexLayout sdist_layout, const python::DistFile& sdist) {
  if (sdist_layout == therock::IndexLayout::kPerFamily) return "per-family";
  // Resolved against the page that answered (after the aggregate root's routing): structured
  // indexes keep each file in its package's directory.
  std::string dir = sdist.url.substr(0, sdist.url.rfind('/') + 1);
  return dir.ends_with("/rocm/") ? "whl-next" : "multi-arch";
}

// The device extra of each target ("device-gfx942"), or device-all for `all`.
std::vector<std::string> device_extras(const std::vector<std::string>& targets) {
  std::vector<std::string> out;
  for (const auto& t : targets) out.push_back("device-" + t);
  if (std::find(targets.begin(), targets.end(), "all") != targets.end()) out = {"device-all"};
  return out;
}

// "rocm[devel,libraries]==V"; on the multi-arch layouts also the device extras of the targets, as
// TheRock documents it (rocm[libraries,devel,device-gfx942]).
std::string rocm_requirement(const recipe::RocmSection& rocm, const std::string& version, bool multi_arch) {
  std::vector<std::string> extras = rocm.components;
  if (multi_arch)
    for (const auto& e : device_extras(rocm.targets)) extras.push_back(e);
  std::sort(extras.begin(), extras.end());
  return "rocm" + (extras.empty() ? std::string() : "[" + join(extras, ",") + "]") + "==" + version;
}

// On the multi-arch layouts torch's and torchvision's device code comes in `device-<gfx>` extras
// (TheRock's wheel splitter gives their host wheels one per target, each requiring an
// amd-torch(vision)-device-<t> wheel): a requested torch, torchvision or torchaudio without extras
// gets one per target, as TheRock's docs write torch[device-gfx942] torchvision[device-gfx942].
// A package whose wheel provides no such extra (torchaudio today) is installed as it is: the
// resolver, like pip, leaves out extras a distribution does not declare.
bool has_device_extras(const std::string& normalized_name) {
  return normalized_name == "torch" || normalized_name == "torchvision" || normalized_name == "torchaudio";
}

std::string with_device_extras(const std::string& text, const std::vector<std::string>& targets) {
  python::Requirement r = python::Requirement::parse(text);
  if (!has_device_extras(r.normalized_name()) || !r.extras.empty() || !r.url.empty()) return text;
  r.extras = device_extras(targets);
  return r.to_string();
}

// The image's /etc/bash.bashrc (base layers and earlier steps), empty when it has none. Cached by
// the base layers' digests: reading it means decompressing the base.
std::string read_bashrc(const StepContext& context) {
  const std::string path(kBashrc);
  ContentStore& store = *context.store;
  Sha256 key;
  key.update("bashrc-v1\n");
  for (const auto& l : context.plan.base.layers) key.update(l.blob.digest + "\n");
  std::string cache_key = digest_hex(key.finish_digest());
  bool planned = false;
  for (const auto& l : context.plan.layers)
    for (const auto& e : l.entries) planned = planned || e.path == path;
  if (!planned) {
    if (auto cached = store.get_record("image-bashrc", cache_key); cached && cached->contains("text"))
      return (*cached)["text"].get<std::string>();
  }
  RootfsView view = context.rootfs([](std::string_view p) { return p == kBashrc; });
  std::string text = view.read(path, 1 << 20).value_or("");
  if (!planned) store.put_record("image-bashrc", cache_key, {{"text", text}});
  return text;
}

Entry text_file(const std::string& path, std::string text, const std::string& origin) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = 0644;
  e.content = std::make_shared<InlineContent>(std::move(text));
  e.origin = origin;
  return e;
}

// What a lock pins of the rocm section: the version and the layout the index served.
struct LockedRocm {
  std::string version;
  std::string layout;
};

std::optional<LockedRocm> locked_rocm(const StepLock& locked, const std::string& lock_path) {
  auto version = locked.pins.find("version");
  if (version == locked.pins.end()) return std::nullopt;
  LockedRocm out{version->second, ""};
  (void)python::Version::parse(out.version);  // untrusted: a malformed version is an InputError here
  auto layout = locked.pins.find("layout");
  if (layout != locked.pins.end()) out.layout = layout->second;
  if (!out.layout.empty() && out.layout != "per-family" && out.layout != "multi-arch" && out.layout != "whl-next")
    throw InputError(lock_path + ": steps.rocm.pins.layout '" + out.layout + "' is no TheRock index layout",
                     "run `rockpack lock RECIPE` to write the lock again");
  return out;
}

// The file name a download's URL ends in (a wheel's, for the prefetch's jobs).
std::string url_filename(const DownloadJob& job) { return job.url.substr(job.url.find_last_of('/') + 1); }

// The normalized project of the wheel a download fetches ("rocm-sdk-devel"), or empty.
std::string wheel_project(const DownloadJob& job) {
  auto wheel = python::WheelFilename::try_parse(url_filename(job));
  return wheel ? wheel->normalized_name() : std::string();
}

// The ROCm wheels, on their way into the store while the base is still being read. The python step
// resolves only once the image's interpreter is known (its tags and markers), which waits for the
// base's check, a whole read of its layers; the rocm sdist already pins every package its extras
// bring (rocm-sdk-core==V, ...), so their files can download meanwhile. A package whose page (on
// the first rocm index that knows it) lists exactly one wheel of the pinned version gets it
// prefetched: verified like any download (against the index's sha256, or with `verify: tls-only`
// its digest and validators remembered). The python step's download of the same URL waits for it
// and finds the file in the store (or gets a 304); a file the resolver does not choose stays
// unused in the store. Failures are left to that download, which reports them.
// `on_ready`, when given, is called with each file as soon as it is in the store, on its download
// thread and before the python step's download of that URL stops waiting: work that needs only the
// file (copying rocm-sdk-devel's tarball into the store) starts then, beside the base's read, and is
// done when the python step gets the file. What it throws is ignored (the install does that work
// again and reports its failures).
// `first`, when not empty, names the project whose wheel starts the longest chain (rocm-sdk-devel:
// its tarball is one deflate stream, inflated on one core once the wheel is in): it downloads
// ahead of the others, which start when it is in or after kHeadStart, whichever comes first. Where
// the downloads are bound by the CPU (hashing and writing them: a fast mirror, loopback), the
// chain then starts about twice as soon; where the network is the limit, the others lose at most
// the head start.
class WheelPrefetch {
 public:
  using Ready = std::function<void(const DownloadJob& job, const DownloadResult& result)>;
  static constexpr std::chrono::seconds kHeadStart{2};
  WheelPrefetch(ContentStore& store, DownloadOptions downloads, std::vector<python::IndexSource> indexes,
                std::vector<python::Requirement> pinned, Ready on_ready = {}, std::string first = {})
      : store_(store), downloads_(std::move(downloads)), indexes_(std::move(indexes)), pinned_(std::move(pinned)),
        on_ready_(std::move(on_ready)), first_(std::move(first)) {
    chosen_future_ = chosen_.get_future().share();
    thread_ = std::thread([this] { run(); });
  }
  // Waits for the downloads: nothing is left running when the step ends, or fails.
  ~WheelPrefetch() { thread_.join(); }
  WheelPrefetch(const WheelPrefetch&) = delete;
  WheelPrefetch& operator=(const WheelPrefetch&) = delete;

  // The prefetch of `url`, or nullopt when there is none.
  std::optional<std::shared_future<DownloadResult>> file(const std::string& url) const {
    chosen_future_.wait();
    auto it = by_url_.find(url);
    if (it == by_url_.end()) return std::nullopt;
    return results_[it->second];
  }

 private:
  // The one wheel of each pinned version (index pages only; nothing is downloaded here).
  std::vector<DownloadJob> choose() const {
    python::IndexClientOptions client;
    client.verify_tls = downloads_.verify_tls;
    std::vector<std::unique_ptr<python::IndexClient>> clients;
    for (const auto& source : indexes_) clients.push_back(std::make_unique<python::IndexClient>(source, client));
    std::vector<DownloadJob> jobs;
    for (const auto& r : pinned_) {
      const auto& specs = r.specifier.specifiers();
      if (specs.size() != 1 || specs[0].op() != python::Specifier::Op::kEqual || specs[0].wildcard()) continue;
      for (const auto& index : clients) {
        auto files = index->project_files(r.normalized_name());
        if (!files) continue;
        std::vector<const python::DistFile*> wheels;
        for (const auto& f : *files) {
          auto w = python::WheelFilename::try_parse(f.filename);
          if (w && w->normalized_name() == r.normalized_name() && w->version == specs[0].version()) wheels.push_back(&f);
        }
        if (wheels.size() == 1 && (wheels[0]->sha256 || index->source().tls_only)) {
          const python::DistFile& f = *wheels[0];
          jobs.push_back({f.url, f.sha256.value_or(""), index->auth_headers_for(f.url),
                          r.normalized_name() + " " + specs[0].version().to_string() + " (" + f.filename + ", prefetched)",
                          f.size});
        }
        break;  // the first index that knows the project is where the resolver takes it from
      }
    }
    return jobs;
  }

  void run() {
    std::vector<DownloadJob> jobs;
    try {
      jobs = choose();
    } catch (const std::exception& e) {
      spdlog::debug("rocm: no prefetch: {}", e.what());
      jobs.clear();
    }
    std::vector<std::promise<DownloadResult>> promises(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
      by_url_[jobs[i].url] = i;
      results_.push_back(promises[i].get_future().share());
    }
    chosen_.set_value();
    std::vector<char> done(jobs.size(), 0);  // each job's worker is the only one to touch its slot
    // The first project's wheel on a thread of its own, the others once it is in (or after the
    // head start).
    std::vector<size_t> ahead, rest;
    for (size_t i = 0; i < jobs.size(); ++i) (is_first(jobs[i]) ? ahead : rest).push_back(i);
    std::promise<void> ahead_in;
    std::future<void> ahead_in_future = ahead_in.get_future();
    std::thread ahead_thread;
    if (ahead.empty())
      ahead_in.set_value();
    else
      ahead_thread = std::thread([&] { fetch(jobs, ahead, promises, done, &ahead_in); });
    ahead_in_future.wait_for(kHeadStart);
    fetch(jobs, rest, promises, done, nullptr);
    if (ahead_thread.joinable()) ahead_thread.join();
    for (size_t i = 0; i < jobs.size(); ++i)
      if (!done[i]) promises[i].set_value(DownloadResult{});
  }

  bool is_first(const DownloadJob& job) const { return !first_.empty() && wheel_project(job) == first_; }

  // Downloads jobs[which...]; `arrived` (if any) is set once they are in, or have failed.
  void fetch(const std::vector<DownloadJob>& jobs, const std::vector<size_t>& which,
             std::vector<std::promise<DownloadResult>>& promises, std::vector<char>& done, std::promise<void>* arrived) {
    std::vector<DownloadJob> some;
    for (size_t i : which) some.push_back(jobs[i]);
    try {
      if (!some.empty())
        download_all(store_, some, downloads_, nullptr, [&](size_t k, const DownloadResult& r) {
          const size_t i = which[k];
          done[i] = 1;
          if (arrived && which.size() == 1) {  // the others may start while this one's file is prepared
            arrived->set_value();
            arrived = nullptr;
          }
          if (on_ready_) {
            try {
              on_ready_(jobs[i], r);
            } catch (const std::exception& e) {
              spdlog::debug("rocm: {}: not prepared early ({}); the install does it", jobs[i].what, e.what());
            }
          }
          promises[i].set_value(r);
        });
    } catch (const std::exception& e) {
      spdlog::debug("rocm: a prefetch failed (the download will try again): {}", e.what());
    }
    if (arrived) arrived->set_value();
  }

  ContentStore& store_;
  DownloadOptions downloads_;
  std::vector<python::IndexSource> indexes_;
  std::vector<python::Requirement> pinned_;
  Ready on_ready_;
  std::string first_;  // the project whose wheel downloads ahead of the others, or empty
  std::promise<void> chosen_;
  std::shared_future<void> chosen_future_;
  std::map<std::string, size_t> by_url_;                       // written before chosen_ is set
  std::vector<std::shared_future<DownloadResult>> results_;    // likewise
  std::thread thread_;
};

// The prefetch's hook for rocm-sdk-devel's wheel: its tarball copied into the store
// (therock::prepare_devel_file), which the install's prepare_devel then finds made.
void prepare_devel_early(ContentStore& store, const DownloadJob& job, const DownloadResult& file) {
  if (wheel_project(job) != "rocm-sdk-devel" || file.digest.empty()) return;
  const std::string filename = url_filename(job);
  PhaseClock timer;
  if (therock::prepare_devel_file(StoreArchiveOpener(store), store.blob_path(file.digest), filename, file.digest))
    spdlog::debug("rocm: {}'s devel tarball copied into the store in {:.2f} s, while the base is read", filename,
                  timer.wall_seconds());
}

}  // namespace

nlohmann::json RocmRecord::to_json() const {
  return {{"version", version},       {"layout", layout},       {"targets", targets},
          {"families", families},     {"indexes", indexes},     {"components", components},
          {"expand_devel", expand_devel}, {"root", root}};
}

bool RocmStep::reads_from_base(std::string_view path) const {
  return path == kBashrc || python::interpreter_file_of_interest(path);
}

StepOutput RocmStep::plan(const StepContext& context) const {
  const recipe::Recipe& recipe = context.recipe;
  const recipe::RocmSection& rocm = *recipe.rocm;

  // 1. Where, and which version.
  RocmIndexes indexes = index_urls(rocm);
  if (context.mode == StepMode::kOffline) {
    if (rocm.version != "latest") (void)python::Version::parse(rocm.version);
    return python_step_output(plan_python(context, *recipe.python));
  }
  const std::vector<std::string> families = indexes.per_family_url ? therock::families_for(rocm.targets) : std::vector<std::string>{};
  ContentStore& store = *context.store;
  PhaseClock phase;
  // What the section asks for, as the lock records it; a locked build stops here when it differs.
  std::vector<std::string> lock_inputs = {"version " + rocm.version, "targets " + join(rocm.targets, ";"),
                                          "components " + join(rocm.components, ","),
                                          std::string("expand_devel ") + (rocm.expand_devel ? "true" : "false")};
  for (const auto& u : indexes.urls) lock_inputs.push_back("index " + net::redact_url(u) + (rocm.tls_only ? " verify=tls-only" : ""));
  check_locked_inputs(context.lock, context.step, "rocm", lock_inputs);
  // The version (and the layout) come from the lock when it pins them: build --locked asks the
  // index nothing, lock --update keeps them unless `rocm` is named.
  const StepLock* locked = context.locked();
  std::optional<LockedRocm> pinned;
  if (locked && context.lock.keeps("rocm")) pinned = locked_rocm(*locked, context.lock.path);
  RocmOnIndex first;
  if (!pinned) first = rocm_on_index(indexes.urls.front(), context.downloads, rocm);
  const std::string version = pinned ? pinned->version : choose_version(rocm, indexes.urls.front(), first.versions);
  spdlog::info("rocm: {} for {} from {}", version, join(rocm.targets, ";"), join(indexes.urls, " "));

  // 2. The layout decides the extras; it is in the sdist (small; the resolver would download it
  // anyway) and in how the index links it. The release's targets are checked here too.
  therock::RocmPackageOptions package_options;
  package_options.targets = rocm.targets;
  package_options.families_from_indexes = indexes.urls.size() > 1;
  package_options.fetcher = std::make_shared<StoreFileFetcher>(store, context.downloads);
  auto package = std::make_shared<therock::RocmPackage>(package_options);
  std::string layout = pinned ? pinned->layout : "";
  const therock::DistInfo* dist_info = nullptr;  // the chosen version's, when the index was read
  therock::IndexLayout sdist_layout_read{};
  if (!pinned) {
    for (const auto& f : first.sdists) {
      if (python::sdist_version(f.filename, "rocm")->to_string() != version) continue;
      if (!f.sha256 && !rocm.tls_only)
        throw InputError(rocm.index_where.str() + ": " + f.filename + " on " + first.display_url +
                             " has no sha256 to verify the download against (TheRock's whl-next indexes publish none)",
                         "accept this index's files on TLS alone with `verify: tls-only` in the rocm section: their "
                         "sha256 is then computed on download, recorded in the lock, SBOM and a label");
      const auto& sdist = package->read_sdist({f.filename, f.url, f.sha256.value_or(""), {}, first.display_url});
      const auto sdist_layout = therock::layout_of(sdist.dist_info);
      dist_info = &sdist.dist_info;
      sdist_layout_read = sdist_layout;
      layout = layout_served(sdist_layout, f);
      if (indexes.urls.size() == 1 || sdist_layout != therock::IndexLayout::kPerFamily)
        therock::check_targets(sdist.dist_info, rocm.targets, sdist_layout);
      break;
    }
  }
  const bool multi_arch = layout != "per-family";
  if (!multi_arch)
    spdlog::warn("rocm: {} is a legacy per-family TheRock index: TheRock publishes no new releases there, and old ones "
                 "may be deleted; move to a channel (channel: nightly) and targets on the current index",
                 join(indexes.urls, " "));
  if (multi_arch && indexes.per_family_url)
    throw InputError(rocm.index_where.str() + ": the URL has {family} but the index serves multi-arch packages",
                     "remove {family} from the URL");

  // 3. The python step with the rocm indexes first, `rocm[...]` added, the ROCm and torch packages
  // in layers of their own (after any the recipe names itself), and TheRock's two hooks.
  PythonAdditions additions;
  for (const auto& url : indexes.urls) {
    recipe::PythonIndex ix;
    ix.where = rocm.index_where;
    ix.url = url;
    ix.layer = "python";
    ix.tls_only = rocm.tls_only;
    additions.leading_indexes.push_back(std::move(ix));
  }
  if (multi_arch) additions.adjust_package = [&rocm](const std::string& text) { return with_device_extras(text, rocm.targets); };
  additions.packages.emplace_back(rocm_requirement(rocm, version, multi_arch), rocm.where);
  additions.layers.emplace_back(kCoreLayer, std::vector<std::string>{"rocm", "rocm-sdk-core", "rocm-bootstrap"});
  additions.layers.emplace_back(kPackageLayer, std::vector<std::string>{"rocm-sdk-libraries", "rocm-sdk-libraries-*",
                                                                        "rocm-sdk-device-*", "rocm-sdk-devel", "rocm-profiler",
                                                                        "torch", "amd-torch-device-*", "torchvision",
                                                                        "amd-torchvision-device-*"});
  additions.layers.emplace_back(kTorchExtrasLayer,
                                std::vector<std::string>{"torchaudio", "triton", "pytorch-triton-rocm"});
  additions.native_sdist = package;
  // The wheels the sdist pins, downloading while the python step waits for the base's check.
  std::optional<WheelPrefetch> prefetch;
  // Only while the base's check is still reading it: with the check done (a base read before, its
  // result in the store) the resolution starts at once, and a prefetch would only ask twice.
  const bool base_being_read = context.plan.base_verified.valid() &&
                               context.plan.base_verified.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  if (context.mode == StepMode::kBuild && dist_info && base_being_read && !context.downloads.store_only &&
      !(context.lock && context.lock.strict)) {
    std::vector<std::string> extras = rocm.components;
    if (multi_arch)
      for (const auto& e : device_extras(rocm.targets)) extras.push_back(e);
    std::vector<python::IndexSource> sources;
    for (const auto& url : indexes.urls) sources.push_back({url, false, "", "", {}, rocm.tls_only});
    // rocm-sdk-devel's tarball (one deflate stream, inflated on one core) is copied into the store
    // as soon as its wheel is there, while the base is still read, not after the resolution.
    // Its wheel downloads ahead of the others: that copy is the plan's longest chain.
    WheelPrefetch::Ready copy_devel;
    std::string ahead;
    if (rocm.expand_devel && std::find(rocm.components.begin(), rocm.components.end(), "devel") != rocm.components.end()) {
      copy_devel = [&store](const DownloadJob& job, const DownloadResult& file) { prepare_devel_early(store, job, file); };
      ahead = "rocm-sdk-devel";
    }
    try {
      prefetch.emplace(store, context.downloads, std::move(sources),
                       therock::requirements_for(*dist_info, rocm.targets, extras, sdist_layout_read), std::move(copy_devel),
                       std::move(ahead));
    } catch (const InputError&) {
      // an unknown extra or family: the resolution says so, with its hint
    }
  }
  if (prefetch) additions.prefetched = [&prefetch](const std::string& url) { return prefetch->file(url); };
  phase.lap("plan.rocm.index");  // the version, the sdist and the layout
  therock::DevelExpansion expansion;
  additions.after_install = [&](std::vector<python::InstalledWheel>& wheels, const python::InstallScheme& scheme) {
    therock::own_shared_files(wheels, scheme.purelib.substr(1));
    if (!rocm.expand_devel) return;
    StoreArchiveOpener archives(store);
    PhaseClock timer;
    expansion = therock::expand_devel(archives, wheels, scheme.purelib.substr(1));
    timer.lap("plan.rocm.devel-expansion");
  };
  if (rocm.expand_devel) {
    additions.on_installed = [&store](const python::InstalledWheel& wheel, const python::InstallScheme& scheme) {
      therock::prepare_devel(StoreArchiveOpener(store), wheel, scheme.purelib.substr(1));
    };
  }
  // The image's bash.bashrc, read meanwhile: it waits for the base's check, whose read of the base
  // it shares with the python step's interpreter (StepContext::rootfs).
  std::future<std::string> bashrc = std::async(std::launch::async, [&context] { return read_bashrc(context); });
  PythonStepResult python = plan_python(context, *recipe.python, additions);
  const bool devel = std::find(rocm.components.begin(), rocm.components.end(), "devel") != rocm.components.end();
  if (context.mode == StepMode::kBuild && rocm.expand_devel && devel && !expansion.expanded)
    throw Error("rocm: rocm-sdk-devel was installed but it had no devel tarball to expand",
                "the index's rocm-sdk-devel wheel is not what TheRock publishes; set rocm: expand_devel: false to install it as it is");
  if (expansion.expanded)
    spdlog::info("rocm: devel tree expanded ({} files, {} hardlinks, {} symlinks, {} device links)", expansion.files,
                 expansion.hardlinks, expansion.symlinks, expansion.device_links);
  std::string torch_version;
  for (const auto& p : python.record->packages)
    if (p.component.name == "torch") torch_version = p.component.version;

  // 4. The environment: files for shells, Env for everything else (computed on the Env the python
  // changes leave).
  therock::RocmEnvInputs env_in;
  env_in.root = python.scheme.purelib + (devel && rocm.expand_devel ? "/_rocm_sdk_devel" : "/_rocm_sdk_core");
  env_in.targets = rocm.targets;
  // ROCM_SDK_TARGET_FAMILY only for a legacy per-family install (there it names a family; on the
  // multi-arch layouts extras choose the device packages).
  if (!multi_arch) {
    const auto legacy_families = families.empty() ? therock::families_for(rocm.targets) : families;
    if (!legacy_families.empty()) env_in.family = legacy_families.front();
  }
  env_in.knobs = rocm.env;
  const std::string origin = recipe.file.filename().string() + " rocm";
  std::vector<Entry> env_files = {
      text_file("etc/rocm_env.sh", therock::rocm_env_script(env_in), origin),
      text_file("etc/profile.d/rocm-sdk.sh", therock::rocm_profile_script(), origin),
      text_file("etc/bash.bashrc", therock::bashrc_with_rocm_env(bashrc.get()), origin),
  };
  finalize_entries(env_files);

  StepOutput out = python_step_output(std::move(python));
  out.layers.push_back({kEnvLayer, "rockpack rocm: /etc/rocm_env.sh, /etc/profile.d/rocm-sdk.sh (" + recipe.file.filename().string() + ")",
                        std::move(env_files), {}});
  nlohmann::json env_after_python = context.plan.config["config"].value("Env", nlohmann::json::array());
  apply_env_changes(env_after_python, out.config.env, recipe);
  std::vector<std::string> image_env;
  for (const auto& e : env_after_python) image_env.push_back(e.get<std::string>());
  for (const auto& [k, v] : therock::rocm_image_env(env_in, image_env))
    out.config.env.push_back({EnvChange::Kind::kSet, k, v});

  // 5. Labels, the component and the record.
  std::vector<std::string> shown_urls;
  for (const auto& u : indexes.urls) shown_urls.push_back(net::redact_url(u));
  const std::string& layout_name = layout;
  for (auto label : std::vector<std::pair<std::string, std::string>>{{"org.rockpack.rocm.version", version},
                       {"org.rockpack.rocm.family", join(families, ",")},
                       {"org.rockpack.rocm.targets", join(rocm.targets, ";")},
                       {"org.rockpack.rocm.index", join(shown_urls, ",")},
                       {"org.rockpack.rocm.layout", layout_name},
                       {"org.rockpack.torch.version", torch_version}})
    out.config.labels.push_back(std::move(label));
  auto record = std::make_shared<RocmRecord>();
  record->version = version;
  record->layout = layout_name;
  record->targets = rocm.targets;
  record->families = families;
  record->indexes = shown_urls;
  record->components = rocm.components;
  record->expand_devel = rocm.expand_devel;
  record->root = env_in.root;
  out.records.emplace_back("rocm", std::move(record));
  out.lock_inputs["rocm"] = std::move(lock_inputs);
  out.lock_pins = {{"version", version}, {"layout", layout_name}};
  return out;
}

}  // namespace rp
