#pragma once
// The .deb container (deb(5)): an ar archive of "debian-binary" ("2.0\n"), control.tar[.gz|.xz|.zst]
// and data.tar[.gz|.xz|.zst|.bz2]. Read from a file without unpacking it: the control archive is
// small and read whole; the data archive is streamed, decompressed, into a sink (the caller keeps
// it as a plain tar from which members are streamed into layers).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "util/byte_sink.hpp"

namespace rp::apt {

struct DebMember {
  std::string name;     // "control.tar.xz"
  uint64_t offset = 0;  // of its data in the .deb
  uint64_t size = 0;
};

struct DebLayout {
  DebMember control;
  DebMember data;
};

// The members of the .deb at `file`. Throws rp::Error naming `what` when it is no .deb: not an ar
// archive, debian-binary missing or not 2.x, control or data archive missing, a member past the end.
DebLayout read_deb_layout(const std::filesystem::path& file, const std::string& what);

struct ControlArchive {
  // Every regular file of control.tar by its name without "./": control, md5sums, conffiles,
  // preinst, postinst, prerm, postrm, config, templates, triggers, shlibs, symbols, ...
  std::map<std::string, std::string> files;
  std::map<std::string, uint32_t> modes;  // permission bits of each
};

// Reads control.tar.* (at most 64 MiB uncompressed). Throws rp::Error naming `what`.
ControlArchive read_control_archive(const std::filesystem::path& file, const DebMember& member, const std::string& what);

// Writes data.tar.*, decompressed, into `sink`. Throws rp::Error naming `what`.
void decompress_data_archive(const std::filesystem::path& file, const DebMember& member, ByteSink& sink,
                             const std::string& what);

}  // namespace rp::apt
