// Hostile names, sizes and numbers from untrusted inputs (.debs, wheels, layers, images, locks,
// command lines): each case is refused with a message that says what is wrong, or made harmless.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include "assemble/layer_builder.hpp"
#include "entries/path_parts.hpp"
#include "entries/tar_index.hpp"
#include "fetch/downloader.hpp"
#include "image/layer_archive.hpp"
#include "image/media_types.hpp"
#include "image/rootfs_view.hpp"
#include "plan/lock_file.hpp"
#include "python/closure.hpp"
#include "python/wheel_archive.hpp"
#include "recipe/model.hpp"
#include "store/cache_admin.hpp"
#include "store/content_store.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

using namespace rp;
using rp::test::TempDir;
namespace fs = std::filesystem;

namespace {

// One ustar header block (name, type, size, link target), checksum filled in.
std::string ustar_header(const std::string& name, char type, size_t size, const std::string& link = "") {
  std::string h(512, '\0');
  h.replace(0, std::min<size_t>(name.size(), 100), name.substr(0, 100));
  h.replace(100, 7, "0000644");
  h.replace(108, 7, "0000000");
  h.replace(116, 7, "0000000");
  char octal[16];
  std::snprintf(octal, sizeof octal, "%011zo", size);
  h.replace(124, 11, octal);
  h.replace(136, 11, "00000000000");
  h[156] = type;
  h.replace(157, std::min<size_t>(link.size(), 100), link.substr(0, 100));
  h.replace(257, 8, std::string("ustar\0" "00", 8));
  h.replace(148, 8, "        ");
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(octal, sizeof octal, "%06o", sum);
  h.replace(148, 6, octal);
  h[154] = '\0';
  return h;
}

std::string tar_padded(std::string data) {
  data.resize((data.size() + 511) / 512 * 512, '\0');
  return data;
}

std::string pax_record(const std::string& key, const std::string& value) {
  std::string body = " " + key + "=" + value + "\n";
  size_t n = body.size() + 1;
  while (std::to_string(n).size() + body.size() != n) n = std::to_string(n).size() + body.size();
  return std::to_string(n) + body;
}

// A tar of one member `name` (type '0' with `data`, or '2'/'1' with a link) preceded by a PAX
// header holding `records`.
std::string pax_tar(const std::string& records, const std::string& name, char type, const std::string& data,
                    const std::string& link = "") {
  std::string out;
  if (!records.empty()) out += ustar_header("PaxHeaders/x", 'x', records.size()) + tar_padded(records);
  out += ustar_header(name, type, type == '0' ? data.size() : 0, link);
  if (type == '0') out += tar_padded(data);
  out += std::string(1024, '\0');
  return out;
}

std::string index_error(const TempDir& dir, const std::string& tar) {
  fs::path file = dir.write("t.tar", tar);
  try {
    index_plain_tar(file, "test.deb (data.tar)");
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

Entry hostile_text_file(const std::string& path, const std::string& content) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = 0644;
  e.content = std::make_shared<InlineContent>(content);
  e.origin = "test";
  return e;
}

class RejectingCache final : public ExternalLayerCache {
 public:
  std::map<std::string, ImageLayer> listed;
  int rejected_count = 0;
  std::optional<ImageLayer> find(const std::string& key) override {
    auto it = listed.find(key);
    if (it == listed.end()) return std::nullopt;
    return it->second;
  }
  void rejected(const std::string&) override { ++rejected_count; }
  void add(const std::string&, const ImageLayer&) override {}
};

}  // namespace

TEST_CASE("member names: a NUL or newline in a PAX path, linkpath or GNU long name is refused") {
  TempDir dir;
  CHECK(index_error(dir, pax_tar(pax_record("path", "./etc/ok"), "./x", '0', "data")).empty());
  std::string nul(std::string("./var/lib/dpkg/status\0forged", 28));
  std::string msg = index_error(dir, pax_tar(pax_record("path", nul), "./placeholder", '0', "Package: forged\n"));
  CHECK_MESSAGE(msg.find("NUL") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("var/lib/dpkg/status?forged") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("test.deb (data.tar)") != std::string::npos, msg);
  msg = index_error(dir, pax_tar(pax_record("path", "./usr/a\n/etc/shadow"), "./x", '0', "x"));
  CHECK_MESSAGE(msg.find("newline") != std::string::npos, msg);
  msg = index_error(dir, pax_tar(pax_record("linkpath", std::string("/etc/passwd\0x", 13)), "./evil", '2', "", "x"));
  CHECK_MESSAGE(msg.find("link target") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("NUL") != std::string::npos, msg);
  // A GNU long name ('L') with a newline.
  std::string gnu_name = "./" + std::string(150, 'a') + "\nb";
  std::string gnu = ustar_header("././@LongLink", 'L', gnu_name.size() + 1) + tar_padded(gnu_name + '\0') +
                    ustar_header("./short", '0', 1) + tar_padded("x") + std::string(1024, '\0');
  msg = index_error(dir, gnu);
  CHECK_MESSAGE(msg.find("newline") != std::string::npos, msg);

  // A cached index record from before the check is no longer trusted: it is indexed again.
  TarIndex index;
  index.tar_digest = "sha256:" + std::string(64, 'a');
  index.members.push_back({"ok", EntryType::kFile, 0644, 1, 512, "", 0, 0, "", ""});
  CHECK_NOTHROW(TarIndex::parse(index.serialize()));
  index.members.push_back({std::string("a\0b", 3), EntryType::kFile, 0644, 1, 1024, "", 0, 0, "", ""});
  CHECK_THROWS_AS(TarIndex::parse(index.serialize()), Error);

  CHECK(unsafe_member_name("usr/bin/x") == nullptr);
  CHECK(std::string(unsafe_member_name(std::string("a\0", 2))) == "a NUL byte");
  CHECK(std::string(unsafe_member_name("a\nb")) == "a newline");
}

TEST_CASE("member names: a wheel whose central directory names a member with a NUL or newline is refused") {
  TempDir dir;
  // A one-member zip (stored), the name patched after writing: no zip library writes a NUL in a name.
  auto zip_with = [&](const std::string& name) {
    std::string data = "x\n";
    uint32_t crc = 0;
    {
      // CRC-32 of "x\n".
      uint32_t c = 0xffffffffu;
      for (unsigned char b : data) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
      }
      crc = ~c;
    }
    auto le16 = [](std::string& s, uint16_t v) { s += static_cast<char>(v & 0xff); s += static_cast<char>(v >> 8); };
    auto le32 = [&](std::string& s, uint32_t v) { le16(s, v & 0xffff); le16(s, static_cast<uint16_t>(v >> 16)); };
    std::string local;
    le32(local, 0x04034b50); le16(local, 20); le16(local, 0); le16(local, 0); le16(local, 0); le16(local, 0x21);
    le32(local, crc); le32(local, 2); le32(local, 2); le16(local, static_cast<uint16_t>(name.size())); le16(local, 0);
    local += name + data;
    std::string central;
    le32(central, 0x02014b50); le16(central, 20); le16(central, 20); le16(central, 0); le16(central, 0); le16(central, 0);
    le16(central, 0x21); le32(central, crc); le32(central, 2); le32(central, 2);
    le16(central, static_cast<uint16_t>(name.size())); le16(central, 0); le16(central, 0); le16(central, 0); le16(central, 0);
    le32(central, 0100644u << 16); le32(central, 0);
    central += name;
    std::string end;
    le32(end, 0x06054b50); le16(end, 0); le16(end, 0); le16(end, 1); le16(end, 1);
    le32(end, static_cast<uint32_t>(central.size())); le32(end, static_cast<uint32_t>(local.size())); le16(end, 0);
    return dir.write("w.whl", local + central + end);
  };
  auto open_error = [&](const std::string& name) {
    try {
      python::WheelArchive::open(zip_with(name), "demo-1.0-py3-none-any.whl");
      return std::string();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  CHECK(open_error("demo/ok.py").empty());
  std::string msg = open_error(std::string("demo/a.py\0.pth", 14));
  CHECK_MESSAGE(msg.find("NUL") != std::string::npos, msg);
  CHECK_MESSAGE(msg.find("demo-1.0-py3-none-any.whl") != std::string::npos, msg);
  msg = open_error("demo/a\n.py");
  CHECK_MESSAGE(msg.find("newline") != std::string::npos, msg);
}

TEST_CASE("cache prune sizes: past 2^64 refused, never wrapped to 0; days: negative and non-numbers said plainly") {
  CHECK(parse_size("500M") == 500ull << 20);
  CHECK(parse_size("1.5G") == 1536ull << 20);
  CHECK(parse_size("18446744073709551615") == UINT64_MAX);
  CHECK(parse_size("10GiB") == 10ull << 30);
  CHECK_THROWS_WITH_AS(parse_size("20000000000G"), doctest::Contains("too large"), InputError);
  CHECK_THROWS_WITH_AS(parse_size("18446744073709551616"), doctest::Contains("too large"), InputError);
  CHECK_THROWS_WITH_AS(parse_size("16777216T"), doctest::Contains("too large"), InputError);
  for (const char* bad : {"inf", "nan", "-1", "0x10", "1e3", "", "G", "1.G", "12Q"})
    CHECK_THROWS_WITH_AS(parse_size(bad), doctest::Contains("is not a size"), InputError);
  CHECK(parse_days("0") == 0);
  CHECK(parse_days("30") == 30);
  CHECK_THROWS_WITH_AS(parse_days("-1"), doctest::Contains("negative"), InputError);
  CHECK_THROWS_WITH_AS(parse_days("abc"), doctest::Contains("not a whole number"), InputError);
  CHECK_THROWS_WITH_AS(parse_days("99999999"), doctest::Contains("100 years"), InputError);

  // The store survives a prune that is refused, and prune_cache itself refuses negative days.
  TempDir dir;
  {
    ContentStore store(dir.path / "store");
    store.put("keep me");
  }
  PruneOptions o;
  o.keep_days = -1;
  CHECK_THROWS_AS(prune_cache(dir.path / "store", o), InputError);
  CHECK(cache_usage(dir.path / "store").total_bytes > 0);
}

TEST_CASE("terminal output: C0 and C1 controls and non-UTF-8 bytes from images are escaped") {
  CHECK(terminal_safe("usr/bin/python3") == "usr/bin/python3");
  CHECK(terminal_safe("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 kept
  CHECK(terminal_safe("\x1b]0;pwned\x07title") == "\\x1b]0;pwned\\x07title");
  CHECK(terminal_safe("a\nb\tc\rd") == "a\\nb\\tc\\rd");
  CHECK(terminal_safe("\x7f") == "\\x7f");
  CHECK(terminal_safe("\xc2\x9b" "2J") == "\\u009b2J");  // C1 CSI as UTF-8
  CHECK(terminal_safe("\x9b" "2J") == "\\x9b2J");        // a lone C1 byte
  CHECK(terminal_safe("\xc0\xaf") == "\\xc0\\xaf");      // overlong form
  CHECK(terminal_safe("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  std::string out = terminal_safe(std::string("\0\x01\x1b[2J\xc2\x85", 7));
  for (char c : out) CHECK((static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f));
}

TEST_CASE("inventory reads: files, path bytes and name length are bounded, with a clear error") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<Entry> entries;
  for (int i = 0; i < 50; ++i) entries.push_back(hostile_text_file("d/" + std::string(200, 'p') + std::to_string(i), ""));
  finalize_entries(entries);
  LayerBuilder builder(store, LayerOptions{Compression::parse("gzip"), 0, 1, false, nullptr});
  BuiltLayer built = builder.build("many", entries);
  const Descriptor& blob = built.layer.blob;

  RootfsView::MetadataBudget roomy;
  CHECK_NOTHROW(RootfsView::read_layer(store, blob, nullptr, built.layer.diff_id, &roomy));
  RootfsView::MetadataBudget few_files(20);
  CHECK_THROWS_WITH_AS(RootfsView::read_layer(store, blob, nullptr, built.layer.diff_id, &few_files),
                       doctest::Contains("more than 20 files"), InputError);
  RootfsView::MetadataBudget few_bytes(1000, 4096);
  CHECK_THROWS_WITH_AS(RootfsView::read_layer(store, blob, nullptr, built.layer.diff_id, &few_bytes),
                       doctest::Contains("file names"), InputError);
  // One budget over several reads: the second read of the same layer goes over.
  RootfsView::MetadataBudget shared(80);
  CHECK_NOTHROW(RootfsView::read_layer(store, blob, nullptr, built.layer.diff_id, &shared));
  CHECK_THROWS_AS(RootfsView::read_layer(store, blob, nullptr, built.layer.diff_id, &shared), InputError);
  // A single name longer than PATH_MAX.
  std::string long_path;
  for (int i = 0; i < 50; ++i) {
    long_path.append(99, 'l');
    long_path.push_back('/');
  }
  std::vector<Entry> long_one{hostile_text_file(long_path + "f", "")};
  finalize_entries(long_one);
  BuiltLayer long_layer = builder.build("long", long_one);
  RootfsView::MetadataBudget budget;
  CHECK_THROWS_WITH_AS(RootfsView::read_layer(store, long_layer.layer.blob, nullptr, long_layer.layer.diff_id, &budget),
                       doctest::Contains("PATH_MAX"), InputError);
  // Without a budget (a build's own reads) nothing changes.
  CHECK_NOTHROW(RootfsView::read_layer(store, long_layer.layer.blob, nullptr, long_layer.layer.diff_id));
}

TEST_CASE("registry layer cache: a layer listed under another content key is not taken, nor recorded") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<Entry> mine{hostile_text_file("etc/app.conf", "mine\n")};
  std::vector<Entry> other{hostile_text_file("etc/app.conf", "FORGED\n")};
  finalize_entries(mine);
  finalize_entries(other);
  LayerBuilder plain(store, LayerOptions{Compression::parse("gzip"), 0, 1, false, nullptr});
  ImageLayer forged = plain.build("other", other).layer;  // valid digest and diff_id, other content

  RejectingCache cache;
  LayerBuilder builder(store, LayerOptions{Compression::parse("gzip"), 0, 1, true, &cache});
  cache.listed[builder.cache_key(mine)] = forged;
  BuiltLayer got = builder.build("mine", mine, "recipe/mine");
  CHECK_FALSE(got.from_external_cache);
  CHECK(cache.rejected_count == 1);
  CHECK(got.layer.diff_id != forged.diff_id);
  std::string content;
  for (const auto& m : test::read_tar(store.read_all(got.layer.blob.digest)))
    if (m.path == "etc/app.conf") content = m.data;
  CHECK(content == "mine\n");
  // The store did not record the forged layer under the key: a later build without the cache
  // builds (or finds) the real one.
  LayerBuilder later(store, LayerOptions{Compression::parse("gzip"), 0, 1, true, nullptr});
  CHECK(later.build("mine", mine, "recipe/mine").layer.diff_id == got.layer.diff_id);

  // A media type lie: the right contents, zstd bytes listed as gzip.
  LayerBuilder zstd_builder(store, LayerOptions{Compression::parse("zstd"), 0, 1, false, nullptr});
  std::vector<Entry> third{hostile_text_file("etc/third", "3\n")};
  finalize_entries(third);
  ImageLayer lying = zstd_builder.build("third", third).layer;
  lying.blob.media_type = media::kOciLayerGzip;
  CHECK(LayerArchive::sniff_compression(store.blob_path(lying.blob.digest)) == "zstd");
  RejectingCache cache2;
  LayerBuilder gz_builder(store, LayerOptions{Compression::parse("gzip"), 0, 1, true, &cache2});
  cache2.listed[gz_builder.cache_key(third)] = lying;
  BuiltLayer third_got = gz_builder.build("third", third, "recipe/third");
  CHECK_FALSE(third_got.from_external_cache);
  CHECK(cache2.rejected_count == 1);
  CHECK(LayerArchive::sniff_compression(store.blob_path(third_got.layer.blob.digest)) == "gzip");
}

TEST_CASE("cache verify: a layer record without the check mark (an older, poisonable one) is reported and repaired") {
  TempDir dir;
  fs::path root = dir.path / "store";
  std::string key;
  {
    ContentStore store(root);
    std::vector<Entry> e{hostile_text_file("a", "a\n")};
    finalize_entries(e);
    LayerBuilder builder(store, LayerOptions{Compression::parse("gzip"), 0, 1, true, nullptr});
    BuiltLayer built = builder.build("a", e, "r/a");
    key = builder.cache_key(e);
    nlohmann::json old = {{"mediaType", built.layer.blob.media_type}, {"digest", built.layer.blob.digest},
                          {"size", built.layer.blob.size}, {"diff_id", built.layer.diff_id},
                          {"uncompressed_size", built.layer.uncompressed_size}};
    store.put_record("layers", key, old);  // as an older rockpack wrote it
  }
  RecordCheck check;
  check.kinds = {"layers", "layers-quick"};
  check.check = [](const nlohmann::json& v) { return LayerBuilder::record_is_checked(v) ? std::string() : std::string("unchecked"); };
  VerifyResult r = verify_cache(root, false, check);
  REQUIRE(r.bad_records.size() == 1);
  CHECK(r.bad_records[0].rfind("layers/", 0) == 0);
  r = verify_cache(root, true, check);
  CHECK(r.repaired);
  CHECK(verify_cache(root, false, check).bad_records.empty());
}

TEST_CASE("downloads stop at the size the index or lock vouches for; file:// takes regular files only") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  fs::path big = dir.write("big.deb", std::string(100000, 'x'));
  DownloadOptions o;
  o.workers = 1;
  DownloadJob job{"file://" + big.string(), sha256_hex(std::string(100000, 'x')), {}, "big 1.0 (big.deb)", uint64_t{1000}};
  CHECK_THROWS_WITH_AS(download_all(store, {job}, o), doctest::Contains("larger than the 1000 bytes"), Error);
  CHECK_FALSE(store.contains("sha256:" + job.sha256));
  job.size = 100000;
  CHECK(download_all(store, {job}, o).front().size == 100000);

  DownloadJob zero{"file:///dev/zero", std::string(64, '0'), {}, "zero 1.0 (zero.whl)", uint64_t{1098}};
  CHECK_THROWS_WITH_AS(download_all(store, {zero}, o), doctest::Contains("not a regular file"), InputError);
  // A wrong digest of a local file: the file's own digest is not printed.
  fs::path secret = dir.write("secret", "root:$6$hash:19000::::::\n");
  DownloadJob wrong{"file://" + secret.string(), std::string(64, 'a'), {}, "secret (x.whl)", std::nullopt};
  try {
    download_all(store, {wrong}, o);
    FAIL("downloaded");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find(sha256_hex(read_file(secret))) == std::string::npos);
  }
}

TEST_CASE("locked python sets: every Requires-Dist must be in the set, extras and markers honoured") {
  auto env = python::MarkerEnvironment::for_python("3.11", "x86_64");
  auto req = [](const char* s) { return python::Requirement::parse(s); };
  auto v = [](const char* s) { return python::Version::parse(s); };
  std::vector<python::LockedDistribution> set = {
      {"torch", v("2.1"), {req("filelock"), req("sympy>=1.0"), req("triton; extra == 'gpu'"), req("pywin32; sys_platform == 'win32'")}},
      {"filelock", v("3.0"), {}},
      {"sympy", v("1.12"), {req("mpmath")}},
      {"mpmath", v("1.3"), {}},
  };
  CHECK(python::missing_dependencies({req("torch")}, set, env).empty());
  // A dependency deleted from the lock is named with what requires it.
  auto without = set;
  without.erase(without.begin() + 3);
  auto missing = python::missing_dependencies({req("torch")}, without, env);
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].required_by == "sympy");
  CHECK(missing[0].requirement == "mpmath");
  // An extra asked for brings its requirements in.
  missing = python::missing_dependencies({req("torch[gpu]")}, set, env);
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].requirement == "triton");
  // A version the requirement excludes, and a top-level requirement missing.
  auto old = set;
  old[2].version = v("0.9");
  missing = python::missing_dependencies({req("torch"), req("numpy")}, old, env);
  REQUIRE(missing.size() == 2);
  CHECK(missing[0].required_by.empty());
  CHECK(missing[0].requirement == "numpy");
  CHECK(missing[1].wrong_version);
}

