#include "planner/cost/objective.h"

#include "planner/graph/diagnostic.h"
#include "planner/graph/identifiers.h"

namespace eindecomp {

const char* objectiveName(Objective o) {
  switch (o) {
    case Objective::Traffic: return "traffic";
    case Objective::Paper: return "paper";
    case Objective::Time: return "time";
  }
  return "traffic";
}

const std::vector<std::string>& objectiveNames() {
  static const std::vector<std::string> names{"traffic", "paper", "time"};
  return names;
}

Objective parseObjective(const std::string& name) {
  if (name == "traffic") return Objective::Traffic;
  if (name == "paper") return Objective::Paper;
  if (name == "time") return Objective::Time;
  throw InputError({{}, "--objective: unknown objective " + quoted(name) + didYouMean(name, objectiveNames()) +
                                               "; use traffic, paper or time"});
}

}  // namespace eindecomp
