#include "sandbox/output_lines.hpp"

#include <cstring>

namespace rp {

void OutputLines::feed(const char* data, size_t size) {
  // Each byte is looked at once: newlines are searched in the new bytes only, and the pending text
  // is at most max_line_ bytes when a piece is appended to it.
  while (size > 0) {
    const void* nl = std::memchr(data, '\n', size);
    size_t upto = nl ? static_cast<size_t>(static_cast<const char*>(nl) - data) : size;
    size_t room = max_line_ - pending_.size();
    if (upto > room || (!nl && upto == room)) {  // the line outgrows the bound: pass on a full piece
      pending_.append(data, room);
      sink_(std::move(pending_));
      pending_.clear();
      ++split_;
      data += room;
      size -= room;
      continue;
    }
    pending_.append(data, upto);
    if (!nl) return;
    sink_(std::move(pending_));
    pending_.clear();
    data += upto + 1;
    size -= upto + 1;
  }
}

void OutputLines::finish() {
  if (pending_.empty()) return;
  sink_(std::move(pending_));
  pending_.clear();
}

}  // namespace rp
