#include "python/license.hpp"

#include <map>
#include <set>

#include "util/strings.hpp"

namespace rp::python {

namespace {

bool one_line(const std::string& s) { return !s.empty() && s.size() <= 200 && s.find('\n') == std::string::npos; }

}  // namespace

std::string classifier_license(std::string_view classifier) {
  // By the classifier's last part (trove classifiers, https://pypi.org/classifiers/).
  static const std::map<std::string, std::string, std::less<>> kMap = {
      {"MIT License", "MIT"},
      {"MIT No Attribution License (MIT-0)", "MIT-0"},
      {"Apache Software License", "Apache-2.0"},
      {"ISC License (ISCL)", "ISC"},
      {"Mozilla Public License 2.0 (MPL 2.0)", "MPL-2.0"},
      {"Python Software Foundation License", "PSF-2.0"},
      {"The Unlicense (Unlicense)", "Unlicense"},
      {"Boost Software License 1.0 (BSL-1.0)", "BSL-1.0"},
      {"Eclipse Public License 2.0 (EPL-2.0)", "EPL-2.0"},
      {"zlib/libpng License", "Zlib"},
      {"Historical Permission Notice and Disclaimer (HPND)", "HPND"},
      {"CC0 1.0 Universal (CC0 1.0) Public Domain Dedication", "CC0-1.0"},
      {"European Union Public Licence 1.2 (EUPL 1.2)", "EUPL-1.2"},
      {"GNU General Public License v2 (GPLv2)", "GPL-2.0-only"},
      {"GNU General Public License v2 or later (GPLv2+)", "GPL-2.0-or-later"},
      {"GNU General Public License v3 (GPLv3)", "GPL-3.0-only"},
      {"GNU General Public License v3 or later (GPLv3+)", "GPL-3.0-or-later"},
      {"GNU Lesser General Public License v2 (LGPLv2)", "LGPL-2.0-only"},
      {"GNU Lesser General Public License v2 or later (LGPLv2+)", "LGPL-2.0-or-later"},
      {"GNU Lesser General Public License v3 (LGPLv3)", "LGPL-3.0-only"},
      {"GNU Lesser General Public License v3 or later (LGPLv3+)", "LGPL-3.0-or-later"},
      {"GNU Affero General Public License v3", "AGPL-3.0-only"},
      {"GNU Affero General Public License v3 or later (AGPLv3+)", "AGPL-3.0-or-later"},
  };
  std::string_view s = trim(classifier);
  if (!s.starts_with("License ::")) return "";
  auto last = s.rfind("::");
  auto it = kMap.find(trim(s.substr(last + 2)));
  return it == kMap.end() ? "" : it->second;
}

DeclaredLicense declared_license(const EmailHeaders& metadata) {
  DeclaredLicense out;
  std::string expression = std::string(trim(metadata.get("License-Expression").value_or("")));
  if (!expression.empty()) {
    if (auto e = spdx_expression(expression)) {
      out.expression = *e;
      return out;
    }
    if (one_line(expression)) out.text = expression;
  }
  std::string license = std::string(trim(metadata.get("License").value_or("")));
  if (one_line(license) && license != "UNKNOWN") {
    if (auto e = spdx_expression(license)) {
      out.expression = *e;
      out.text.clear();
      return out;
    }
    if (out.text.empty()) out.text = license;
  }
  std::set<std::string> ids;
  for (const auto& c : metadata.get_all("Classifier"))
    if (std::string id = classifier_license(c); !id.empty()) ids.insert(id);
  if (ids.size() == 1) {
    out.expression = *ids.begin();
  } else if (ids.size() > 1 && out.text.empty()) {
    // Several license classifiers do not say whether all apply or any one: no expression is asserted.
    out.text = "classifiers: " + join(std::vector<std::string>(ids.begin(), ids.end()), ", ");
  }
  return out;
}

}  // namespace rp::python