TEST_CASE("lock files: names, versions and URLs with control characters are refused") {
  auto lock_with = [](const std::string& name, const std::string& version) {
    LockFile lock;
    lock.name = "x";
    lock.platform = "linux/amd64";
    lock.base = "scratch";
    ResolvedComponent c;
    c.kind = PackageKind::kPython;
    c.name = name;
    c.version = version;
    c.filename = "x-1.0-py3-none-any.whl";
    c.url = "https://h/x.whl";
    c.sha256 = std::string(64, 'a');
    c.size = 10;
    lock.steps["python"].components.push_back(c);
    return lock_file_text(lock);
  };
  CHECK_NOTHROW(parse_lock_file(lock_with("x", "1.0"), "rockpack.lock"));
  CHECK_THROWS_WITH_AS(parse_lock_file(lock_with("x\x1b]0;pwned\x07", "1.0"), "rockpack.lock"),
                       doctest::Contains("control character"), InputError);
  CHECK_THROWS_WITH_AS(parse_lock_file(lock_with("x", "1.0\x1b[2J"), "rockpack.lock"), doctest::Contains("version"), InputError);
}

TEST_CASE("recipes: a negative number says so; gecos, home and shell with control bytes are refused; cache_key stays in the recipe's directory") {
  TempDir dir;
  auto error_of = [&](const std::string& text, recipe::LoadOptions opts = {}) {
    auto path = dir.write("r/recipe.yaml", text);
    try {
      recipe::load_recipe(path, opts);
      return std::string();
    } catch (const recipe::RecipeError& e) {
      return std::string(e.what());
    }
  };
  std::string msg = error_of("name: x\nrun:\n  - shell: 'true'\n    timeout: -5\n");
  CHECK_MESSAGE(msg.find("must not be negative") != std::string::npos, msg);
  msg = error_of("name: x\nrun:\n  - shell: 'true'\n    timeout: 99999999999\n");
  CHECK_MESSAGE(msg.find("too large") != std::string::npos, msg);
  msg = error_of("name: x\nrun:\n  - shell: 'true'\n    timeout: soon\n");
  CHECK_MESSAGE(msg.find("whole number") != std::string::npos, msg);

  msg = error_of("name: x\naccounts:\n  users: [{name: a, gecos: \"A\\0B\"}]\n");
  CHECK_MESSAGE(msg.find("gecos") != std::string::npos, msg);
  msg = error_of("name: x\naccounts:\n  users: [{name: a, shell: \"/bin/sh\\u001b\"}]\n");
  CHECK_MESSAGE(msg.find("control") != std::string::npos, msg);

  dir.write("r/key.txt", "k");
  dir.write("elsewhere/secret", "s");
  CHECK(error_of("name: x\nrun:\n  - shell: 'true'\n    cache_key: [key.txt]\n").empty());
  msg = error_of("name: x\nrun:\n  - shell: 'true'\n    cache_key: [../elsewhere/secret]\n");
  CHECK_MESSAGE(msg.find("outside the directory") != std::string::npos, msg);
  msg = error_of("name: x\nrun:\n  - shell: 'true'\n    cache_key: [/etc/hostname]\n");
  CHECK_MESSAGE(msg.find("outside the directory") != std::string::npos, msg);
  recipe::LoadOptions allow;
  allow.allow_paths = {dir.path / "elsewhere"};
  CHECK(error_of("name: x\nrun:\n  - shell: 'true'\n    cache_key: [../elsewhere/secret]\n", allow).empty());
}
