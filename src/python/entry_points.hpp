#pragma once
// entry_points.txt: an INI file of groups; `[console_scripts]` and `[gui_scripts]` become launcher
// scripts in the image's bin directory, so their names must not escape it.
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

struct EntryPoint {
  std::string group;  // "console_scripts"
  std::string name;   // "torchrun"
  std::string value;  // "torch.distributed.run:main [extra]" as written (trimmed)
  std::string module;               // "torch.distributed.run"
  std::string attr;                 // "main"; may be empty outside the script groups
  std::vector<std::string> extras;  // from "[a, b]"
};

struct EntryPoints {
  std::vector<EntryPoint> entries;  // in file order

  // Names are case-sensitive. In the script groups every value must be `module:attr [extras]` and
  // every name a plain file name (no '/', '\\' or ".."); violations throw rp::InputError. Other
  // groups are kept as written, with module/attr filled in when they parse.
  static EntryPoints parse(std::string_view text, std::string_view source = "entry_points.txt");

  std::vector<EntryPoint> group(std::string_view name) const;
  std::vector<EntryPoint> console_scripts() const { return group("console_scripts"); }
  std::vector<EntryPoint> gui_scripts() const { return group("gui_scripts"); }
};

}  // namespace rp::python
