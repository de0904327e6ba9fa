// Reading a wheel's METADATA over HTTP Range requests. The zip layout facts used here (APPNOTE.TXT):
// the end-of-central-directory record (EOCD, 22 bytes + a comment of up to 64 KiB) ends the file;
// when the archive needs zip64, a 20-byte locator right before the EOCD points to the 56-byte zip64
// end record, which holds the real directory offset, size and entry count. Each directory entry
// points to a local header (30 bytes + name + extra) followed by the member's data.
#include "python/remote_wheel.hpp"

#include <spdlog/spdlog.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "net/url.hpp"
#include "net/http_retry.hpp"
#include "python/text.hpp"
#include "python/zip_format.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

using namespace zip;  // the format's constants and integer readers

// Room for a local header's extra field, which may differ from the central one; when it is larger
// the member is fetched a second time with the exact length.
constexpr uint64_t kLocalExtraAllowance = 256;

InputError bad_index_wheel(std::string_view display_name, const std::string& what) {
  return InputError(std::string(display_name) + ": not a valid wheel: " + what,
                    "the file on the index is damaged or not a zip archive; report it to the index's maintainers");
}

}  // namespace

const ZipMember* find_metadata_member(const std::vector<ZipMember>& members, std::string_view project) {
  constexpr std::string_view kSuffix = ".dist-info/METADATA";
  const ZipMember* only = nullptr;
  int count = 0;
  for (const auto& m : members) {
    std::string_view name = m.name;
    if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) continue;
    std::string_view dir = name.substr(0, name.size() - kSuffix.size());  // "<name>-<version>"
    if (dir.find('/') != std::string_view::npos) continue;                 // top level only
    ++count;
    only = &m;
    size_t dash = dir.find('-');
    if (!project.empty() && dash != std::string_view::npos && normalize_name(dir.substr(0, dash)) == project) return &m;
  }
  return count == 1 ? only : nullptr;
}

std::optional<std::string> extract_member(const ZipMember& member, std::string_view bytes, uint64_t max_size,
                                          std::string_view display_name, uint64_t* need) {
  auto fail = [&](const std::string& what) {
    return InputError(std::string(display_name) + ": member '" + printable(member.name) + "' " + what,
                      "the wheel is damaged; report it to the index's maintainers");
  };
  if (member.uncompressed_size > max_size)
    throw fail("is " + std::to_string(member.uncompressed_size) + " bytes, more than the " + std::to_string(max_size) +
               " allowed for it");
  if (member.flags & 0x0041) throw fail("is encrypted");
  if (member.method != ZipMember::kStored && member.method != ZipMember::kDeflated)
    throw fail("uses compression method " + std::to_string(member.method) + "; only stored and deflate are supported");
  if (member.method == ZipMember::kStored && member.compressed_size != member.uncompressed_size)
    throw fail("is stored with different compressed and uncompressed sizes");
  const uint64_t name_len = member.name.size();
  if (bytes.size() < kLocalHeaderSize) {
    *need = kLocalHeaderSize + name_len + member.compressed_size;
    return std::nullopt;
  }
  const unsigned char* p = bytes_of(bytes);
  if (le32(p) != kLocalHeaderSignature) throw fail("has no local header");
  const uint64_t local_name_len = le16(p + 26), local_extra_len = le16(p + 28);
  const uint64_t data_start = kLocalHeaderSize + local_name_len + local_extra_len;
  if (bytes.size() < data_start + member.compressed_size) {
    *need = data_start + member.compressed_size;
    return std::nullopt;
  }
  // Two names for one member is a known trick to show a checker one file and install another.
  if (bytes.substr(kLocalHeaderSize, local_name_len) != member.name) throw fail("has a different name in its local header");
  std::string_view data = bytes.substr(static_cast<size_t>(data_start), static_cast<size_t>(member.compressed_size));

  std::string out;
  if (member.method == ZipMember::kStored) {
    out.assign(data);
  } else {
    out.resize(static_cast<size_t>(member.uncompressed_size));
    z_stream s{};
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK) throw Error("cannot initialise zlib");
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    s.avail_in = static_cast<uInt>(data.size());  // at most max_member_size-ish: bounded above
    // One spare byte of output space: inflating into it means the member is larger than it says.
    std::string spare(1, '\0');
    s.next_out = reinterpret_cast<Bytef*>(out.data());
    s.avail_out = static_cast<uInt>(out.size());
    int rc = inflate(&s, Z_FINISH);
    if (rc == Z_BUF_ERROR && s.avail_out == 0) {
      s.next_out = reinterpret_cast<Bytef*>(spare.data());
      s.avail_out = 1;
      rc = inflate(&s, Z_FINISH);
      if (s.avail_out == 0) rc = Z_DATA_ERROR;
    }
    uint64_t produced = s.total_out;
    inflateEnd(&s);
    if (rc != Z_STREAM_END || produced != member.uncompressed_size)
      throw fail("has a corrupt deflate stream or a wrong size");
  }
  if (out.size() != member.uncompressed_size) throw fail("has a wrong size");
  uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
  if (crc != member.crc32) throw fail("fails its CRC-32 check (corrupt or tampered)");
  return out;
}

