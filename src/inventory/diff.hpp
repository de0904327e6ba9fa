#pragma once
// What changed from image A to image B: config fields, layers (matched by diff_id, so the same
// layer compressed differently — an OCI layout's gzip blob, a docker archive's plain tar — counts
// as shared), packages per kind (added, removed, changed old -> new) and, when both inventories
// list files, files added, removed and changed (type, size, mode or link target).
#include <nlohmann/json.hpp>

#include "inventory/inventory.hpp"

namespace rp::inventory {

// {"identical": bool, "config": [...], "layers": {...}, "packages": {...}, "files": {...}}
nlohmann::json diff(const Inventory& a, const Inventory& b);

}  // namespace rp::inventory
