#pragma once
// A small, forgiving HTML tokenizer for simple-repository pages. It only needs tags, their
// attributes and the text between them, but it must survive anything a hostile or broken server
// sends: every byte is looked at a bounded number of times, nothing recurses, and malformed
// constructs are dropped rather than reported (as browsers do).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rp::python {

struct HtmlToken {
  enum class Kind { kStartTag, kEndTag, kText } kind = Kind::kText;
  std::string name;  // tags: lowercased tag name
  std::string text;  // kText: the text with entities decoded
  // Start tags: lowercased names, entity-decoded values; nullopt for a bare attribute ("data-yanked").
  // The first occurrence of a duplicated attribute wins, as in HTML5.
  std::vector<std::pair<std::string, std::optional<std::string>>> attributes;

  bool has(std::string_view attr) const;
  // The attribute's value ("" for a bare attribute); nullopt when absent.
  std::optional<std::string> get(std::string_view attr) const;
};

std::vector<HtmlToken> tokenize_html(std::string_view html);

// Decodes character references (&amp; &lt; &gt; &quot; &apos; &nbsp; &#NN; &#xHH;); unknown or
// malformed references are left as they are.
std::string decode_html_entities(std::string_view s);

}  // namespace rp::python