std::string read_remote_metadata(RangeSource& source, std::string_view display_name, std::string_view project,
                                 const RemoteReadOptions& options) {
  uint64_t file_size = 0;
  // `span` holds the file's bytes from `span_offset` to its end: the tail, grown when needed.
  std::string span = source.read_tail(options.tail_size, &file_size);
  if (span.size() > file_size) throw bad_index_wheel(display_name, "the server sent more bytes than the file has");
  ZipEndInfo end = locate_central_directory(span, file_size, display_name);
  if (!end.location) {
    if (end.need_tail > options.max_directory_size + kEndRecordSize + kMaxCommentSize)
      throw bad_index_wheel(display_name, "its end records lie too far from the end of the file");
    span = source.read_tail(end.need_tail, &file_size);
    if (span.size() > file_size) throw bad_index_wheel(display_name, "the server sent more bytes than the file has");
    end = locate_central_directory(span, file_size, display_name);
    if (!end.location) throw bad_index_wheel(display_name, "no usable end-of-central-directory record");
  }
  const CentralDirectoryLocation loc = *end.location;
  if (loc.size > options.max_directory_size)
    throw bad_index_wheel(display_name, "its central directory is " + std::to_string(loc.size) + " bytes, more than the " +
                                    std::to_string(options.max_directory_size) + " allowed");
  uint64_t span_offset = file_size - span.size();
  if (loc.offset < span_offset) {
    // Fetch what is missing up to the tail, so the span stays one contiguous piece.
    std::string head = source.read_range(loc.offset, span_offset - loc.offset);
    if (head.size() != span_offset - loc.offset) throw Error(std::string(display_name) + ": short read from the server");
    span = head + span;
    span_offset = loc.offset;
  }
  std::string_view directory = std::string_view(span).substr(static_cast<size_t>(loc.offset - span_offset),
                                                             static_cast<size_t>(loc.size));
  std::vector<ZipMember> members = parse_central_directory(directory, loc, display_name);
  const ZipMember* member = find_metadata_member(members, project);
  if (!member) throw bad_index_wheel(display_name, "no (unique) *.dist-info/METADATA member");

  // The member cannot extend into the central directory.
  const uint64_t limit = loc.offset - member->local_header_offset;
  auto bytes_at = [&](uint64_t length) -> std::string {
    length = std::min(length, limit);
    uint64_t start = member->local_header_offset;
    if (start >= span_offset) return span.substr(static_cast<size_t>(start - span_offset), static_cast<size_t>(length));
    std::string got = source.read_range(start, length);
    if (got.size() != length) throw Error(std::string(display_name) + ": short read from the server");
    return got;
  };
  if (member->uncompressed_size > options.max_member_size || member->compressed_size > options.max_member_size)
    throw bad_index_wheel(display_name, "its METADATA is larger than " + std::to_string(options.max_member_size) + " bytes");
  uint64_t guess = kLocalHeaderSize + member->name.size() + kLocalExtraAllowance + member->compressed_size;
  std::string bytes = bytes_at(guess);
  uint64_t need = 0;
  auto text = extract_member(*member, bytes, options.max_member_size, display_name, &need);
  if (!text) {
    if (need > limit || need <= bytes.size()) throw bad_index_wheel(display_name, "its METADATA member runs past its end");
    bytes = bytes_at(need);
    text = extract_member(*member, bytes, options.max_member_size, display_name, &need);
    if (!text) throw bad_index_wheel(display_name, "its METADATA member runs past its end");
  }
  return std::move(*text);
}

