#include "html_page.hpp"

#include "svg_chart.hpp"

namespace fleetsim::report {
namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.45 "DejaVu Sans",Verdana,sans-serif;color:#222;background:#fff;margin:0}
main{max-width:1220px;margin:0 auto;padding:18px 24px 40px}
h1{font-size:22px;margin:4px 0 2px}
h2{font-size:17px;margin:28px 0 4px;border-bottom:1px solid #ddd;padding-bottom:3px}
h3{font-size:14px;margin:10px 0 2px}
p.note{color:#555;margin:2px 0 8px;max-width:1100px}
.figures{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}
.fig{border:1px solid #ddd;border-radius:4px;padding:6px 10px;min-width:96px;background:#fafafa}
.fig .l{font-size:11px;color:#666;text-transform:uppercase;letter-spacing:.03em}
.fig .v{font-size:17px;font-weight:bold}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0 6px;font-size:12px}
.legend span.i{white-space:nowrap}
.sw{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border-radius:2px}
.sw.dash{height:0;border-top:2px dashed;border-radius:0;vertical-align:3px;width:16px}
.row{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.grid{display:grid;grid-template-columns:repeat(2,590px);gap:6px 20px}
table{border-collapse:collapse;font-size:12px;margin:6px 0}
th,td{padding:2px 8px;border-bottom:1px solid #e4e4e4}
th{text-align:right;background:#f3f3f3}
td{text-align:right;font-variant-numeric:tabular-nums}
th:first-child,td:first-child{text-align:left}
table.params td.p{text-align:left}
table.metrics td:last-child,table.metrics th:last-child{text-align:left}
svg text{font-family:"DejaVu Sans",Verdana,sans-serif}
svg .tick{font-size:11px;fill:#444}
svg .lbl{font-size:11px;fill:#222}
svg .lbl.inv{fill:#fff}
svg .atitle{font-size:12px;fill:#333}
svg .grid{stroke:#e6e6e6;stroke-width:1}
svg .axis{stroke:#888;stroke-width:1}
)";

}  // namespace

std::string html_page(const std::string& title, const std::string& body)
{
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
         "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<main>\n" + body + "</main>\n</body>\n</html>\n";
}

std::string figures(const std::vector<std::pair<std::string, std::string>>& label_value)
{
  std::string out = "<div class=\"figures\">";
  for (const auto& [l, v] : label_value)
    out += "<div class=\"fig\"><div class=\"l\">" + html_escape(l) + "</div><div class=\"v\">" + html_escape(v) +
           "</div></div>";
  return out + "</div>\n";
}

std::string legend(const std::vector<LegendItem>& items)
{
  std::string out = "<div class=\"legend\">";
  for (const auto& it : items) {
    const std::string sw = it.dashed ? "<span class=\"sw dash\" style=\"border-color:" + it.color + "\"></span>"
                                     : "<span class=\"sw\" style=\"background:" + it.color + "\"></span>";
    out += "<span class=\"i\">" + sw + html_escape(it.label) + "</span>";
  }
  return out + "</div>\n";
}

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<Cell>>& rows,
                  const std::string& cls)
{
  std::string out = cls.empty() ? "<table>" : "<table class=\"" + cls + "\">";
  out += "<thead><tr>";
  for (const auto& h : header)
    out += "<th>" + html_escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& r : rows) {
    out += "<tr>";
    for (const auto& c : r) {
      out += "<td>";
      if (!c.color.empty())
        out += "<span class=\"sw\" style=\"background:" + html_escape(c.color) + "\"></span>";
      out += c.href.empty() ? html_escape(c.text)
                            : "<a href=\"" + html_escape(c.href) + "\">" + html_escape(c.text) + "</a>";
      out += "</td>";
    }
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

}  // namespace fleetsim::report
