// What the RECORD check costs while a wheel member streams into a layer (not a test: prints times).
//   record_check_bench WHEEL [ROUNDS=3]
// Takes the wheel's largest member and writes it, ROUNDS times each way, as a layer write does:
//   copy:  the gzip layer path (level <= 6): the member's deflate stream is copied and the inflated
//          bytes only hashed for the diff_id (ZipMemberContent::write_with_deflate);
//   gzip:  the path of other layers: inflated, hashed for the diff_id, compressed again (gzip:6);
// once with the member's plain content source and once with its RECORD row checked on the way
// (ZipMemberContent::check_record, as the installer sets it up). Prints the best time of each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "assemble/compression.hpp"
#include "python/record_check.hpp"
#include "python/wheel_archive.hpp"
#include "python/wheel_record.hpp"
#include "python/zip_member_content.hpp"
#include "util/byte_sink.hpp"
#include "util/digest.hpp"

namespace {

using rp::python::ZipMemberContent;

double seconds_of(const std::function<void()>& work, int rounds) {
  double best = 1e9;
  for (int i = 0; i < rounds; ++i) {
    auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void copy_path(const ZipMemberContent& content) {
  rp::CountingSink layer;
  rp::HashingSink diff_id;
  content.write_with_deflate(diff_id, layer);
}

void gzip_path(const ZipMemberContent& content) {
  rp::CountingSink layer;
  auto gzip = rp::make_compressor(rp::Compression::parse("gzip:6"), layer, 1);
  rp::HashingSink diff_id(gzip.get());
  content.write_to(diff_id);
  gzip->finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: record_check_bench WHEEL [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  auto archive = rp::python::WheelArchive::open(argv[1]);
  const rp::python::ZipMember* largest = nullptr;
  for (const auto& m : archive->members())
    if (!largest || m.uncompressed_size > largest->uncompressed_size) largest = &m;
  if (!largest) return 2;
  rp::HashingSink hashing;
  archive->stream_member(*largest, hashing);
  std::string hex = rp::digest_hex(hashing.finish_digest());
  std::string raw;
  for (size_t i = 0; i < hex.size(); i += 2) raw.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));

  ZipMemberContent plain(archive, *largest);
  ZipMemberContent checked(archive, *largest);
  checked.check_record(std::make_shared<rp::python::RecordCheck>("bench.whl", true),
                       rp::python::record_hash_of_raw_digest(raw), std::to_string(largest->uncompressed_size));
  double mb = largest->uncompressed_size / 1e6;
  std::printf("member %s: %.0f MB (%.0f MB deflated), best of %d\n", largest->name.c_str(), mb,
              largest->compressed_size / 1e6, rounds);
  for (auto [name, path] : {std::pair{"copy", &copy_path}, std::pair{"gzip", &gzip_path}}) {
    double without = seconds_of([&] { path(plain); }, rounds);
    double with = seconds_of([&] { path(checked); }, rounds);
    std::printf("%s: %.2f s without the check (%.0f MB/s), %.2f s with it (%.0f MB/s): %+.0f%%\n", name, without,
                mb / without, with, mb / with, (with / without - 1) * 100);
  }
  return 0;
}