// ---- HTTP ----

namespace {

// Keeps a 2xx body in memory up to a limit; past it the transfer is aborted (a server that ignores
// Range must not make us download a gigabyte).
class BoundedSink final : public ByteSink {
 public:
  explicit BoundedSink(uint64_t limit) : limit_(limit) {}
  void write(const void* data, size_t size) override {
    if (data_.size() + size > limit_) {
      overflow_ = true;
      received_ += size;
      throw Error("response too large");
    }
    data_.append(static_cast<const char*>(data), size);
    received_ += size;
  }
  using ByteSink::write;
  void reset() { data_.clear(); }
  std::string& data() { return data_; }
  bool overflow() const { return overflow_; }
  uint64_t received() const { return received_; }

 private:
  uint64_t limit_;
  std::string data_;
  bool overflow_ = false;
  uint64_t received_ = 0;
};

// "bytes 100-199/1000" -> {100, 199, 1000}. nullopt when malformed or the total is unknown ("*").
struct ContentRange {
  uint64_t first, last, total;
};
std::optional<ContentRange> parse_content_range(std::string_view v) {
  v = trim(v);
  if (!v.starts_with("bytes ")) return std::nullopt;
  v.remove_prefix(6);
  unsigned long long a = 0, b = 0, t = 0;
  int used = 0;
  std::string s(v);
  if (std::sscanf(s.c_str(), "%llu-%llu/%llu%n", &a, &b, &t, &used) != 3 || static_cast<size_t>(used) != s.size())
    return std::nullopt;
  if (a > b || b >= t) return std::nullopt;
  return ContentRange{a, b, t};
}

}  // namespace

HttpRangeSource::HttpRangeSource(std::string url, net::Headers headers, RangeStats* stats, RemoteReadOptions options)
    : url_(std::move(url)), headers_(std::move(headers)), stats_(stats), options_(options) {}

// One GET with a Range header (or none). 2xx bodies land in `sink`.
namespace {
net::HttpResponse ranged_get(const std::string& url, const net::Headers& headers, const std::string& range,
                                    BoundedSink& sink, const RemoteReadOptions& options, RangeStats* stats) {
  net::HttpRequest request;
  request.url = url;
  request.headers = headers;
  if (!range.empty()) request.headers.emplace_back("Range", range);
  request.sink = &sink;
  request.before_sink = [&sink](long) { sink.reset(); };
  request.max_body = 1 << 20;  // error bodies only
  request.verify_tls = options.verify_tls;
  if (stats) ++stats->requests;
  try {
    net::HttpResponse response = net::perform_with_retry(request, options.retry);
    if (stats) stats->bytes += sink.received() + response.body.size();
    return response;
  } catch (const Error&) {
    if (stats) stats->bytes += sink.received();
    throw;
  }
}
}  // namespace

