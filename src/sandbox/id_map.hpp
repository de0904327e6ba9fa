#pragma once
// The ids of a sandbox's user namespace: container ids 0..size-1 are host ids
// host_base..host_base+size-1. The root file system handed to the runtime is owned by the host ids
// (what the container sees as root is host_base), and what the command writes is mapped back to the
// container's ids before it becomes a layer.
#include <cstdint>
#include <optional>

namespace rp {

struct IdMap {
  uint32_t host_base = 0;
  uint32_t size = 0;  // 0: no mapping (ids are written as they are)

  // The host id a container id is written as; an id beyond the mapping becomes the container's
  // "nobody" (65534, or the last mapped id), as the kernel shows unmapped ids.
  uint32_t to_host(uint32_t id) const {
    if (size == 0) return id;
    if (id < size) return host_base + id;
    return host_base + (size > 65534 ? 65534 : size - 1);
  }
  // The container id of a host id, or nullopt when the mapping does not hold it.
  std::optional<uint32_t> to_container(uint32_t host) const {
    if (size == 0) return host;
    if (host >= host_base && host - host_base < size) return host - host_base;
    return std::nullopt;
  }
};

struct IdMapping {
  IdMap uids, gids;
};

}  // namespace rp
