#include "group_emission.h"

#include <sstream>

#include "weft/target.h"
#include "weft/te/default_schedule.h"
#include "weft/te/function_te.h"
#include "weft/te/lower.h"
#include "weft/te/printer.h"

namespace weft::cli {

namespace {

te::TargetTraits config_traits(const RunConfig& config) {
  auto given = config.target_options.find("loops");
  Attrs options = given != config.target_options.end() ? given->second : empty_attrs();
  return te::target_traits(TargetRegistry::global().get("loops").options.normalize("target_options.loops", options));
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string emit_groups(const CompiledModule& compiled, const std::string& what) {
  const te::TargetTraits traits = config_traits(compiled.config);
  std::ostringstream out;
  for (size_t g = 0; g < compiled.groups.size(); ++g) {
    const CompiledGroup& group = compiled.groups[g];
    out << (g ? "\n" : "") << "# group " << g << " on " << group.target << ": " << joined(group.ops) << "\n";
    try {
      te::FunctionTe fte = te::function_te(group.primitive);
      if (what == "te") {
        out << te::print(fte.outputs);
      } else {
        out << te::print(te::lower(te::default_schedule(fte.outputs, traits), "group" + std::to_string(g),
                                   fte.inputs()));
      }
    } catch (const Error& e) {
      // A group without TE (an op with none) is reported, not fatal: the
      // rest of the program still shows.
      std::istringstream lines(e.what());
      bool first = true;
      for (std::string line; std::getline(lines, line); first = false) out << (first ? "# no TE: " : "#   ") << line << "\n";
    }
  }
  return out.str();
}

}  // namespace weft::cli