void HttpRangeSource::download_whole_file(const std::string& why) {
  BoundedSink sink(options_.max_full_download);
  net::HttpResponse response;
  try {
    response = ranged_get(url_, headers_, "", sink, options_, stats_);
  } catch (const Error&) {
    if (!sink.overflow()) throw;
    throw WholeWheelNeeded(net::redact_url(url_) + ": " + why + ", and the wheel is larger than " +
                    std::to_string(options_.max_full_download >> 20) + " MiB: too large to download just to read its metadata",
                "use an index that supports HTTP Range requests or serves PEP 658 .metadata files");
  }
  if (!response.ok())
    throw Error(net::redact_url(url_) + ": HTTP " + std::to_string(response.status) + " while downloading the wheel");
  whole_file_ = std::move(sink.data());
}

std::string HttpRangeSource::read_tail(uint64_t length, uint64_t* file_size) {
  if (!whole_file_) {
    // The limit lets a 200 answer (Range ignored) through when the whole file is small.
    BoundedSink sink(std::max(length, options_.max_full_download));
    net::HttpResponse response;
    try {
      response = ranged_get(url_, headers_, "bytes=-" + std::to_string(length), sink, options_, stats_);
    } catch (const Error&) {
      if (!sink.overflow()) throw;
      throw WholeWheelNeeded(net::redact_url(url_) + ": the server ignores HTTP Range requests, and the wheel is larger than " +
                      std::to_string(options_.max_full_download >> 20) +
                      " MiB: too large to download just to read its metadata",
                  "use an index that supports HTTP Range requests or serves PEP 658 .metadata files");
    }
    if (response.status == 206) {
      auto range = parse_content_range(response.header("content-range").value_or(""));
      if (!range || range->last + 1 != range->total || sink.data().size() != range->last - range->first + 1)
        throw Error(net::redact_url(url_) + ": the server answered a range request with an unusable Content-Range",
                    "use an index that supports HTTP Range requests or serves PEP 658 .metadata files");
      *file_size = range->total;
      return std::move(sink.data());
    }
    if (response.status == 200) {
      spdlog::debug("index: {} ignores Range; using the whole file", net::redact_url(url_));
      whole_file_ = std::move(sink.data());
    } else if (response.status == 416) {
      download_whole_file("the server refused a range request (416)");
    } else {
      throw Error(net::redact_url(url_) + ": HTTP " + std::to_string(response.status) +
                  " while reading the wheel's end (range request)");
    }
  }
  *file_size = whole_file_->size();
  uint64_t n = std::min<uint64_t>(length, whole_file_->size());
  return whole_file_->substr(static_cast<size_t>(whole_file_->size() - n));
}

std::string HttpRangeSource::read_range(uint64_t offset, uint64_t length) {
  if (length == 0) return {};
  if (!whole_file_) {
    BoundedSink sink(std::max(length, options_.max_full_download));
    net::HttpResponse response;
    std::string range = "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
    try {
      response = ranged_get(url_, headers_, range, sink, options_, stats_);
    } catch (const Error&) {
      if (!sink.overflow()) throw;
      throw Error(net::redact_url(url_) + ": the server stopped honouring HTTP Range requests",
                  "use an index that supports HTTP Range requests or serves PEP 658 .metadata files");
    }
    if (response.status == 206) {
      auto got = parse_content_range(response.header("content-range").value_or(""));
      if (!got || got->first != offset || sink.data().size() != length || got->last != offset + length - 1)
        throw Error(net::redact_url(url_) + ": the server answered a range request with the wrong bytes");
      return std::move(sink.data());
    }
    if (response.status != 200)
      throw Error(net::redact_url(url_) + ": HTTP " + std::to_string(response.status) + " for a range of the wheel");
    whole_file_ = std::move(sink.data());
  }
  if (offset > whole_file_->size() || length > whole_file_->size() - offset)
    throw Error(net::redact_url(url_) + ": a range beyond the end of the file was asked for (the file changed?)");
  return whole_file_->substr(static_cast<size_t>(offset), static_cast<size_t>(length));
}

}  // namespace rp::python
