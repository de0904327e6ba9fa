// Precompiled for every target (CMakeLists.txt, ROCKPACK_PCH): the standard headers nearly every file
// includes and the heavy third-party headers (nlohmann/json, spdlog/fmt) that dominate compile time.
// Only headers of libraries the whole project already depends on belong here: a header listed here is
// visible to every file, so the per-module include check (tools/check_modules.py) reads the sources'
// own #include lines, never this file.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
