// write_trace_csv, declared in job_trace.hpp next to the reader it writes for.
#include "job_trace.hpp"

#include <algorithm>
#include <charconv>
#include <ostream>
#include <string>
#include <string_view>

namespace fleetsim::models::fleet {
namespace {

std::string csv_cell(std::string_view text)
{
  const bool plain = text.find_first_of(",\"\r\n") == std::string_view::npos &&
                     (text.empty() ||
                      (text.front() != ' ' && text.back() != ' ' && text.front() != '\t' && text.back() != '\t'));
  if (plain)
    return std::string(text);
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string shortest(double value)
{
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::string("nan");
}

}  // namespace

void write_trace_csv(const Workload& jobs, std::ostream& out, long gpus_per_node)
{
  const long per_node = std::max(1L, gpus_per_node);
  out << "job_id,user,node_num,gpu_num,state,submit_time,start_time,end_time,duration\n";
  for (const auto& job : jobs) {
    const long nodes = (job.gpus + per_node - 1) / per_node;
    out << csv_cell(job.id) << ',' << csv_cell(job.user) << ',' << nodes << ',' << job.gpus << ",COMPLETED,"
        << shortest(job.submit) << ',' << shortest(job.submit) << ',' << shortest(job.submit + job.work) << ','
        << shortest(job.work) << '\n';
  }
}

}  // namespace fleetsim::models::fleet
